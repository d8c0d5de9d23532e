import type { Kysely } from 'kysely';
import type { Database, NewRespondentRow } from '../db/schema.ts';
import type { CampaignField } from './import-document.ts';

/** Rows per multi-row statement: well under SQLite's bound-parameter limit for 8 columns. */
const BATCH_ROWS = 500;

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

export async function markCampaignDeleted(
  db: Kysely<Database>,
  id: string,
  now: number,
): Promise<number> {
  const result = await db
    .updateTable('campaigns')
    .set({ deleted_at: now, updated_at: now })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
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

export async function deleteRespondents(db: Kysely<Database>, ids: string[]): Promise<number> {
  let deleted = 0;
  for (const batch of batches(ids)) {
    const result = await db.deleteFrom('respondents').where('id', 'in', batch).executeTakeFirst();
    deleted += Number(result.numDeletedRows);
  }
  return deleted;
}
