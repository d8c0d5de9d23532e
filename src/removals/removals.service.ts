import type { CampaignAccess } from '../campaigns/campaigns.service.ts';
import type { Store } from '../db/store.ts';
import { idListOf, NO_IDS } from '../disclosures/id-list.ts';
import { ApiError } from '../errors.ts';
import { type CachedResponse, toCachedResponse } from '../http/response-cache.ts';
import { toIso } from '../instant.ts';
import { CursorCodec, type PositionFormat } from '../paging/page-cursor.ts';
import { nextCursorAfter, type PageQuery, type Paging, pageMeta } from '../paging/page-query.ts';
import { countRemovals, type FeedStart, readHorizon, readRemovals } from './removals.repository.ts';
import { DEFAULT_REMOVALS_LIMIT } from './removals.schemas.ts';

/** A removal's place in the feed's order (removedAt, then id). */
export interface RemovalPosition {
  removedAt: number;
  respondentId: string;
}

const REMOVAL_POSITIONS: PositionFormat<RemovalPosition> = {
  list: 'removals',
  toPair: (position) => [position.removedAt, position.respondentId],
  fromPair: (removedAt, respondentId) => ({ removedAt, respondentId }),
};

/**
 * The removals feed of a campaign: who left it and when, for a key that may read the campaign.
 * It holds ids and times only. It vouches for removals after the horizon's vouchedSince; a
 * `since` before that answers 410, because the removals between are no longer (or not yet)
 * recorded. Its watermark `until` is the newest stamp the service gave, in any campaign: a
 * removal committed later is stamped after it, and only a removal forgotten after the
 * retention period is ever stamped before a watermark a client still holds.
 */
export function createRemovalsFeed(store: Store, options: { cursorKey: Buffer }) {
  const paging: Paging<RemovalPosition> = {
    cursors: new CursorCodec(options.cursorKey, REMOVAL_POSITIONS),
    defaultLimit: DEFAULT_REMOVALS_LIMIT,
  };

  return {
    /** How a removals page's query is read (see readPageQuery). */
    paging,

    /** A page of the campaign's removals, for a key that may read the campaign. */
    async page(
      { campaign }: CampaignAccess,
      query: PageQuery<RemovalPosition>,
    ): Promise<CachedResponse> {
      const campaignId = campaign.id;
      const start: FeedStart = query.after
        ? { kind: 'after', ...query.after }
        : { kind: 'offset', rows: (query.page - 1) * query.limit };
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
      const nextCursor = nextCursorAfter(paging, campaignId, query, {
        shown: rows.length,
        total,
        last: last && { removedAt: last.removedAt, respondentId: last.respondentId },
      });
      const body = {
        data: rows.map((row) => ({ id: row.respondentId, removedAt: toIso(row.removedAt) })),
        meta: {
          ...pageMeta(total, query),
          nextCursor,
          until: toIso(Math.max(lastStamp, vouchedSince)),
        },
      };
      return toCachedResponse(body, {
        fieldKeys: [],
        rows: rows.length,
        // Ids named as removed: an id and a time, no field of anyone's answers.
        disclosed: {
          fields: [],
          rowIds: NO_IDS,
          removalIds: idListOf(rows.map((row) => row.respondentId)),
        },
      });
    },
  };
}

export type RemovalsFeed = ReturnType<typeof createRemovalsFeed>;
