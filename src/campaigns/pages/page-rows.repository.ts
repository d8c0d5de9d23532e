import { sql } from 'kysely';
import { preparedHandOffQuery } from '../../db/prepared.ts';
import { HandOff } from '../../db/prepared-statements.ts';
import type { Store } from '../../db/store.ts';
import type { RespondentFilter } from '../respondent-filter.ts';
import { whereMatches } from '../respondent-matches.ts';
import { type Position, splitLines } from './respondent-line.ts';

export interface RowFilter {
  campaignId: string;
  /** Only rows modified strictly after this instant (epoch ms). */
  sinceMs?: number | undefined;
  /** Only rows strictly after this position. */
  after?: Position | null | undefined;
  /** Only rows that pass the request's filter (matched in the store, see answerMatches). */
  narrow?: RespondentFilter | undefined;
}

function filtered(store: Store, filter: RowFilter) {
  let query = store.db.selectFrom('respondents').where('campaign_id', '=', filter.campaignId);
  if (filter.sinceMs !== undefined) query = query.where('submitted_at', '>', filter.sinceMs);
  query = whereMatches(store, query, filter.campaignId, filter.narrow);
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
 * A page's rows in spec order as one text: each row as its line (see respondent-line.ts), the
 * lines joined by record separators, so the driver hands over one string for the page instead of
 * a row object and its values per respondent. Each engine joins them as it reads them.
 */
function selectPageText(store: Store, filter: RowFilter, limit: number) {
  const line =
    store.engine === 'sqlite'
      ? sql<string>`submitted_at || ',' || attendance_status || ',' || json_quote(id) || char(31) || answers`
      : // The answers as text whatever their column's type: a prepared statement's result type
        // may not change under it (a store migrated from jsonb while a server runs).
        sql<string>`submitted_at || ',' || attendance_status || ',' || to_json(id)::text || chr(31) || answers::text`;
  // PostgreSQL aggregates the rows in the order the sorted subquery hands them over, with nothing
  // between the two that could reorder them ("Aggregate Expressions" in its manual); asked to
  // order them again, it would sort the page a second time. SQLite promises no order for
  // group_concat without one, and its sort is cheap.
  const joined =
    store.engine === 'sqlite'
      ? sql<string | null>`group_concat(line, char(30) ORDER BY submitted_at, id)`
      : sql<string | null>`string_agg(line, chr(30))`;
  const rows = ordered(store, filter, limit).select(['submitted_at', 'id', line.as('line')]);
  return store.db.selectFrom(rows.as('page')).select(joined.as('value'));
}

/**
 * A page query of one combination of the optional filters, prepared per engine.
 * `filterOf` must pass its arguments on as values (see preparedQuery).
 */
function pageQuery<Args extends unknown[]>(
  filterOf: (...args: Args) => RowFilter & { limit: number },
) {
  return preparedHandOffQuery((store: Store, ...args: Args) => {
    const { limit, ...filter } = filterOf(...args);
    return selectPageText(store, filter, limit);
  });
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

/**
 * One page by keyset: the `limit` rows after the filter's position, in spec order, as text,
 * handed over for its one reader to take (null: no rows). A page's text is large and read often:
 * see HandOff in prepared-statements.ts for why it is not passed by value.
 */
export async function readPageText(
  store: Store,
  filter: RowFilter,
  limit: number,
): Promise<HandOff<string | null>> {
  const { campaignId, sinceMs, after } = filter;
  if (filter.narrow) {
    // Filters come in too many combinations to prepare each.
    const row = await selectPageText(store, filter, limit).executeTakeFirst();
    return new HandOff(row?.value ?? null);
  }
  if (sinceMs === undefined) {
    return after
      ? pageQueries.after(store, campaignId, after.submittedAt, after.id, limit)
      : pageQueries.first(store, campaignId, limit);
  }
  return after
    ? pageQueries.sinceAfter(store, campaignId, sinceMs, after.submittedAt, after.id, limit)
    : pageQueries.since(store, campaignId, sinceMs, limit);
}

/** The same page's rows as lines, one string each. */
export async function findRespondentLines(
  store: Store,
  filter: RowFilter,
  limit: number,
): Promise<string[]> {
  return splitLines((await readPageText(store, filter, limit)).take() ?? '');
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
