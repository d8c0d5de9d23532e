import { type Kysely, sql } from 'kysely';
import { engineOf } from '../db/engine-of.ts';
import { preparedColumnQuery, preparedQuery } from '../db/prepared-query.ts';
import type { Database } from '../db/schema.ts';

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
  (db, id: string) =>
    db.selectFrom('campaigns as c').select(campaignColumns).where('c.id', '=', id),
  { remember: 10_000 },
);

/** Read on every data request: it carries the version that response caching depends on. */
export async function findCampaign(
  db: Kysely<Database>,
  id: string,
): Promise<CampaignRecord | undefined> {
  return (await selectCampaign(db, id))[0];
}

/**
 * The live campaigns a key's scope names, in id order. Where rows are remembered (see
 * preparedQuery), an unchanged store returns the very same array.
 */
export const findCampaignsInScope: (
  db: Kysely<Database>,
  keyId: string,
) => Promise<readonly CampaignRecord[]> = preparedQuery(
  (db, keyId: string) =>
    db
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
  (db, id: string) =>
    db
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
  db: Kysely<Database>,
  id: string,
): Promise<CampaignCounts | undefined> {
  const rows = await selectCampaignWithCounts(db, id);
  const first = rows[0];
  if (!first) return undefined;
  const { fieldKey: _key, value: _value, count: _count, ...campaign } = first;
  const counts: BreakdownRow[] = [];
  for (const { fieldKey, value, count } of rows) {
    if (fieldKey !== null) counts.push({ fieldKey, value, count });
  }
  return { campaign, counts };
}

/** A place in the spec order (submittedAt, id): rows strictly after it come next. */
export interface Position {
  submittedAt: number;
  id: string;
}

export interface RowFilter {
  campaignId: string;
  /** Only rows modified strictly after this instant (epoch ms). */
  sinceMs?: number;
  /** Only rows strictly after this position. */
  after?: Position | null;
}

function filtered(db: Kysely<Database>, filter: RowFilter) {
  let query = db.selectFrom('respondents').where('campaign_id', '=', filter.campaignId);
  if (filter.sinceMs !== undefined) query = query.where('submitted_at', '>', filter.sinceMs);
  const after = filter.after;
  if (after) {
    query = query.where((eb) =>
      eb(eb.refTuple('submitted_at', 'id'), '>', eb.tuple(after.submittedAt, after.id)),
    );
  }
  return query;
}

export async function countRespondents(db: Kysely<Database>, filter: RowFilter): Promise<number> {
  const row = await filtered(db, filter)
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

/**
 * A respondent as one line of text, so a page arrives as a few strings rather than a row object
 * per respondent: `submittedAt,attendanceStatus,"id"`, a unit separator (U+001F), then the
 * answers' JSON text. The id is JSON-quoted by the store; neither a quoted string nor JSON text
 * holds a raw control character, so the separators are unambiguous (see respondent-lines.ts).
 */
function respondentLine(db: Kysely<Database>) {
  return engineOf(db) === 'postgres'
    ? sql<string>`submitted_at::text || ',' || attendance_status || ',' || to_json(id)::text || chr(31) || answers::text`
    : sql<string>`submitted_at || ',' || attendance_status || ',' || json_quote(id) || char(31) || answers`;
}

/**
 * The page's lines. SQLite hands each row's line to JavaScript cheaply (plucked); pg builds a
 * result row per row, so PostgreSQL sends the page as one text of lines joined by the record
 * separator (U+001E) instead, in the same order.
 */
function selectPage(db: Kysely<Database>, filter: RowFilter, limit: number) {
  const rows = filtered(db, filter)
    .select(respondentLine(db).as('value'))
    .orderBy('submitted_at')
    .orderBy('id')
    .limit(limit);
  if (engineOf(db) === 'sqlite') return rows;
  return db
    .selectFrom(rows.select(['submitted_at', 'id']).as('page'))
    .select(sql<string>`string_agg(value, chr(30) ORDER BY submitted_at, id)`.as('value'));
}

// One prepared shape per combination of the optional filters.
const pageQueries = {
  first: preparedColumnQuery((db, campaignId: string, limit: number) =>
    selectPage(db, { campaignId }, limit),
  ),
  since: preparedColumnQuery((db, campaignId: string, sinceMs: number, limit: number) =>
    selectPage(db, { campaignId, sinceMs }, limit),
  ),
  after: preparedColumnQuery((db, campaignId: string, at: number, id: string, limit: number) =>
    selectPage(db, { campaignId, after: { submittedAt: at, id } }, limit),
  ),
  sinceAfter: preparedColumnQuery(
    (db, campaignId: string, sinceMs: number, at: number, id: string, limit: number) =>
      selectPage(db, { campaignId, sinceMs, after: { submittedAt: at, id } }, limit),
  ),
};

/** One page by keyset: the `limit` rows after the filter's position, in spec order, as lines. */
export async function findRespondentLines(
  db: Kysely<Database>,
  filter: RowFilter,
  limit: number,
): Promise<string[]> {
  const { campaignId, sinceMs, after } = filter;
  let values: Array<string | null>;
  if (sinceMs === undefined) {
    values = after
      ? await pageQueries.after(db, campaignId, after.submittedAt, after.id, limit)
      : await pageQueries.first(db, campaignId, limit);
  } else {
    values = after
      ? await pageQueries.sinceAfter(db, campaignId, sinceMs, after.submittedAt, after.id, limit)
      : await pageQueries.since(db, campaignId, sinceMs, limit);
  }
  if (engineOf(db) === 'sqlite') return values as string[];
  const joined = values[0];
  return joined ? joined.split('\u001e') : [];
}

/**
 * Positions of every `stride`-th row after the filter's position, up to `count` of them, from
 * the covering index alone (no table rows are read): where the following pages end.
 */
export async function findEveryNthPosition(
  db: Kysely<Database>,
  filter: RowFilter,
  stride: number,
  count: number,
): Promise<Position[]> {
  const numbered = filtered(db, filter)
    .select([
      'submitted_at',
      'id',
      sql<number>`row_number() OVER (ORDER BY submitted_at, id)`.as('n'),
    ])
    .orderBy('submitted_at')
    .orderBy('id')
    .limit(stride * count);
  const rows = await db
    .selectFrom(numbered.as('numbered'))
    .select(['submitted_at as submittedAt', 'id'])
    .where(sql<boolean>`n % ${stride} = 0`)
    .orderBy('n')
    .execute();
  return rows;
}
