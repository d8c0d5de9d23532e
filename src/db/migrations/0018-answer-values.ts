import { type Kysely, sql } from 'kysely';
import type { Engine } from '../store.ts';

/**
 * Each answer's values, lower-cased, by campaign and field: what the data API's filters match in
 * the store (an index read, not every row's answers parsed). A multi-select answer gives a value
 * per choice. Kept by triggers on `respondents`, so every write (imports, ingest, removals,
 * erasure, retention) keeps it exact; a respondent's values go with their row.
 *
 * The index holds a value's first characters only: PostgreSQL's B-tree entries are bounded, and
 * an equality test narrows by the prefix before it compares the whole value.
 */
export const FOLDED_PREFIX = 200;

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('answer_values')
    .addColumn('campaign_id', 'text', (c) => c.notNull())
    .addColumn('field_key', 'text', (c) => c.notNull())
    .addColumn('folded', 'text', (c) => c.notNull())
    .addColumn('respondent_id', 'text', (c) => c.notNull())
    .execute();
  // The triggers first, so that no write is missed (SQLite runs a migration outside a
  // transaction): a row written meanwhile may have its values twice, which no match minds and
  // its removal clears. Then the fill, then the indexes: one sort per index instead of an index
  // update per value (a database of a million respondents holds some ten million values).
  const statements = engine === 'postgres' ? postgresTriggers() : sqliteTriggers();
  for (const statement of statements) await sql.raw(statement).execute(db);
  if (engine === 'postgres') {
    // ANALYZE would copy sample values into pg_statistic, where they outlive their rows.
    await sql`ALTER TABLE answer_values ALTER COLUMN folded SET STATISTICS 0`.execute(db);
    await sql.raw(`INSERT INTO answer_values ${postgresValuesOf('respondents')}`).execute(db);
  } else {
    await sql
      .raw(`INSERT INTO answer_values ${sqliteValuesOf('r', 'respondents AS r')}`)
      .execute(db);
  }
  await sql`CREATE INDEX answer_values_by_value ON answer_values
    (campaign_id, field_key, substr(folded, 1, ${sql.lit(FOLDED_PREFIX)}))`.execute(db);
  await sql`CREATE INDEX answer_values_by_respondent ON answer_values (respondent_id)`.execute(db);
}

export async function down(db: Kysely<unknown>, engine: Engine): Promise<void> {
  if (engine === 'postgres') {
    for (const name of ['inserted', 'deleted', 'updated']) {
      await sql.raw(`DROP TRIGGER respondents_answer_values_${name} ON respondents`).execute(db);
      await sql.raw(`DROP FUNCTION respondents_answer_values_${name}()`).execute(db);
    }
  } else {
    for (const name of ['inserted', 'deleted', 'updated']) {
      await sql.raw(`DROP TRIGGER respondents_answer_values_${name}`).execute(db);
    }
  }
  await db.schema.dropTable('answer_values').execute();
}

/** The values of the rows `from` names (as `row`): each text answer, and each text choice. */
function sqliteValuesOf(row: string, from: string): string {
  return `(campaign_id, field_key, folded, respondent_id)
    SELECT ${row}.campaign_id, a.key, lower(a.value), ${row}.id
    FROM ${from}, json_each(${row}.answers) AS a WHERE a.type = 'text'
    UNION
    SELECT ${row}.campaign_id, a.key, lower(c.value), ${row}.id
    FROM ${from}, json_each(${row}.answers) AS a,
      json_each(CASE a.type WHEN 'array' THEN a.value ELSE '[]' END) AS c
    WHERE c.type = 'text'`;
}

function sqliteTriggers(): string[] {
  const add = `INSERT INTO answer_values ${sqliteValuesOf('NEW', '(SELECT 1)')};`;
  const remove = 'DELETE FROM answer_values WHERE respondent_id = OLD.id;';
  return [
    `CREATE TRIGGER respondents_answer_values_inserted AFTER INSERT ON respondents BEGIN ${add} END`,
    `CREATE TRIGGER respondents_answer_values_deleted AFTER DELETE ON respondents BEGIN ${remove} END`,
    `CREATE TRIGGER respondents_answer_values_updated AFTER UPDATE OF answers, campaign_id ON respondents
    WHEN OLD.answers IS NOT NEW.answers OR OLD.campaign_id IS NOT NEW.campaign_id BEGIN
      ${remove} ${add}
    END`,
  ];
}

/** The values of the rows of `rows`: a string answer's, or each string of a list. */
function postgresValuesOf(rows: string): string {
  return `(campaign_id, field_key, folded, respondent_id) ${postgresValuesSelect(rows)}`;
}

/** postgresValuesOf's query alone: campaign_id, field_key, folded, respondent_id. */
export function postgresValuesSelect(rows: string): string {
  return `SELECT DISTINCT r.campaign_id, j.key, lower(v.value), r.id
    FROM ${rows} AS r
    CROSS JOIN LATERAL json_each(r.answers) AS j
    CROSS JOIN LATERAL json_array_elements_text(CASE json_typeof(j.value)
      WHEN 'array' THEN j.value WHEN 'string' THEN json_build_array(j.value #>> '{}')
      ELSE '[]'::json END) AS v(value)`;
}

/** Statement-level, as the counting triggers are: a bulk import writes its values in one pass. */
function postgresTriggers(): string[] {
  const add = `INSERT INTO answer_values ${postgresValuesOf('new_rows')};`;
  const remove = 'DELETE FROM answer_values AS a USING old_rows AS o WHERE a.respondent_id = o.id;';
  const fn = (name: string, body: string) => `
    CREATE FUNCTION respondents_answer_values_${name}() RETURNS trigger LANGUAGE plpgsql AS $body$
    BEGIN
      ${body}
      RETURN NULL;
    END
    $body$`;
  return [
    fn('inserted', add),
    fn('deleted', remove),
    fn('updated', remove + add),
    `CREATE TRIGGER respondents_answer_values_inserted AFTER INSERT ON respondents
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
      EXECUTE FUNCTION respondents_answer_values_inserted()`,
    `CREATE TRIGGER respondents_answer_values_deleted AFTER DELETE ON respondents
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT
      EXECUTE FUNCTION respondents_answer_values_deleted()`,
    `CREATE TRIGGER respondents_answer_values_updated AFTER UPDATE ON respondents
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT
      EXECUTE FUNCTION respondents_answer_values_updated()`,
  ];
}
