import { sql } from 'kysely';
import { preparedColumnQuery } from '../../db/prepared.ts';
import type { Store } from '../../db/store.ts';
import type { Position } from './page-positions.ts';

export interface RowFilter {
  campaignId: string;
  /** Only rows modified strictly after this instant (epoch ms). */
  sinceMs?: number | undefined;
  /** Only rows strictly after this position. */
  after?: Position | null | undefined;
}

function filtered(store: Store, filter: RowFilter) {
  let query = store.db.selectFrom('respondents').where('campaign_id', '=', filter.campaignId);
  if (filter.sinceMs !== undefined) query = query.where('submitted_at', '>', filter.sinceMs);
  const after = filter.after;
  if (after) {
    query = query.where((eb) =>
      eb(eb.refTuple('submitted_at', 'id'), '>', eb.tuple(after.submittedAt, after.id)),
    );
  }
  return query;
}

export async function countRespondents(store: Store, filter: RowFilter): Promise<number> {
  const row = await filtered(store, filter)
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

/** A respondent as one line of text (see respondent-line.ts), written by the store. */
function respondentLine(store: Store) {
  return store.engine === 'postgres'
    ? sql<string>`submitted_at::text || ',' || attendance_status || ',' || to_json(id)::text || chr(31) || answers::text`
    : sql<string>`submitted_at || ',' || attendance_status || ',' || json_quote(id) || char(31) || answers`;
}

/**
 * The page's lines. SQLite hands each row's line to JavaScript cheaply (plucked); pg builds a
 * result row per row, so PostgreSQL sends the page as one text of lines joined by the record
 * separator (U+001E) instead, in the same order.
 */
function selectPage(store: Store, filter: RowFilter, limit: number) {
  const rows = filtered(store, filter)
    .select(respondentLine(store).as('value'))
    .orderBy('submitted_at')
    .orderBy('id')
    .limit(limit);
  if (store.engine === 'sqlite') return rows;
  return store.db
    .selectFrom(rows.select(['submitted_at', 'id']).as('page'))
    .select(sql<string>`string_agg(value, chr(30) ORDER BY submitted_at, id)`.as('value'));
}

// One prepared shape per combination of the optional filters.
const pageQueries = {
  first: preparedColumnQuery((store, campaignId: string, limit: number) =>
    selectPage(store, { campaignId }, limit),
  ),
  since: preparedColumnQuery((store, campaignId: string, sinceMs: number, limit: number) =>
    selectPage(store, { campaignId, sinceMs }, limit),
  ),
  after: preparedColumnQuery((store, campaignId: string, at: number, id: string, limit: number) =>
    selectPage(store, { campaignId, after: { submittedAt: at, id } }, limit),
  ),
  sinceAfter: preparedColumnQuery(
    (store, campaignId: string, sinceMs: number, at: number, id: string, limit: number) =>
      selectPage(store, { campaignId, sinceMs, after: { submittedAt: at, id } }, limit),
  ),
};

/** One page by keyset: the `limit` rows after the filter's position, in spec order, as lines. */
export async function findRespondentLines(
  store: Store,
  filter: RowFilter,
  limit: number,
): Promise<string[]> {
  const { campaignId, sinceMs, after } = filter;
  let values: Array<string | null>;
  if (sinceMs === undefined) {
    values = after
      ? await pageQueries.after(store, campaignId, after.submittedAt, after.id, limit)
      : await pageQueries.first(store, campaignId, limit);
  } else {
    values = after
      ? await pageQueries.sinceAfter(store, campaignId, sinceMs, after.submittedAt, after.id, limit)
      : await pageQueries.since(store, campaignId, sinceMs, limit);
  }
  if (store.engine === 'sqlite') return values as string[];
  const joined = values[0];
  return joined ? joined.split('\u001e') : [];
}

/**
 * Positions of every `stride`-th row after the filter's position, up to `count` of them, from
 * the covering index alone (no table rows are read): where the following pages end.
 */
export async function findEveryNthPosition(
  store: Store,
  filter: RowFilter,
  stride: number,
  count: number,
): Promise<Position[]> {
  const numbered = filtered(store, filter)
    .select([
      'submitted_at',
      'id',
      sql<number>`row_number() OVER (ORDER BY submitted_at, id)`.as('n'),
    ])
    .orderBy('submitted_at')
    .orderBy('id')
    .limit(stride * count);
  return store.db
    .selectFrom(numbered.as('numbered'))
    .select(['submitted_at as submittedAt', 'id'])
    .where(sql<boolean>`n % ${stride} = 0`)
    .orderBy('n')
    .execute();
}
