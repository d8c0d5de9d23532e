import { type Kysely, sql } from 'kysely';
import type { Engine } from '../db/connect.ts';
import type { Database, NewRespondentRow } from '../db/schema.ts';
import type { CampaignField } from './import-records.ts';

/** Rows per multi-row statement: well under SQLite's bound-parameter limit for 8 columns. */
export const BATCH_ROWS = 500;

function batches<T>(items: T[]): T[][] {
  const result: T[][] = [];
  for (let i = 0; i < items.length; i += BATCH_ROWS) result.push(items.slice(i, i + BATCH_ROWS));
  return result;
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
): Promise<void> {
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
}

/** Makes the campaign's field list exactly `fields`; unchanged fields are not rewritten. */
export async function replaceCampaignFields(
  db: Kysely<Database>,
  campaignId: string,
  fields: CampaignField[],
): Promise<void> {
  let removal = db.deleteFrom('campaign_fields').where('campaign_id', '=', campaignId);
  if (fields.length > 0)
    removal = removal.where(
      'key',
      'not in',
      fields.map((field) => field.key),
    );
  await removal.execute();
  for (const [position, field] of fields.entries()) {
    await db
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
      .execute();
  }
}

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
