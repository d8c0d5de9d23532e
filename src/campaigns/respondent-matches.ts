import { type ExpressionBuilder, type SelectQueryBuilder, sql } from 'kysely';
import { FOLDED_PREFIX } from '../db/migrations/0018-answer-values.ts';
import type { Database } from '../db/schema.ts';
import type { Store } from '../db/store.ts';
import type { BreakdownRow } from './campaigns.repository.ts';
import type { AnswerTest, RespondentFilter } from './respondent-filter.ts';

/** A query of one campaign's respondents, narrowed further here. */
type RespondentsQuery<O> = SelectQueryBuilder<Database, 'respondents', O>;

/**
 * Narrows a query of `campaignId`'s respondents to those that pass `narrow`, in the store: the
 * statuses by column, each answer test by the folded values (see 0018-answer-values.ts).
 */
export function whereMatches<O>(
  store: Store,
  query: RespondentsQuery<O>,
  campaignId: string,
  narrow: RespondentFilter | undefined,
): RespondentsQuery<O> {
  let narrowed = query;
  if (narrow?.statuses) narrowed = narrowed.where('attendance_status', 'in', narrow.statuses);
  for (const test of narrow?.tests ?? []) {
    narrowed = narrowed.where('id', 'in', (eb) => answerMatches(store, eb, campaignId, test));
  }
  return narrowed;
}

/**
 * The respondents of a campaign whose answer to the test's field passes it: equal to a value (by
 * the index on the value's first characters, then the whole value), or holding the text, among
 * the field's values. Case is ignored as the store's lower() folds it.
 */
function answerMatches(
  store: Store,
  eb: ExpressionBuilder<Database, 'respondents'>,
  campaignId: string,
  test: AnswerTest,
) {
  const prefix = sql.lit(FOLDED_PREFIX);
  const passes = test.values.map((value) =>
    test.match === 'equals'
      ? sql<boolean>`(substr(folded, 1, ${prefix}) = substr(lower(${value}), 1, ${prefix}) AND folded = lower(${value}))`
      : store.engine === 'sqlite'
        ? sql<boolean>`instr(folded, lower(${value})) > 0`
        : sql<boolean>`strpos(folded, lower(${value})) > 0`,
  );
  return eb
    .selectFrom('answer_values')
    .select('respondent_id')
    .where('answer_values.campaign_id', '=', campaignId)
    .where('field_key', '=', test.fieldKey)
    .where(sql<boolean>`(${sql.join(passes, sql` OR `)})`);
}

/** The totals of a summary, of the respondents a filter matched. */
export interface MatchedTotals {
  responses: number;
  attending: number;
  notAttending: number;
  maybe: number;
}

/**
 * What a filtered summary is made of, counted in the store over the matching respondents only:
 * their totals by attendance, and for each of `choiceFields` (the single-choice questions the key
 * may read) how many gave each answer.
 */
export async function tallyMatches(
  store: Store,
  campaignId: string,
  narrow: RespondentFilter,
  choiceFields: readonly string[],
): Promise<{ totals: MatchedTotals; counts: BreakdownRow[] }> {
  const matching = () =>
    whereMatches(
      store,
      store.db.selectFrom('respondents').where('campaign_id', '=', campaignId),
      campaignId,
      narrow,
    );
  const byStatus = await matching()
    .select(['attendance_status as status', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('attendance_status')
    .execute();
  const countOf = (status: string) => Number(byStatus.find((row) => row.status === status)?.n ?? 0);
  const totals = {
    responses: byStatus.reduce((sum, row) => sum + Number(row.n), 0),
    attending: countOf('YES'),
    notAttending: countOf('NO'),
    maybe: countOf('MAYBE'),
  };
  const counts: BreakdownRow[] = choiceFields.map((fieldKey) => ({
    fieldKey,
    value: null,
    count: null,
  }));
  if (choiceFields.length === 0 || totals.responses === 0) return { totals, counts };
  const keys = sql.join(choiceFields.map((key) => sql`${key}`));
  const ids = matching().select('id');
  const answered =
    store.engine === 'sqlite'
      ? sql<BreakdownRow>`SELECT j.key AS "fieldKey", j.value AS value, count(*) AS count
          FROM respondents AS r, json_each(r.answers) AS j
          WHERE r.id IN (${ids}) AND j.key IN (${keys}) AND j.type = 'text'
          GROUP BY j.key, j.value`
      : sql<BreakdownRow>`SELECT j.key AS "fieldKey", j.value #>> '{}' AS value, count(*) AS count
          FROM respondents AS r CROSS JOIN LATERAL json_each(r.answers) AS j
          WHERE r.id IN (${ids}) AND j.key IN (${keys}) AND json_typeof(j.value) = 'string'
          GROUP BY 1, 2`;
  const rows = await answered.execute(store.db);
  return { totals, counts: [...counts, ...rows.rows] };
}
