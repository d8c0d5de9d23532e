import type { CampaignService } from '../campaigns/campaigns.service.ts';
import { CursorCodec } from '../campaigns/pages/page-cursor.ts';
import type { Store } from '../db/store.ts';
import { ApiError } from '../errors.ts';
import { type CachedResponse, toCachedResponse } from '../http/response-cache.ts';
import { toIso } from '../instant.ts';
import type { AuthenticatedKey } from '../keys/keys.service.ts';
import { countRemovals, type FeedStart, readHorizon, readRemovals } from './removals.repository.ts';

/** A removals query as a client sent it. */
export interface RemovalsQuery {
  page: number;
  limit: number;
  sinceMs: number | undefined;
  cursor?: string;
}

/**
 * The removals feed of a campaign: who left it and when, for a key that may read the campaign.
 * It holds ids and times only. It vouches for removals after the horizon's vouchedSince; a
 * `since` before that answers 410, because the removals between are no longer (or not yet)
 * recorded. Its watermark `until` is the newest stamp the service gave, in any campaign: a
 * removal committed later is stamped after it, and only a removal forgotten after the
 * retention period is ever stamped before a watermark a client still holds.
 */
export function createRemovalsFeed(
  store: Store,
  options: { campaigns: CampaignService; cursorKey: Buffer },
) {
  const { campaigns } = options;
  const cursors = new CursorCodec(options.cursorKey);
  // A removals cursor can never be taken for a respondents cursor of the same campaign.
  const bindingOf = (campaignId: string, query: RemovalsQuery) => ({
    campaignId: `removals\u0000${campaignId}`,
    sinceMs: query.sinceMs,
    limit: query.limit,
  });

  function startOf(campaignId: string, query: RemovalsQuery): { start: FeedStart; page: number } {
    if (query.cursor === undefined) {
      return { start: { kind: 'offset', rows: (query.page - 1) * query.limit }, page: query.page };
    }
    const reading = cursors.decode(query.cursor, bindingOf(campaignId, query));
    switch (reading.kind) {
      case 'valid':
        return {
          start: {
            kind: 'after',
            removedAt: reading.cursor.after.submittedAt,
            respondentId: reading.cursor.after.id,
          },
          page: reading.cursor.page,
        };
      case 'forged':
        throw new ApiError(
          'invalid_parameter',
          "query parameter 'cursor' is not a cursor of this feed",
        );
      case 'other_query':
        throw new ApiError(
          'invalid_parameter',
          `query parameter 'cursor' belongs to another ${reading.what}: send it with the same campaign, since and limit`,
        );
    }
  }

  return {
    async page(
      key: AuthenticatedKey,
      campaignId: string,
      query: RemovalsQuery,
    ): Promise<CachedResponse> {
      await campaigns.access(key, campaignId);
      const { start, page } = startOf(campaignId, query);
      // Read before the rows: every removal stamped up to lastStamp is among them.
      const { vouchedSince, lastStamp } = await readHorizon(store.db);
      if (query.sinceMs !== undefined && query.sinceMs < vouchedSince) {
        throw new ApiError(
          'full_sync_required',
          `removals before ${toIso(vouchedSince)} are no longer kept: re-read the whole campaign without since, then follow this feed from the meta.until of a removals answer taken before that pass`,
        );
      }
      const [total, rows] = await Promise.all([
        countRemovals(store.db, campaignId, query.sinceMs),
        readRemovals(store.db, campaignId, query.sinceMs, start, query.limit),
      ]);
      const last = rows.at(-1);
      const nextCursor =
        last !== undefined && (page - 1) * query.limit + rows.length < total
          ? cursors.encode(
              { after: { submittedAt: last.removedAt, id: last.respondentId }, page: page + 1 },
              bindingOf(campaignId, query),
            )
          : null;
      const body = {
        data: rows.map((row) => ({ id: row.respondentId, removedAt: toIso(row.removedAt) })),
        meta: {
          total,
          page,
          limit: query.limit,
          totalPages: Math.ceil(total / query.limit),
          nextCursor,
          until: toIso(Math.max(lastStamp, vouchedSince)),
        },
      };
      return toCachedResponse(body, { fieldKeys: [], rows: rows.length });
    },
  };
}

export type RemovalsFeed = ReturnType<typeof createRemovalsFeed>;
