import { type Kysely, sql } from 'kysely';
import type { Engine } from '../db/connect.ts';
import type { Database, NewRespondentRow } from '../db/schema.ts';
import {
  noteRespondentsWritten,
  noteStagedRespondentsWritten,
} from '../removals/removals.repository.ts';
import type { CampaignField } from './import-records.ts';

/** Rows per multi-row statement: well under SQLite's bound-parameter limit for 8 columns. */
export const BATCH_ROWS = 500;

function batches<T>(items: readonly T[]): T[][] {
  const result: T[][] = [];
  for (let i = 0; i < items.length; i += BATCH_ROWS) result.push(items.slice(i, i + BATCH_ROWS));
  return result;
}

/** The field keys of each of these campaigns, as this transaction sees them. */
export async function findFieldKeys(
  db: Kysely<Database>,
  campaignIds: readonly string[],
): Promise<Map<string, Set<string>>> {
  const keys = new Map<string, Set<string>>(campaignIds.map((id) => [id, new Set()]));
  for (const batch of batches(campaignIds)) {
    const rows = await db
      .selectFrom('campaign_fields')
      .select(['campaign_id', 'key'])
      .where('campaign_id', 'in', batch)
      .execute();
    for (const row of rows) keys.get(row.campaign_id)?.add(row.key);
  }
  return keys;
}

/** Ids of the given campaigns that exist and are not deleted. */
export async function findLiveCampaignIds(
  db: Kysely<Database>,
  ids: string[],
): Promise<Set<string>> {
  const live = new Set<string>();
  for (const batch of batches(ids)) {
    const rows = await db
      .selectFrom('campaigns')
      .select('id')
      .where('id', 'in', batch)
      .where('deleted_at', 'is', null)
      .execute();
    for (const row of rows) live.add(row.id);
  }
  return live;
}

/** How an upsert found a campaign: new, back from deletion, or live (with what changed). */
export type CampaignUpsert =
  | { kind: 'new' }
  | { kind: 'restored' }
  | { kind: 'live'; changed: Array<'slug' | 'title' | 'eventDate' | 'location'> };

export async function upsertCampaign(
  db: Kysely<Database>,
  campaign: {
    id: string;
    slug: string;
    title: string;
    eventDate: number | null;
    location: string | null;
  },
  now: number,
): Promise<CampaignUpsert> {
  const before = await db
    .selectFrom('campaigns')
    .select(['slug', 'title', 'event_date', 'location', 'deleted_at'])
    .where('id', '=', campaign.id)
    .executeTakeFirst();
  const values = {
    slug: campaign.slug,
    title: campaign.title,
    event_date: campaign.eventDate,
    location: campaign.location,
    deleted_at: null,
    updated_at: now,
  };
  await db
    .insertInto('campaigns')
    .values({ id: campaign.id, ...values })
    .onConflict((oc) => oc.column('id').doUpdateSet(values))
    .execute();
  if (!before) return { kind: 'new' };
  if (before.deleted_at !== null) return { kind: 'restored' };
  const changed: Array<'slug' | 'title' | 'eventDate' | 'location'> = [];
  if (before.slug !== campaign.slug) changed.push('slug');
  if (before.title !== campaign.title) changed.push('title');
  if (nullableNumber(before.event_date) !== campaign.eventDate) changed.push('eventDate');
  if (before.location !== campaign.location) changed.push('location');
  return { kind: 'live', changed };
}

function nullableNumber(value: number | string | null): number | null {
  return value === null ? null : Number(value);
}

/**
 * Makes the campaign's field list exactly `fields`; unchanged fields are not rewritten. Returns
 * whether anything changed.
 */
export async function replaceCampaignFields(
  db: Kysely<Database>,
  campaignId: string,
  fields: CampaignField[],
): Promise<boolean> {
  let removal = db.deleteFrom('campaign_fields').where('campaign_id', '=', campaignId);
  if (fields.length > 0)
    removal = removal.where(
      'key',
      'not in',
      fields.map((field) => field.key),
    );
  let changed = Number((await removal.executeTakeFirst()).numDeletedRows) > 0;
  for (const [position, field] of fields.entries()) {
    const written = await db
      .insertInto('campaign_fields')
      .values({
        campaign_id: campaignId,
        key: field.key,
        label: field.label,
        type: field.type,
        position,
      })
      .onConflict((oc) =>
        oc
          .columns(['campaign_id', 'key'])
          .doUpdateSet({ label: field.label, type: field.type, position })
          .where((eb) =>
            eb.or([
              eb('campaign_fields.label', '!=', field.label),
              eb('campaign_fields.type', '!=', field.type),
              eb('campaign_fields.position', '!=', position),
            ]),
          ),
      )
      .executeTakeFirst();
    if (Number(written.numInsertedOrUpdatedRows ?? 0) > 0) changed = true;
  }
  return changed;
}

/**
 * Records the versions of these respondents' records where each is newer than the one held (or
 * the first), and returns the ids that were: the others are stale. One statement per batch
 * decides and records at once, so two imports at the same moment cannot both take a row: the
 * second waits for the first's row lock (PostgreSQL) or write lock (SQLite) and sees its version.
 */
export async function claimVersions(
  db: Kysely<Database>,
  records: ReadonlyArray<{ id: string; version: number }>,
  now: number,
): Promise<Set<string>> {
  const newer = new Set<string>();
  // In id order, so that two imports claiming the same ids lock them in the same order: one
  // waits for the other instead of each holding what the other needs.
  const ordered = [...records].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const batch of batches(ordered)) {
    const rows = await db
      .insertInto('respondent_versions')
      .values(batch.map((record) => ({ id: record.id, version: record.version, updated_at: now })))
      .onConflict((oc) =>
        oc
          .column('id')
          .doUpdateSet((eb) => ({
            version: eb.ref('excluded.version'),
            updated_at: eb.ref('excluded.updated_at'),
          }))
          .where('respondent_versions.version', '<', (eb) => eb.ref('excluded.version')),
      )
      .returning('id')
      .execute();
    for (const row of rows) newer.add(row.id);
  }
  return newer;
}

/** Upserts rows in batches as they are (no tombstone bookkeeping: see respondentWriter). */
export async function upsertRespondents(
  db: Kysely<Database>,
  rows: NewRespondentRow[],
): Promise<void> {
  for (const batch of batches(rows)) {
    await db
      .insertInto('respondents')
      .values(batch)
      .onConflict((oc) =>
        oc.column('id').doUpdateSet((eb) => ({
          campaign_id: eb.ref('excluded.campaign_id'),
          submitted_at: eb.ref('excluded.submitted_at'),
          attendance_status: eb.ref('excluded.attendance_status'),
          answers: eb.ref('excluded.answers'),
        })),
      )
      .execute();
  }
}

/**
 * The respondent ids one import has named, with where each was first named: kept in a temporary
 * table of the import's transaction rather than in memory, so that a file of millions of records
 * is checked for an id named twice in flat memory. Gone with the transaction.
 */
export async function createNamedIds(db: Kysely<Database>, engine: Engine): Promise<void> {
  const table =
    engine === 'postgres'
      ? sql`CREATE TEMPORARY TABLE import_named_ids (id text PRIMARY KEY, place text NOT NULL) ON COMMIT DROP`
      : sql`CREATE TEMPORARY TABLE import_named_ids (id TEXT PRIMARY KEY, place TEXT NOT NULL) WITHOUT ROWID`;
  await table.execute(db);
}

export async function dropNamedIds(db: Kysely<Database>, engine: Engine): Promise<void> {
  // PostgreSQL drops it at the commit (ON COMMIT DROP).
  if (engine === 'sqlite') await sql`DROP TABLE temp.import_named_ids`.execute(db);
}

/**
 * Records that `entries` name their ids; returns those named before (earlier in the batch or in an
 * earlier one), each with the place that named it first.
 */
export async function nameIds(
  db: Kysely<Database>,
  entries: ReadonlyArray<{ id: string; where: string }>,
): Promise<Array<{ id: string; where: string; firstNamedAt: string }>> {
  if (entries.length === 0) return [];
  const values = sql.join(entries.map((entry) => sql`(${entry.id}, ${entry.where})`));
  const inserted = await sql<{ id: string }>`
    INSERT INTO import_named_ids (id, place) VALUES ${values}
    ON CONFLICT (id) DO NOTHING RETURNING id`.execute(db);
  const fresh = new Set(inserted.rows.map((row) => row.id));
  const repeated = entries.filter((entry) => !fresh.delete(entry.id));
  if (repeated.length === 0) return [];
  const ids = sql.join([...new Set(repeated.map((entry) => entry.id))]);
  const first = await sql<{ id: string; place: string }>`
    SELECT id, place FROM import_named_ids WHERE id IN (${ids})`.execute(db);
  const places = new Map(first.rows.map((row) => [row.id, row.place]));
  return repeated.map((entry) => ({ ...entry, firstNamedAt: places.get(entry.id) ?? '?' }));
}

/** Where an import's respondents go: written as they come, or staged and merged at the end. */
export interface RespondentWriter {
  write(rows: NewRespondentRow[]): Promise<void>;
  /** After the last write, before the transaction's end. */
  finish(): Promise<void>;
}

/**
 * SQLite writes each batch in place: its statements are cheap and run in this process. On
 * PostgreSQL a batch's upsert costs a round trip, a conflict check per row and a run of the
 * counting triggers (which rewrite the campaign's row), so the rows are staged in a temporary
 * table of the transaction (one INSERT of the batch as one JSON parameter, no index, no trigger) and
 * merged in one set-based statement at the end: the triggers then count every row in one pass.
 * `beforeSharedWrites` is awaited before the first write to rows other writers share.
 */
export async function respondentWriter(
  db: Kysely<Database>,
  engine: Engine,
  beforeSharedWrites: () => Promise<void>,
): Promise<RespondentWriter> {
  if (engine === 'sqlite') {
    return {
      async write(rows) {
        if (rows.length === 0) return;
        await beforeSharedWrites();
        await noteRespondentsWritten(db, rows);
        await upsertRespondents(db, rows);
      },
      async finish() {},
    };
  }
  await sql`CREATE TEMPORARY TABLE ${sql.table(STAGED)} (
    id text NOT NULL, campaign_id text NOT NULL, submitted_at bigint NOT NULL,
    attendance_status text NOT NULL, answers text NOT NULL) ON COMMIT DROP`.execute(db);
  let staged = 0;
  return {
    async write(rows) {
      if (rows.length === 0) return;
      // One JSON text per batch: written natively here, parsed natively there.
      await sql`INSERT INTO ${sql.table(STAGED)}
        SELECT * FROM json_to_recordset(${JSON.stringify(rows)}::json) AS staged(id text,
          campaign_id text, submitted_at bigint, attendance_status text, answers text)`.execute(db);
      staged += rows.length;
    },
    async finish() {
      if (staged === 0) return;
      // The planner knows nothing of a fresh temporary table; the merge joins it twice, by id
      // and campaign. Only those columns are sampled: ANALYZE copies sample values into
      // pg_statistic, which would keep answers there after their rows are gone.
      await sql`ANALYZE ${sql.table(STAGED)} (id, campaign_id)`.execute(db);
      await noteStagedRespondentsWritten(db, STAGED);
      // The merge moves the campaigns' counts (their triggers): rows other writers share.
      await beforeSharedWrites();
      await sql`INSERT INTO respondents (id, campaign_id, submitted_at, attendance_status, answers)
        SELECT id, campaign_id, submitted_at, attendance_status, answers::json
        FROM ${sql.table(STAGED)}
        ON CONFLICT (id) DO UPDATE SET campaign_id = excluded.campaign_id,
          submitted_at = excluded.submitted_at, attendance_status = excluded.attendance_status,
          answers = excluded.answers`.execute(db);
    },
  };
}

/** The staging table of a PostgreSQL import's respondents (see respondentWriter). */
const STAGED = 'import_staged_respondents';
