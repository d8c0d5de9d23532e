import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { ApiError } from '../errors.ts';
import { requireKey } from '../http/key-auth.ts';
import { CampaignParams, NoQuery, RespondentsQuerySchema } from './campaigns.schemas.ts';
import type { CampaignService } from './campaigns.service.ts';
import { parseInstant } from './instant.ts';
import { decodeCursor } from './page-cursor.ts';

/**
 * Bodies are serialised with plain JSON.stringify: the projection already decided every field, and
 * a generic schema for `fields` would only slow the hot path down.
 */
function sendJson(reply: FastifyReply, body: unknown): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(body));
}

/** The three data endpoints of spec, Endpoints. Every one is GET and changes nothing. */
export function campaignRoutes(service: CampaignService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/campaigns', { schema: { querystring: NoQuery } }, async (request, reply) => {
      const key = requireKey(request);
      const data = await service.listCampaigns(key);
      request.accessRecord = { rows: data.length };
      return sendJson(reply, { data });
    });

    app.get(
      '/campaigns/:id/summary',
      { schema: { params: CampaignParams, querystring: NoQuery } },
      async (request, reply) => {
        const key = requireKey(request);
        request.accessRecord = { campaignId: request.params.id };
        const summary = await service.summary(key, request.params.id);
        request.accessRecord.fieldKeys = Object.keys(summary.breakdowns);
        return sendJson(reply, summary);
      },
    );

    app.get(
      '/campaigns/:id/respondents',
      { schema: { params: CampaignParams, querystring: RespondentsQuerySchema } },
      async (request, reply) => {
        const key = requireKey(request);
        const { page, limit, since, cursor } = request.query;
        request.accessRecord = { campaignId: request.params.id };
        if (cursor !== undefined && page !== undefined) {
          throw new ApiError(
            'invalid_parameter',
            "query parameters 'page' and 'cursor' cannot be combined",
          );
        }
        const decoded = cursor === undefined ? undefined : decodeCursor(cursor);
        if (cursor !== undefined && !decoded) {
          throw new ApiError(
            'invalid_parameter',
            "query parameter 'cursor' is not a cursor this service issued",
          );
        }
        // The schema's date-time format runs parseInstant too, so this always succeeds here.
        const sinceMs = since === undefined ? undefined : parseInstant(since);
        const result = await service.respondents(key, request.params.id, {
          page: page ?? 1,
          limit,
          sinceMs,
          ...(decoded ? { cursor: decoded } : {}),
        });
        request.accessRecord.fieldKeys = result.servedFieldKeys;
        request.accessRecord.rows = result.data.length;
        return sendJson(reply, { data: result.data, meta: result.meta });
      },
    );
  };
}
