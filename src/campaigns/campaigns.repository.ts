import { inList, listParameter } from '../db/list-parameter.ts';
import { preparedQuery } from '../db/prepared.ts';
import type { Store } from '../db/store.ts';

export interface CampaignRecord {
  id: string;
  slug: string;
  title: string;
  eventDate: number | null;
  location: string | null;
  deletedAt: number | null;
  responses: number;
  attending: number;
  notAttending: number;
  maybe: number;
  version: number;
}

const campaignColumns = [
  'c.id as id',
  'c.slug as slug',
  'c.title as title',
  'c.event_date as eventDate',
  'c.location as location',
  'c.deleted_at as deletedAt',
  'c.response_count as responses',
  'c.attending_count as attending',
  'c.not_attending_count as notAttending',
  'c.maybe_count as maybe',
  'c.version as version',
] as const;

const selectCampaign = preparedQuery(
  (store, id: string) =>
    store.db.selectFrom('campaigns as c').select(campaignColumns).where('c.id', '=', id),
  { remember: 10_000 },
);

const selectCampaigns = preparedQuery((store, ids: unknown) =>
  store.db
    .selectFrom('campaigns as c')
    .select(campaignColumns)
    .where(inList(store, 'c.id', ids)),
);

/** The campaigns of `ids` that exist, deleted ones included, in one read; in no order. */
export async function findCampaigns(
  store: Store,
  ids: readonly string[],
): Promise<CampaignRecord[]> {
  return ids.length === 0 ? [] : selectCampaigns(store, listParameter(store, ids));
}

/** Read on every data request: it carries the version that response caching depends on. */
export async function findCampaign(store: Store, id: string): Promise<CampaignRecord | undefined> {
  return (await selectCampaign(store, id))[0];
}

/**
 * The live campaigns a key's scope names, in id order. Where rows are remembered (see
 * preparedQuery), an unchanged store returns the very same array.
 */
export const findCampaignsInScope: (
  store: Store,
  keyId: string,
) => Promise<readonly CampaignRecord[]> = preparedQuery(
  (store, keyId: string) =>
    store.db
      .selectFrom('campaigns as c')
      .innerJoin('key_scopes as s', 's.campaign_id', 'c.id')
      .select(campaignColumns)
      .where('s.key_id', '=', keyId)
      .where('c.deleted_at', 'is', null)
      .orderBy('c.id'),
  { remember: 1_000 },
);

/** One single-choice field's answer count; `value` and `count` are null for a field no one answered. */
export interface BreakdownRow {
  fieldKey: string;
  value: string | null;
  count: number | null;
}

/** What a summary is made of: the campaign's counters and its single-choice answer counts. */
export interface CampaignCounts {
  campaign: CampaignRecord;
  /** Every single-choice (RADIO or SELECT) field's counts, by field key, then value. */
  counts: BreakdownRow[];
}

const selectCampaignWithCounts = preparedQuery(
  (store, id: string) =>
    store.db
      .selectFrom('campaigns as c')
      .leftJoin('campaign_fields as f', (join) =>
        join.onRef('f.campaign_id', '=', 'c.id').on('f.type', 'in', ['RADIO', 'SELECT']),
      )
      .leftJoin('answer_counts as a', (join) =>
        join
          .onRef('a.campaign_id', '=', 'f.campaign_id')
          .onRef('a.field_key', '=', 'f.key')
          .on('a.count', '>', 0),
      )
      .select([...campaignColumns, 'f.key as fieldKey', 'a.value as value', 'a.count as count'])
      .where('c.id', '=', id)
      .orderBy('f.key')
      .orderBy('a.value'),
  { remember: 10_000 },
);

/**
 * The campaign with its trigger-maintained answer counts (no scan of respondents), in one
 * statement: the totals, the counts and the version a summary is cached under always agree, and
 * PostgreSQL answers in one round trip. A single-choice field without answers comes back once,
 * so its breakdown can be shown empty.
 */
export async function findCampaignWithCounts(
  store: Store,
  id: string,
): Promise<CampaignCounts | undefined> {
  const rows = await selectCampaignWithCounts(store, id);
  const first = rows[0];
  if (!first) return undefined;
  const { fieldKey: _key, value: _value, count: _count, ...campaign } = first;
  const counts: BreakdownRow[] = [];
  for (const { fieldKey, value, count } of rows) {
    if (fieldKey !== null) counts.push({ fieldKey, value, count });
  }
  return { campaign, counts };
}

/** A campaign's question, as the field definitions endpoint serves it. */
export interface FieldDefinition {
  key: string;
  label: string;
  type: string;
  position: number;
}

/** The campaign's fields among `keys`, in form order; none when `keys` is empty. */
export async function findFieldDefinitions(
  store: Store,
  campaignId: string,
  keys: readonly string[],
): Promise<FieldDefinition[]> {
  if (keys.length === 0) return [];
  const rows = await store.db
    .selectFrom('campaign_fields')
    .select(['key', 'label', 'type', 'position'])
    .where('campaign_id', '=', campaignId)
    .where('key', 'in', keys)
    .orderBy('position')
    .orderBy('key')
    .execute();
  return rows.map((row) => ({ ...row, position: Number(row.position) }));
}

/** The questions of each of `campaignIds`, by key and label, in form order. */
export async function findQuestionsOfCampaigns(
  db: Store['db'],
  campaignIds: readonly string[],
): Promise<Map<string, Array<{ key: string; label: string }>>> {
  const questions = new Map<string, Array<{ key: string; label: string }>>(
    campaignIds.map((id) => [id, []]),
  );
  if (campaignIds.length === 0) return questions;
  const rows = await db
    .selectFrom('campaign_fields')
    .select(['campaign_id', 'key', 'label'])
    .where('campaign_id', 'in', campaignIds)
    .orderBy('campaign_id')
    .orderBy('position')
    .orderBy('key')
    .execute();
  for (const row of rows) questions.get(row.campaign_id)?.push({ key: row.key, label: row.label });
  return questions;
}

/** Whether the store holds a live campaign at all (a new database holds none). */
export async function holdsAnyCampaign(store: Store): Promise<boolean> {
  const row = await store.db
    .selectFrom('campaigns')
    .select('id')
    .where('deleted_at', 'is', null)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
