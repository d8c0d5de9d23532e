import { type Kysely, sql } from 'kysely';
import type { Engine } from '../store.ts';
import { postgresValuesOf } from './0018-answer-values.ts';

/**
 * The statement triggers on `respondents` (PostgreSQL), made cheap for small batches: an ingest
 * batch of 500 rows ran them at several times the cost of its own upsert.
 *
 * - Without the JIT compiler. The planner guesses a hundred rows from each json_each and
 *   json_array_elements_text, so 500 rows look like millions of values and cross the JIT
 *   thresholds: compiling then costs more of the primary's CPU than running the statements.
 * - A row's values are found by its id in the index. Joined to the transition table, the planner
 *   may instead read every value there is (a sequential scan), as its statistics lag the table.
 *
 * A later `CREATE OR REPLACE` of one of these functions drops its `SET jit`: say it again there.
 */
const COUNTING = [
  'respondents_count_inserted',
  'respondents_count_deleted',
  'respondents_count_updated',
];

function answerValuesFunctions(jit: 'off' | 'default'): string[] {
  const add = `INSERT INTO answer_values ${postgresValuesOf('new_rows')};`;
  const remove =
    jit === 'off'
      ? 'DELETE FROM answer_values WHERE respondent_id = ANY (ARRAY(SELECT id FROM old_rows));'
      : 'DELETE FROM answer_values AS a USING old_rows AS o WHERE a.respondent_id = o.id;';
  const fn = (name: string, body: string) => `
    CREATE OR REPLACE FUNCTION respondents_answer_values_${name}() RETURNS trigger
    LANGUAGE plpgsql ${jit === 'off' ? 'SET jit = off' : ''} AS $body$
    BEGIN
      ${body}
      RETURN NULL;
    END
    $body$`;
  return [fn('inserted', add), fn('deleted', remove), fn('updated', remove + add)];
}

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  if (engine !== 'postgres') return;
  for (const statement of answerValuesFunctions('off')) await sql.raw(statement).execute(db);
  for (const name of COUNTING) await sql.raw(`ALTER FUNCTION ${name}() SET jit = off`).execute(db);
}

export async function down(db: Kysely<unknown>, engine: Engine): Promise<void> {
  if (engine !== 'postgres') return;
  for (const statement of answerValuesFunctions('default')) await sql.raw(statement).execute(db);
  for (const name of COUNTING) await sql.raw(`ALTER FUNCTION ${name}() RESET jit`).execute(db);
}
