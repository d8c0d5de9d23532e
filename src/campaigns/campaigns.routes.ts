import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { sendTagged } from '../http/conditional.ts';
import { errorResponses, NOT_MODIFIED } from '../http/error-responses.ts';
import type { Paging } from '../paging/page-query.ts';
import { campaignOf, pageQueryOf, recordServed } from './campaign-request.ts';
import {
  CampaignParams,
  CampaignsResponse,
  FieldsResponse,
  NoQuery,
  RespondentsQuerySchema,
  RespondentsResponse,
  SummaryQuerySchema,
  SummaryResponse,
} from './campaigns.schemas.ts';
import type { CampaignService } from './campaigns.service.ts';
import type { Position } from './pages/respondent-pages.ts';
import { narrowingOf } from './respondent-filter.ts';

const DATA = { tags: ['Data'], security: [{ apiKey: [] }] };

/**
 * The three data endpoints of spec, Endpoints, and the field definitions. All GET; none changes
 * anything. Each reads from the request's reads (the primary's or the replica's, as the door
 * chose, `serviceOf`) the campaign the door resolved; `respondentsPaging` reads a page's query.
 */
export function campaignRoutes(
  respondentsPaging: Paging<Position>,
  serviceOf: (request: FastifyRequest) => CampaignService,
): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/campaigns',
      {
        schema: {
          ...DATA,
          operationId: 'listCampaigns',
          summary: "The campaigns in the key's scope",
          description: 'A key with no campaigns gets { data: [] }, not an error.',
          querystring: NoQuery,
          response: {
            200: CampaignsResponse,
            ...NOT_MODIFIED,
            ...errorResponses(400, 401, 429, 500, 503),
          },
        },
      },
      async (request, reply) => {
        const response = await serviceOf(request).listCampaigns(request.key);
        request.accessRecord = { ...request.accessRecord, rows: response.rows };
        return sendTagged(request, reply, response);
      },
    );

    app.get(
      '/campaigns/:id/summary',
      {
        config: { campaign: { need: 'counts' } },
        schema: {
          ...DATA,
          operationId: 'getCampaignSummary',
          summary: 'Attendance totals and per-question breakdowns of a campaign',
          description:
            'totals are not subject to the allow-list and may gain counters; breakdowns cover allow-listed RADIO and SELECT fields only. 403 for a campaign outside the scope, 404 for one that does not exist.',
          params: CampaignParams,
          querystring: SummaryQuerySchema,
          response: {
            200: SummaryResponse,
            ...NOT_MODIFIED,
            ...errorResponses(400, 401, 403, 404, 429, 500, 503),
          },
        },
      },
      async (request, reply) => {
        const response = await serviceOf(request).summary(
          campaignOf(request, 'counts'),
          narrowingOf(request.query),
        );
        recordServed(request, response, { rows: false });
        return sendTagged(request, reply, response);
      },
    );

    app.get(
      '/campaigns/:id/fields',
      {
        config: { campaign: { need: 'record' } },
        schema: {
          ...DATA,
          operationId: 'listCampaignFields',
          summary: "The questions behind a campaign's field keys",
          description:
            "An addition within v1: the key, label, type and form position of each field in the key's allow-list, in form order. Fields outside the allow-list are not named. 403 for a campaign outside the scope, 404 for one that does not exist.",
          params: CampaignParams,
          querystring: NoQuery,
          response: {
            200: FieldsResponse,
            ...NOT_MODIFIED,
            ...errorResponses(400, 401, 403, 404, 429, 500, 503),
          },
        },
      },
      async (request, reply) => {
        const response = await serviceOf(request).fields(campaignOf(request, 'record'));
        recordServed(request, response, { rows: false });
        return sendTagged(request, reply, response);
      },
    );

    app.get(
      '/campaigns/:id/respondents',
      {
        config: { campaign: { need: 'record', paging: respondentsPaging }, discloses: 'api' },
        schema: {
          ...DATA,
          operationId: 'listRespondents',
          summary: 'Respondent rows of a campaign, one page at a time',
          description: [
            'Ordered by submittedAt, then id. Follow the four rules:',
            'R1: fields vary per key; a field outside the allow-list or left blank is absent, never null.',
            'R2: page until page >= meta.totalPages, read fresh from every response; a short page is not the last page.',
            'R3: on 429 wait Retry-After seconds, then retry the same request.',
            'R4: submittedAt is a last-modified time: store rows by id and upsert. For incremental syncs pass since = the largest submittedAt stored, advanced only after a whole sync succeeded.',
            'Cursor paging (an addition within v1): pass meta.nextCursor as cursor= instead of page, alone or with the same since and limit, to read the rows after that page; unlike page numbers it cannot skip a row that moved because it was edited. page with cursor is a 400. Unknown query parameters are rejected.',
          ].join('\n\n'),
          params: CampaignParams,
          querystring: RespondentsQuerySchema,
          response: {
            200: RespondentsResponse,
            ...NOT_MODIFIED,
            ...errorResponses(400, 401, 403, 404, 429, 500, 503),
          },
        },
      },
      async (request, reply) => {
        const response = await serviceOf(request).respondents(
          campaignOf(request, 'record'),
          pageQueryOf(request, respondentsPaging),
        );
        recordServed(request, response, { rows: true });
        return sendTagged(request, reply, response);
      },
    );
  };
}
