import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { campaignOf, pageQueryOf, recordServed } from '../campaigns/campaign-request.ts';
import { CampaignParams } from '../campaigns/campaigns.schemas.ts';
import { sendTagged } from '../http/conditional.ts';
import { errorResponses, NOT_MODIFIED } from '../http/error-responses.ts';
import { ChangesQuerySchema, ChangesResponse } from './changes.schemas.ts';
import type { ChangesFeed } from './changes.service.ts';

/**
 * An addition within v1: a campaign's upserts and removals in one feed. GET, changes nothing.
 * `paging` reads its query; `feedOf` gives the feed the request reads (the door chose its store).
 */
export function changesRoutes(
  paging: ChangesFeed['paging'],
  feedOf: (request: FastifyRequest) => ChangesFeed,
): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/campaigns/:id/changes',
      {
        config: { campaign: { need: 'record', paging }, discloses: 'changes' },
        schema: {
          tags: ['Data'],
          security: [{ apiKey: [] }],
          operationId: 'listChanges',
          summary:
            'What changed in a campaign: upserts and removals in one feed, one page at a time',
          description: [
            'For a mirror that keeps up: each item is an upsert (the respondent as it is now, allow-listed fields only) or a removal (an id and a time), in the order Hadir applied them (changedAt, then id). A respondent edited several times is listed once, at its latest change. Without since the feed starts with every current respondent.',
            'Walk it by meta.nextCursor until null, apply each item in order (upsert by id, delete removals), then keep the last page’s meta.until and send it as since next time. Nothing you already hold is read again, and a row edited during your walk moves to its end, so no walk misses it.',
            'The ETag names the changes listed: send it back as If-None-Match with the same since, and a campaign with nothing new answers 304, which the rate limit does not count. Scope, allow-list, cursors and the rate limit work as for respondents. A since earlier than the feed vouches for (removals are kept REMOVALS_RETENTION_DAYS, 90 by default) answers 410 full_sync_required: walk it again without since.',
          ].join('\n\n'),
          params: CampaignParams,
          querystring: ChangesQuerySchema,
          response: {
            200: ChangesResponse,
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
        recordServed(request, response, { rows: true });
        return sendTagged(request, reply, response);
      },
    );
  };
}
