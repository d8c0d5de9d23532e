import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.ts';
import { PENDING } from '../journal/change-stamps.repository.ts';

/**
 * Tombstones, written only here and only beside the removal they record: every way a respondent
 * leaves (a deletion in an import, a deleted campaign, an operator's erasure, retention) deletes
 * the row and records `(campaign, id)` in one statement pair of the caller's transaction.
 *
 * A tombstone is written PENDING and given its time by stampChanges (src/journal/) just before its transaction
 * commits, so that `removed_at` is as near the commit as the service can make it: a long import
 * must not record removals at its start and commit them minutes later, behind a reader's `until`.
 */
const BATCH = 500;

function* batches<T>(items: readonly T[]): Generator<T[]> {
  for (let start = 0; start < items.length; start += BATCH) {
    yield items.slice(start, start + BATCH);
  }
}

async function recordPending(
  db: Kysely<Database>,
  rows: ReadonlyArray<{ campaign_id: string; id: string }>,
): Promise<void> {
  for (const batch of batches(rows)) {
    await db
      .insertInto('removals')
      .values(
        batch.map((row) => ({
          campaign_id: row.campaign_id,
          respondent_id: row.id,
          removed_at: PENDING,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['campaign_id', 'respondent_id']).doUpdateSet({ removed_at: PENDING }),
      )
      .execute();
  }
}

/** Deletes these respondents, each with its tombstone; returns how many there were. */
export async function removeRespondents(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<number> {
  let removed = 0;
  for (const batch of batches(ids)) {
    const rows = await db
      .selectFrom('respondents')
      .select(['id', 'campaign_id'])
      .where('id', 'in', batch)
      .execute();
    if (rows.length === 0) continue;
    await recordPending(db, rows);
    await forgetChanges(
      db,
      rows.map((row) => row.id),
    );
    await db
      .deleteFrom('respondents')
      .where(
        'id',
        'in',
        rows.map((row) => row.id),
      )
      .execute();
    removed += rows.length;
  }
  return removed;
}

/**
 * Deletes a campaign: it is marked deleted (404 from now on) and every respondent of it goes,
 * each with its tombstone. Returns whether it existed live, and how many respondents went.
 */
export async function removeCampaign(
  db: Kysely<Database>,
  campaignId: string,
  now: number,
): Promise<{ deleted: boolean; respondents: number }> {
  const result = await db
    .updateTable('campaigns')
    .set({ deleted_at: now, updated_at: now })
    .where('id', '=', campaignId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return { deleted: false, respondents: 0 };
  return { deleted: true, respondents: await removeCampaignRespondents(db, campaignId) };
}

/** Deletes every respondent of a campaign, each with its tombstone; returns how many. */
export async function removeCampaignRespondents(
  db: Kysely<Database>,
  campaignId: string,
): Promise<number> {
  await sql`INSERT INTO removals (campaign_id, respondent_id, removed_at)
    SELECT campaign_id, id, ${PENDING} FROM respondents WHERE campaign_id = ${campaignId}
    ON CONFLICT (campaign_id, respondent_id) DO UPDATE SET removed_at = ${PENDING}`.execute(db);
  await db.deleteFrom('respondent_changes').where('campaign_id', '=', campaignId).execute();
  const result = await db
    .deleteFrom('respondents')
    .where('campaign_id', '=', campaignId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** A removed respondent leaves the changes feed's index: its tombstone speaks for it now. */
async function forgetChanges(db: Kysely<Database>, ids: readonly string[]): Promise<void> {
  await db.deleteFrom('respondent_changes').where('respondent_id', 'in', ids).execute();
}

/**
 * Respondents written are changes for the feed (stamped at the commit), and those written again
 * (an import names them after they left) are no longer removed, from the campaign they are
 * written to. A row that moves to another campaign leaves its old one: it gets a tombstone there.
 */
export async function noteRespondentsWritten(
  db: Kysely<Database>,
  rows: ReadonlyArray<{ id: string; campaign_id: string }>,
): Promise<void> {
  for (const batch of batches(rows)) {
    const ids = batch.map((row) => row.id);
    const campaignOf = new Map(batch.map((row) => [row.id, row.campaign_id]));
    const existing = await db
      .selectFrom('respondents')
      .select(['id', 'campaign_id'])
      .where('id', 'in', ids)
      .execute();
    const moved = existing.filter((row) => campaignOf.get(row.id) !== row.campaign_id);
    if (moved.length > 0) await recordPending(db, moved);
    await db
      .insertInto('respondent_changes')
      .values(
        batch.map((row) => ({
          respondent_id: row.id,
          campaign_id: row.campaign_id,
          changed_at: PENDING,
        })),
      )
      .onConflict((oc) =>
        oc.column('respondent_id').doUpdateSet((eb) => ({
          campaign_id: eb.ref('excluded.campaign_id'),
          changed_at: PENDING,
        })),
      )
      .execute();
    for (const campaignId of new Set(campaignOf.values())) {
      await db
        .deleteFrom('removals')
        .where('campaign_id', '=', campaignId)
        .where(
          'respondent_id',
          'in',
          batch.filter((row) => row.campaign_id === campaignId).map((row) => row.id),
        )
        .execute();
    }
  }
}

/**
 * noteRespondentsWritten for every row of a staging table (id, campaign_id, …) at once, before
 * they are merged into respondents: the set-based form of a large PostgreSQL import.
 */
export async function noteStagedRespondentsWritten(
  db: Kysely<Database>,
  staging: string,
): Promise<void> {
  const staged = sql.table(staging);
  await sql`INSERT INTO removals (campaign_id, respondent_id, removed_at)
    SELECT r.campaign_id, r.id, ${PENDING} FROM ${staged} s JOIN respondents r ON r.id = s.id
    WHERE r.campaign_id <> s.campaign_id
    ON CONFLICT (campaign_id, respondent_id) DO UPDATE SET removed_at = ${PENDING}`.execute(db);
  await sql`DELETE FROM removals m USING ${staged} s
    WHERE m.campaign_id = s.campaign_id AND m.respondent_id = s.id`.execute(db);
  await sql`INSERT INTO respondent_changes (respondent_id, campaign_id, changed_at)
    SELECT id, campaign_id, ${PENDING} FROM ${staged}
    ON CONFLICT (respondent_id) DO UPDATE
    SET campaign_id = excluded.campaign_id, changed_at = ${PENDING}`.execute(db);
}

/** A tombstone as the feed serves it. */
export interface Removal {
  respondentId: string;
  removedAt: number;
}

/** Where a feed page starts: after this (removedAt, id), or at a row offset. */
export type FeedStart =
  | { kind: 'after'; removedAt: number; respondentId: string }
  | { kind: 'offset'; rows: number };

/** One page of a campaign's tombstones after `sinceMs`, in (removedAt, id) order. */
export async function readRemovals(
  db: Kysely<Database>,
  campaignId: string,
  sinceMs: number | undefined,
  start: FeedStart,
  limit: number,
): Promise<Removal[]> {
  let query = db
    .selectFrom('removals')
    .select(['respondent_id', 'removed_at'])
    .where('campaign_id', '=', campaignId)
    .where('removed_at', '>', Math.max(sinceMs ?? PENDING, PENDING));
  if (start.kind === 'after') {
    query = query.where((eb) =>
      eb.or([
        eb('removed_at', '>', start.removedAt),
        eb.and([
          eb('removed_at', '=', start.removedAt),
          eb('respondent_id', '>', start.respondentId),
        ]),
      ]),
    );
  }
  const rows = await query
    .orderBy('removed_at')
    .orderBy('respondent_id')
    .limit(limit)
    .offset(start.kind === 'offset' ? start.rows : 0)
    .execute();
  return rows.map((row) => ({
    respondentId: row.respondent_id,
    removedAt: Number(row.removed_at),
  }));
}

/** How many of a campaign's tombstones are after `sinceMs`. */
export async function countRemovals(
  db: Kysely<Database>,
  campaignId: string,
  sinceMs: number | undefined,
): Promise<number> {
  const row = await db
    .selectFrom('removals')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('campaign_id', '=', campaignId)
    .where('removed_at', '>', Math.max(sinceMs ?? PENDING, PENDING))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * What the feed can vouch for: every removal after `vouchedSince` is in it, and every removal
 * committed later is stamped after `lastStamp`.
 */
export interface RemovalsHorizon {
  vouchedSince: number;
  lastStamp: number;
}

export async function readHorizon(db: Kysely<Database>): Promise<RemovalsHorizon> {
  const row = await db
    .selectFrom('removals_horizon')
    .select(['vouched_since', 'last_stamp'])
    .where('id', '=', 1)
    .executeTakeFirstOrThrow();
  return { vouchedSince: Number(row.vouched_since), lastStamp: Number(row.last_stamp) };
}

/**
 * Forgets tombstones from before `cutoff`; the feed then vouches only for removals after the
 * newest one forgotten. A purge that forgets nothing moves nothing, so a client that read the
 * feed within the retention period can always follow it on. Returns how many were forgotten.
 */
export async function purgeRemovalsBefore(db: Kysely<Database>, cutoff: number): Promise<number> {
  const newest = await db
    .selectFrom('removals')
    .select((eb) => eb.fn.max('removed_at').as('newest'))
    .where('removed_at', '<=', cutoff)
    .where('removed_at', '!=', PENDING)
    .executeTakeFirstOrThrow();
  if (newest.newest === null) return 0;
  // The horizon moves first: should the deletion not happen, the feed only vouches for less.
  await db
    .updateTable('removals_horizon')
    .set((eb) => ({
      vouched_since: sql`CASE WHEN ${eb.ref('vouched_since')} < ${newest.newest} THEN ${newest.newest} ELSE ${eb.ref('vouched_since')} END`,
    }))
    .where('id', '=', 1)
    .execute();
  const result = await db
    .deleteFrom('removals')
    .where('removed_at', '<=', Number(newest.newest))
    .where('removed_at', '!=', PENDING)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Forgets the versions of respondents that are gone, recorded before `cutoff`: an upsert older
 * than a deletion is then no longer known as stale, as its tombstone is no longer kept either.
 */
export async function purgeVersionsBefore(db: Kysely<Database>, cutoff: number): Promise<number> {
  const result = await db
    .deleteFrom('respondent_versions')
    .where('respondent_versions.updated_at', '<=', cutoff)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('respondents')
            .select('respondents.id')
            .whereRef('respondents.id', '=', 'respondent_versions.id'),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Respondents after an id, in id order, with their answers: for an erasure request's scan. */
export async function findRespondentsAfter(db: Kysely<Database>, afterId: string, limit: number) {
  const rows = await db
    .selectFrom('respondents')
    .select(['id', 'campaign_id', 'submitted_at', 'answers'])
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ ...row, submitted_at: Number(row.submitted_at) }));
}

/** Live campaigns whose event was at or before `eventBefore` and that still have respondents. */
export async function findCampaignsPastRetention(db: Kysely<Database>, eventBefore: number) {
  const rows = await db
    .selectFrom('campaigns')
    .select(['id', 'event_date', 'response_count'])
    .where('deleted_at', 'is', null)
    .where('event_date', 'is not', null)
    .where('event_date', '<=', eventBefore)
    .where('response_count', '>', 0)
    .orderBy('event_date')
    .execute();
  return rows.map((row) => ({
    campaignId: row.id,
    eventDate: Number(row.event_date),
    respondents: Number(row.response_count),
  }));
}

/** Which of these ids are respondents of the campaign. */
export async function findRespondentIdsIn(
  db: Kysely<Database>,
  campaignId: string,
  ids: readonly string[],
): Promise<string[]> {
  const rows = await db
    .selectFrom('respondents')
    .select('id')
    .where('campaign_id', '=', campaignId)
    .where('id', 'in', ids)
    .execute();
  return rows.map((row) => row.id);
}
