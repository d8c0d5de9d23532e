import { createHash } from 'node:crypto';
import type { CampaignAccess } from '../campaigns/campaigns.service.ts';
import type { Store } from '../db/store.ts';
import { IdListBuilder } from '../disclosures/id-list.ts';
import { ApiError } from '../errors.ts';
import type { CachedResponse } from '../http/response-cache.ts';
import { toIso } from '../instant.ts';
import { CursorCodec, type PositionFormat } from '../paging/page-cursor.ts';
import { nextCursorAfter, type PageQuery, type Paging, pageMeta } from '../paging/page-query.ts';
import { readHorizon } from '../removals/removals.repository.ts';
import {
  type ChangePosition,
  type ChangesStart,
  countChanges,
  readChanges,
} from './changes.repository.ts';
import { DEFAULT_CHANGES_LIMIT } from './changes.schemas.ts';

const CHANGE_POSITIONS: PositionFormat<ChangePosition> = {
  list: 'changes',
  toPair: (position) => [position.changedAt, position.respondentId],
  fromPair: (changedAt, respondentId) => ({ changedAt, respondentId }),
};

/**
 * A campaign's changes feed (the delta query of Microsoft Graph): upserts and removals in one
 * order, the order Hadir applied them, resumed from the `meta.until` of the last walk. An edit
 * moves its respondent to the feed's end, so a walk cannot miss a row edited while it runs, and a
 * mirror never re-reads rows it already holds. Upserts carry the allow-listed fields only (R1).
 *
 * The ETag names the changes listed, not `until`: with nothing new since a client's `since`, its
 * conditional request is answered 304 (uncounted) however much other campaigns changed meanwhile.
 */
export function createChangesFeed(store: Store, options: { cursorKey: Buffer }) {
  const paging: Paging<ChangePosition> = {
    cursors: new CursorCodec(options.cursorKey, CHANGE_POSITIONS),
    defaultLimit: DEFAULT_CHANGES_LIMIT,
  };

  return {
    /** How a changes page's query is read (see readPageQuery). */
    paging,

    /** A page of the campaign's changes, for a key that may read the campaign. */
    async page(
      { campaign, projection }: CampaignAccess,
      query: PageQuery<ChangePosition>,
    ): Promise<CachedResponse> {
      const campaignId = campaign.id;
      const start: ChangesStart = query.after
        ? { kind: 'after', position: query.after }
        : { kind: 'offset', rows: (query.page - 1) * query.limit };
      // Read before the rows: every change stamped up to lastStamp is among them (stamps follow
      // commit order, see stampChanges).
      const { vouchedSince, lastStamp } = await readHorizon(store.db);
      if (query.sinceMs !== undefined && query.sinceMs < vouchedSince) {
        throw new ApiError(
          'full_sync_required',
          `removals before ${toIso(vouchedSince)} are no longer kept: read the changes feed again without since (every current respondent), then follow it from that walk's meta.until`,
        );
      }
      const [total, rows] = await Promise.all([
        countChanges(store.db, campaignId, query.sinceMs),
        readChanges(store.db, store.engine, campaignId, query.sinceMs, start, query.limit),
      ]);
      const served = projection.fieldKeys.map(() => false);
      // Who the page carries, for the disclosure record: rows, and ids named as removed.
      const upserted = new IdListBuilder();
      const removed = new IdListBuilder();
      for (const row of rows) (row.kind === 'removal' ? removed : upserted).add(row.respondentId);
      const data = rows.map((row) =>
        row.kind === 'removal'
          ? { type: 'removal', id: row.respondentId, changedAt: toIso(row.changedAt) }
          : {
              type: 'upsert',
              id: row.respondentId,
              changedAt: toIso(row.changedAt),
              respondent: {
                id: row.respondentId,
                submittedAt: toIso(row.submittedAt),
                attendanceStatus: row.attendanceStatus,
                fields: projection.project(JSON.parse(row.answers), served),
              },
            },
      );
      const last = rows.at(-1);
      const nextCursor = nextCursorAfter(paging, campaignId, query, {
        shown: rows.length,
        total,
        last: last && { changedAt: last.changedAt, respondentId: last.respondentId },
      });
      const meta = pageMeta(total, query);
      const changes = JSON.stringify(data);
      const tag = createHash('sha1')
        .update(`${campaignId}\u0000${projection.identity}\u0000${query.sinceMs ?? ''}\u0000`)
        .update(`${JSON.stringify(meta)}\u0000${nextCursor ?? ''}\u0000${changes}`)
        .digest('base64url');
      const until = toIso(Math.max(lastStamp, vouchedSince, last?.changedAt ?? 0));
      const body = `{"data":${changes},"meta":${JSON.stringify({ ...meta, nextCursor, until })}}`;
      return {
        body: Buffer.from(body),
        etag: `"${tag}"`,
        fieldKeys: projection.fieldKeys.filter((_, i) => served[i]),
        rows: rows.length,
        disclosed: {
          fields: projection.fieldKeys,
          rowIds: upserted.finish(),
          removalIds: removed.finish(),
        },
      };
    },
  };
}

export type ChangesFeed = ReturnType<typeof createChangesFeed>;
