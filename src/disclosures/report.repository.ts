import type { Kysely } from 'kysely';
import { inList, listParameter } from '../db/list-parameter.ts';
import type { Database } from '../db/schema.ts';
import type { Store } from '../db/store.ts';

/** A respondent as Hadir holds them now: every answer, whatever any key may read. */
export interface HeldRespondent {
  id: string;
  campaignId: string;
  submittedAt: number;
  attendanceStatus: string;
  answers: Record<string, string | string[]>;
}

export async function findHeldRespondent(
  db: Kysely<Database>,
  id: string,
): Promise<HeldRespondent | undefined> {
  const row = await db
    .selectFrom('respondents')
    .select(['id', 'campaign_id', 'submitted_at', 'attendance_status', 'answers'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    id: row.id,
    campaignId: row.campaign_id,
    submittedAt: Number(row.submitted_at),
    attendanceStatus: row.attendance_status,
    answers: JSON.parse(row.answers) as HeldRespondent['answers'],
  };
}

/** How a respondent left, when Hadir still knows: erased by an operator, or removed. */
export interface Departure {
  campaignId: string;
  kind: 'erased' | 'removed';
  at: number;
}

/**
 * The erasure hold of `id`, else its tombstone (kept REMOVALS_RETENTION_DAYS); undefined when
 * Hadir no longer knows of either.
 */
export async function findDeparture(
  db: Kysely<Database>,
  id: string,
): Promise<Departure | undefined> {
  const hold = await db
    .selectFrom('erasure_holds')
    .select(['campaign_id', 'erased_at'])
    .where('respondent_id', '=', id)
    .executeTakeFirst();
  if (hold) return { campaignId: hold.campaign_id, kind: 'erased', at: Number(hold.erased_at) };
  const tombstone = await db
    .selectFrom('removals')
    .select(['campaign_id', 'removed_at'])
    .where('respondent_id', '=', id)
    .orderBy('removed_at', 'desc')
    .executeTakeFirst();
  return tombstone
    ? { campaignId: tombstone.campaign_id, kind: 'removed', at: Number(tombstone.removed_at) }
    : undefined;
}

/** A campaign as a report names it: its title, and its questions' labels and types by key. */
export interface NamedCampaign {
  id: string;
  title: string;
  questions: Map<string, { label: string; type: string }>;
}

export async function findNamedCampaigns(
  store: Store,
  ids: readonly string[],
): Promise<Map<string, NamedCampaign>> {
  const named = new Map<string, NamedCampaign>();
  if (ids.length === 0) return named;
  const campaigns = await store.db
    .selectFrom('campaigns')
    .select(['id', 'title'])
    .where('id', 'in', [...ids])
    .execute();
  for (const campaign of campaigns) {
    named.set(campaign.id, { id: campaign.id, title: campaign.title, questions: new Map() });
  }
  const fields = await store.db
    .selectFrom('campaign_fields')
    .select(['campaign_id', 'key', 'label', 'type'])
    .where('campaign_id', 'in', [...ids])
    .orderBy('position')
    .execute();
  for (const field of fields) {
    named
      .get(field.campaign_id)
      ?.questions.set(field.key, { label: field.label, type: field.type });
  }
  return named;
}

/** A key as a report names its recipient: its label, chain, holder, and when it was revoked. */
export interface NamedKey {
  id: string;
  label: string;
  lineageId: string;
  createdAt: number;
  revokedAt: number | null;
  accountId: string;
  accountEmail: string;
  organisation: string | null;
}

const NAMED_KEY_COLUMNS = [
  'k.id',
  'k.name',
  'k.lineage_id',
  'k.created_at',
  'k.revoked_at',
  'k.account_id',
  'a.email',
  'a.organisation',
] as const;

function namedKeyOf(row: {
  id: string;
  name: string;
  lineage_id: string;
  created_at: number | string;
  revoked_at: number | string | null;
  account_id: string;
  email: string;
  organisation: string | null;
}): NamedKey {
  return {
    id: row.id,
    label: row.name,
    lineageId: row.lineage_id,
    createdAt: Number(row.created_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
    accountId: row.account_id,
    accountEmail: row.email,
    organisation: row.organisation,
  };
}

/** The keys with these ids, with their holders. */
export async function findNamedKeys(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<Map<string, NamedKey>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('api_keys as k')
    .innerJoin('accounts as a', 'a.id', 'k.account_id')
    .select(NAMED_KEY_COLUMNS)
    .where('k.id', 'in', [...ids])
    .execute();
  return new Map(rows.map((row) => [row.id, namedKeyOf(row)]));
}

/** Every key of the chain `keyId` belongs to, oldest first; empty for no such key. */
export async function findChainOfKey(db: Kysely<Database>, keyId: string): Promise<NamedKey[]> {
  const key = await db
    .selectFrom('api_keys')
    .select('lineage_id')
    .where('id', '=', keyId)
    .executeTakeFirst();
  if (!key) return [];
  const rows = await db
    .selectFrom('api_keys as k')
    .innerJoin('accounts as a', 'a.id', 'k.account_id')
    .select(NAMED_KEY_COLUMNS)
    .where('k.lineage_id', '=', key.lineage_id)
    .orderBy('k.created_at')
    .orderBy('k.id')
    .execute();
  return rows.map(namedKeyOf);
}

/**
 * The first run of a chain's deliveries to a bucket that finished after `after`: its files were
 * written from the rows as they stood then.
 */
export async function findFirstDeliveryAfter(
  db: Kysely<Database>,
  lineageId: string,
  after: number,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('export_runs as r')
    .innerJoin('exports as e', 'e.id', 'r.export_id')
    .select((eb) => eb.fn.min('r.finished_at').as('at'))
    .where('e.lineage_id', '=', lineageId)
    .where('r.state', '=', 'done')
    .where('r.started_at', '>=', after)
    .executeTakeFirst();
  return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
}

/** The answers Hadir holds now of these respondents, by id (those still held). */
export async function findAnswersOf(
  store: Store,
  respondentIds: readonly string[],
): Promise<Map<string, Record<string, unknown>>> {
  const found = new Map<string, Record<string, unknown>>();
  for (let at = 0; at < respondentIds.length; at += 1_000) {
    const list = listParameter(store, respondentIds.slice(at, at + 1_000));
    const rows = await store.db
      .selectFrom('respondents')
      .select(['id', 'answers'])
      .where(inList(store, 'id', list))
      .execute();
    for (const row of rows) found.set(row.id, JSON.parse(row.answers) as Record<string, unknown>);
  }
  return found;
}
