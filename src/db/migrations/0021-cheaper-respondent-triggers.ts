import { type Kysely, sql } from 'kysely';
import type { Engine } from '../store.ts';
import { postgresValuesSelect } from './0018-answer-values.ts';

/**
 * The statement triggers on `respondents` (PostgreSQL), made cheap for small batches: an ingest
 * batch of 500 rows ran them at several times the cost of its own upsert.
 *
 * - Without the JIT compiler. The planner guesses a hundred rows from each json_each and
 *   json_array_elements_text, so 500 rows look like millions of values and cross the JIT
 *   thresholds: compiling then costs more of the primary's CPU than running the statements.
 * - A row's values are found by its id in the index. Joined to the transition table, the planner
 *   may instead read every value there is (a sequential scan), as its statistics lag the table.
 * - An update deletes and writes only the values that changed (changedValues).
 *
 * A later `CREATE OR REPLACE` of one of these functions drops its `SET jit`: say it again there.
 */
const COUNTING = [
  'respondents_count_inserted',
  'respondents_count_deleted',
  'respondents_count_updated',
];

const COLUMNS = '(campaign_id, field_key, folded, respondent_id)';

/** The trigger functions that keep answer_values: as 0018 made them, or cheap (see above). */
function answerValuesFunctions(kind: 'cheap' | 'as-0018'): string[] {
  const cheap = kind === 'cheap';
  const add = `INSERT INTO answer_values ${COLUMNS} ${postgresValuesSelect('new_rows')};`;
  const remove = cheap
    ? 'DELETE FROM answer_values WHERE respondent_id = ANY (ARRAY(SELECT id FROM old_rows));'
    : 'DELETE FROM answer_values AS a USING old_rows AS o WHERE a.respondent_id = o.id;';
  const update = cheap ? changedValues() : remove + add;
  const fn = (name: string, body: string) => `
    CREATE OR REPLACE FUNCTION respondents_answer_values_${name}() RETURNS trigger
    LANGUAGE plpgsql ${cheap ? 'SET jit = off' : ''} AS $body$
    BEGIN
      ${body}
      RETURN NULL;
    END
    $body$`;
  return [fn('inserted', add), fn('deleted', remove), fn('updated', update)];
}

/**
 * An update moves only the values that changed: a respondent who edits one answer out of ten
 * has one value deleted and one written, not ten of each. A row moved to another campaign has
 * every value changed, its campaign being part of each.
 */
function changedValues(): string {
  const before = postgresValuesSelect('old_rows');
  const after = postgresValuesSelect('new_rows');
  return `
    DELETE FROM answer_values AS a
    USING (${before} EXCEPT ${after}) AS gone (campaign_id, field_key, folded, respondent_id)
    WHERE a.respondent_id = ANY (ARRAY(SELECT id FROM old_rows))
      AND a.respondent_id = gone.respondent_id AND a.campaign_id = gone.campaign_id
      AND a.field_key = gone.field_key AND a.folded = gone.folded;
    INSERT INTO answer_values ${COLUMNS} ${after} EXCEPT ${before};`;
}

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  if (engine !== 'postgres') return;
  for (const statement of answerValuesFunctions('cheap')) await sql.raw(statement).execute(db);
  for (const name of COUNTING) await sql.raw(`ALTER FUNCTION ${name}() SET jit = off`).execute(db);
}

export async function down(db: Kysely<unknown>, engine: Engine): Promise<void> {
  if (engine !== 'postgres') return;
  for (const statement of answerValuesFunctions('as-0018')) await sql.raw(statement).execute(db);
  for (const name of COUNTING) await sql.raw(`ALTER FUNCTION ${name}() RESET jit`).execute(db);
}
