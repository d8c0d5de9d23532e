import { sql } from 'kysely';
import { preparedColumnQuery, preparedTupleQuery } from '../../db/prepared.ts';
import type { Store } from '../../db/store.ts';
import type { Position } from './respondent-line.ts';

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

function ordered(store: Store, filter: RowFilter, limit: number) {
  return filtered(store, filter).orderBy('submitted_at').orderBy('id').limit(limit);
}

/**
 * The page's rows in spec order, per engine. SQLite writes each row as its line of text (see
 * respondent-line.ts) and hands the lines over plucked, at no cost per row. PostgreSQL sends the
 * plain columns, the cheapest read it has, and the line is joined here (see lineOf): it is the
 * tier many servers share, so its work per page is kept to what a plain SELECT costs.
 */
const selectLines = (store: Store, filter: RowFilter, limit: number) =>
  ordered(store, filter, limit).select(
    sql<string>`submitted_at || ',' || attendance_status || ',' || json_quote(id) || char(31) || answers`.as(
      'value',
    ),
  );

// The answers as text whatever their column's type: a prepared statement's result type may not
// change under it (a store migrated from jsonb while a server runs would fail its pages).
const selectColumns = (store: Store, filter: RowFilter, limit: number) =>
  ordered(store, filter, limit).select([
    'submitted_at',
    'attendance_status',
    'id',
    sql<string>`answers::text`.as('answers'),
  ]);

/** A PostgreSQL row of selectColumns, as pg hands it over: the columns' values in their order. */
type PostgresRow = [submittedAt: number, attendanceStatus: string, id: string, answers: string];

/** A PostgreSQL row as its respondent line (see respondent-line.ts). */
function lineOf([submittedAt, status, id, answers]: PostgresRow): string {
  return `${submittedAt},${status},${JSON.stringify(id)}\u001f${answers}`;
}

/**
 * A page query of one combination of the optional filters, prepared per engine: each store only
 * ever runs its own kind. `filterOf` must pass its arguments on as values (see preparedQuery).
 */
function pageQuery<Args extends unknown[]>(
  filterOf: (...args: Args) => RowFilter & { limit: number },
) {
  const lines = preparedColumnQuery((store: Store, ...args: Args) => {
    const { limit, ...filter } = filterOf(...args);
    return selectLines(store, filter, limit);
  });
  const tuples = preparedTupleQuery<Args, PostgresRow>((store: Store, ...args: Args) => {
    const { limit, ...filter } = filterOf(...args);
    return selectColumns(store, filter, limit);
  });
  return async (store: Store, ...args: Args): Promise<string[]> =>
    store.engine === 'sqlite' ? lines(store, ...args) : (await tuples(store, ...args)).map(lineOf);
}

const pageQueries = {
  first: pageQuery((campaignId: string, limit: number) => ({ campaignId, limit })),
  since: pageQuery((campaignId: string, sinceMs: number, limit: number) => ({
    campaignId,
    sinceMs,
    limit,
  })),
  after: pageQuery((campaignId: string, at: number, id: string, limit: number) => ({
    campaignId,
    after: { submittedAt: at, id },
    limit,
  })),
  sinceAfter: pageQuery(
    (campaignId: string, sinceMs: number, at: number, id: string, limit: number) => ({
      campaignId,
      sinceMs,
      after: { submittedAt: at, id },
      limit,
    }),
  ),
};

/** One page by keyset: the `limit` rows after the filter's position, in spec order, as lines. */
export async function findRespondentLines(
  store: Store,
  filter: RowFilter,
  limit: number,
): Promise<string[]> {
  const { campaignId, sinceMs, after } = filter;
  if (sinceMs === undefined) {
    return after
      ? pageQueries.after(store, campaignId, after.submittedAt, after.id, limit)
      : pageQueries.first(store, campaignId, limit);
  }
  return after
    ? pageQueries.sinceAfter(store, campaignId, sinceMs, after.submittedAt, after.id, limit)
    : pageQueries.since(store, campaignId, sinceMs, limit);
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
