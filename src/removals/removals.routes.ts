import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { campaignOf, pageQueryOf, recordServed } from '../campaigns/campaign-request.ts';
import { CampaignParams } from '../campaigns/campaigns.schemas.ts';
import { sendTagged } from '../http/conditional.ts';
import { errorResponses, NOT_MODIFIED } from '../http/error-responses.ts';
import { RemovalsQuerySchema, RemovalsResponse } from './removals.schemas.ts';
import type { RemovalsFeed } from './removals.service.ts';

/**
 * An addition within v1: the feed of respondents who left a campaign. GET, changes nothing.
 * `paging` reads its query; `feedOf` gives the feed the request reads (the door chose its store).
 */
export function removalsRoutes(
  paging: RemovalsFeed['paging'],
  feedOf: (request: FastifyRequest) => RemovalsFeed,
): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/campaigns/:id/removals',
      {
        config: { campaign: { need: 'record', paging }, discloses: 'removals' },
        schema: {
          tags: ['Data'],
          security: [{ apiKey: [] }],
          operationId: 'listRemovals',
          summary:
            'Respondents who left a campaign (deleted, erased or expired), one page at a time',
          description: [
            'Each item is an id to delete from your copy, with when it left; nothing else about the person. Ordered by removedAt, then id. Paging, cursors, ETags, scope and the rate limit work as for respondents.',
            'Rule 5: apply removals since your last sync; on 410, re-read the campaign. Keep meta.until of a removals answer taken before a full pass, and pass it as since after the pass.',
            'Removals are kept for REMOVALS_RETENTION_DAYS (90 by default). A since earlier than the feed vouches for answers 410 full_sync_required.',
          ].join('\n\n'),
          params: CampaignParams,
          querystring: RemovalsQuerySchema,
          response: {
            200: RemovalsResponse,
            ...NOT_MODIFIED,
            ...errorResponses(400, 401, 403, 404, 410, 429, 500, 503),
          },
        },
      },
      async (request, reply) => {
        const response = await feedOf(request).page(
          campaignOf(request, 'record'),
          pageQueryOf(request, paging),
        );
        recordServed(request, response, { rows: false });
        return sendTagged(request, reply, response);
      },
    );
  };
}
