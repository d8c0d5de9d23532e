import { type Kysely, sql } from 'kysely';
import type { Engine } from '../store.ts';

/**
 * The core schema: campaigns and their fields, respondents, accounts, API keys with scopes, and the
 * audit log. Counters (responses, attendance, single-choice answer counts) and each campaign's
 * version are maintained by triggers, so they stay right whoever writes the tables.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const bigint = 'bigint';
  const json = engine === 'postgres' ? 'jsonb' : 'text';

  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text')
    .addColumn('must_change_password', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('deactivated_at', bigint)
    .addColumn('created_at', bigint, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('campaigns')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('event_date', bigint)
    .addColumn('location', 'text')
    .addColumn('deleted_at', bigint)
    .addColumn('response_count', bigint, (c) => c.notNull().defaultTo(0))
    .addColumn('attending_count', bigint, (c) => c.notNull().defaultTo(0))
    .addColumn('not_attending_count', bigint, (c) => c.notNull().defaultTo(0))
    .addColumn('maybe_count', bigint, (c) => c.notNull().defaultTo(0))
    .addColumn('version', bigint, (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', bigint, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('campaign_fields')
    .addColumn('campaign_id', 'text', (c) =>
      c.notNull().references('campaigns.id').onDelete('cascade'),
    )
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) =>
      c
        .notNull()
        .check(
          sql`type IN ('TEXT', 'TEXTAREA', 'EMAIL', 'PHONE', 'NUMBER', 'DATE', 'RADIO', 'SELECT', 'CHECKBOX')`,
        ),
    )
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('campaign_fields_pk', ['campaign_id', 'key'])
    .execute();

  await db.schema
    .createTable('respondents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('campaign_id', 'text', (c) =>
      c.notNull().references('campaigns.id').onDelete('cascade'),
    )
    .addColumn('submitted_at', bigint, (c) => c.notNull())
    .addColumn('attendance_status', 'text', (c) =>
      c.notNull().check(sql`attendance_status IN ('YES', 'NO', 'MAYBE')`),
    )
    .addColumn('answers', json, (c) => c.notNull())
    .addColumn('ip_address', 'text')
    .addColumn('token', 'text')
    .addColumn('guest_token', 'text')
    .execute();
  // The one index every page is read through: spec order (submittedAt, id), and it covers the
  // keyset positions, so locating a deep page never touches table rows.
  await db.schema
    .createIndex('respondents_campaign_order')
    .on('respondents')
    .columns(['campaign_id', 'submitted_at', 'id'])
    .unique()
    .execute();

  await db.schema
    .createTable('answer_counts')
    .addColumn('campaign_id', 'text', (c) =>
      c.notNull().references('campaigns.id').onDelete('cascade'),
    )
    .addColumn('field_key', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('count', bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint('answer_counts_pk', ['campaign_id', 'field_key', 'value'])
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('hint', 'text', (c) => c.notNull())
    .addColumn('lineage_id', 'text', (c) => c.notNull())
    .addColumn('rotated_from_id', 'text', (c) => c.references('api_keys.id'))
    .addColumn('replaced_by_id', 'text', (c) => c.references('api_keys.id'))
    .addColumn('created_at', bigint, (c) => c.notNull())
    .addColumn('expires_at', bigint, (c) => c.notNull())
    .addColumn('revoked_at', bigint)
    .addColumn('last_used_at', bigint)
    .addColumn('scope_version', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.createIndex('api_keys_account').on('api_keys').column('account_id').execute();

  await db.schema
    .createTable('key_scopes')
    .addColumn('key_id', 'text', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
    .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id'))
    .addColumn('fields', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('key_scopes_pk', ['key_id', 'campaign_id'])
    .execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', engine === 'postgres' ? 'bigserial' : 'integer', (c) =>
      engine === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('at', bigint, (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target', 'text')
    .addColumn('details', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_at').on('audit_log').column('at').execute();

  const statements = engine === 'postgres' ? postgresTriggers() : sqliteTriggers();
  for (const statement of statements) await sql.raw(statement).execute(db);
}

const SINGLE_CHOICE = `('RADIO', 'SELECT')`;

/** SQLite has row-level triggers only: each respondent write adjusts its campaign's counters. */
function sqliteTriggers(): string[] {
  const counters = (row: 'NEW' | 'OLD', sign: '+' | '-') => `
    UPDATE campaigns SET
      response_count = response_count ${sign} 1,
      attending_count = attending_count ${sign} (${row}.attendance_status = 'YES'),
      not_attending_count = not_attending_count ${sign} (${row}.attendance_status = 'NO'),
      maybe_count = maybe_count ${sign} (${row}.attendance_status = 'MAYBE'),
      version = version + 1
    WHERE id = ${row}.campaign_id;`;
  const addAnswers = `
    INSERT INTO answer_counts (campaign_id, field_key, value, count)
    SELECT NEW.campaign_id, f.key, j.value, 1
    FROM campaign_fields AS f JOIN json_each(NEW.answers) AS j ON j.key = f.key
    WHERE f.campaign_id = NEW.campaign_id AND f.type IN ${SINGLE_CHOICE} AND j.type = 'text'
    ON CONFLICT (campaign_id, field_key, value) DO UPDATE SET count = count + 1;`;
  const removeAnswers = `
    UPDATE answer_counts SET count = count - 1
    WHERE campaign_id = OLD.campaign_id AND (field_key, value) IN (
      SELECT f.key, j.value
      FROM campaign_fields AS f JOIN json_each(OLD.answers) AS j ON j.key = f.key
      WHERE f.campaign_id = OLD.campaign_id AND f.type IN ${SINGLE_CHOICE} AND j.type = 'text');`;
  const recountField = `
    DELETE FROM answer_counts WHERE campaign_id = OLD.campaign_id AND field_key = OLD.key;
    INSERT INTO answer_counts (campaign_id, field_key, value, count)
    SELECT r.campaign_id, j.key, j.value, count(*)
    FROM respondents AS r JOIN json_each(r.answers) AS j ON j.key = NEW.key
    WHERE r.campaign_id = NEW.campaign_id AND j.type = 'text' AND NEW.type IN ${SINGLE_CHOICE}
    GROUP BY r.campaign_id, j.key, j.value;`;
  return [
    `CREATE TRIGGER respondents_after_insert AFTER INSERT ON respondents BEGIN
      ${counters('NEW', '+')} ${addAnswers}
    END`,
    `CREATE TRIGGER respondents_after_delete AFTER DELETE ON respondents BEGIN
      ${counters('OLD', '-')} ${removeAnswers}
    END`,
    `CREATE TRIGGER respondents_after_update AFTER UPDATE ON respondents BEGIN
      ${counters('OLD', '-')} ${removeAnswers} ${counters('NEW', '+')} ${addAnswers}
    END`,
    `CREATE TRIGGER campaign_fields_after_insert AFTER INSERT ON campaign_fields
    WHEN NEW.type IN ${SINGLE_CHOICE} BEGIN
      INSERT INTO answer_counts (campaign_id, field_key, value, count)
      SELECT r.campaign_id, j.key, j.value, count(*)
      FROM respondents AS r JOIN json_each(r.answers) AS j ON j.key = NEW.key
      WHERE r.campaign_id = NEW.campaign_id AND j.type = 'text'
      GROUP BY r.campaign_id, j.key, j.value;
      UPDATE campaigns SET version = version + 1 WHERE id = NEW.campaign_id;
    END`,
    `CREATE TRIGGER campaign_fields_after_update AFTER UPDATE OF key, type ON campaign_fields
    WHEN OLD.key <> NEW.key OR OLD.type <> NEW.type BEGIN
      ${recountField}
      UPDATE campaigns SET version = version + 1 WHERE id = NEW.campaign_id;
    END`,
    `CREATE TRIGGER campaign_fields_after_delete AFTER DELETE ON campaign_fields BEGIN
      DELETE FROM answer_counts WHERE campaign_id = OLD.campaign_id AND field_key = OLD.key;
      UPDATE campaigns SET version = version + 1 WHERE id = OLD.campaign_id;
    END`,
    `CREATE TRIGGER campaigns_after_update AFTER UPDATE OF slug, title, event_date, location, deleted_at
    ON campaigns
    WHEN OLD.slug IS NOT NEW.slug OR OLD.title IS NOT NEW.title OR OLD.event_date IS NOT NEW.event_date
      OR OLD.location IS NOT NEW.location OR OLD.deleted_at IS NOT NEW.deleted_at BEGIN
      UPDATE campaigns SET version = version + 1 WHERE id = NEW.id;
    END`,
  ];
}

/**
 * PostgreSQL uses statement-level triggers with transition tables: a bulk import adjusts each
 * campaign's counters once per statement instead of once per row.
 */
function postgresTriggers(): string[] {
  return [
    ...postgresTriggerFunctions('jsonb'),
    `CREATE TRIGGER respondents_after_insert AFTER INSERT ON respondents
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION respondents_count_inserted()`,
    `CREATE TRIGGER respondents_after_delete AFTER DELETE ON respondents
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION respondents_count_deleted()`,
    `CREATE TRIGGER respondents_after_update AFTER UPDATE ON respondents
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION respondents_count_updated()`,
    `CREATE TRIGGER campaign_fields_after_insert AFTER INSERT ON campaign_fields
      FOR EACH ROW EXECUTE FUNCTION campaign_fields_recount()`,
    `CREATE TRIGGER campaign_fields_after_update AFTER UPDATE OF key, type ON campaign_fields
      FOR EACH ROW WHEN (OLD.key IS DISTINCT FROM NEW.key OR OLD.type IS DISTINCT FROM NEW.type)
      EXECUTE FUNCTION campaign_fields_recount()`,
    `CREATE TRIGGER campaign_fields_after_delete AFTER DELETE ON campaign_fields
      FOR EACH ROW EXECUTE FUNCTION campaign_fields_recount()`,
    `CREATE FUNCTION campaigns_bump_version() RETURNS trigger LANGUAGE plpgsql AS $body$
    BEGIN
      IF (OLD.slug, OLD.title, OLD.event_date, OLD.location, OLD.deleted_at)
        IS DISTINCT FROM (NEW.slug, NEW.title, NEW.event_date, NEW.location, NEW.deleted_at) THEN
        NEW.version := OLD.version + 1;
      END IF;
      RETURN NEW;
    END
    $body$`,
    `CREATE TRIGGER campaigns_before_update BEFORE UPDATE ON campaigns
      FOR EACH ROW EXECUTE FUNCTION campaigns_bump_version()`,
  ];
}

/**
 * The trigger functions behind postgresTriggers that read answers, for answers stored as
 * `answersType` (jsonb when the schema was first made, json since 0003): created or replaced, so
 * a later migration can move them to another type without touching the triggers.
 */
export function postgresTriggerFunctions(answersType: 'json' | 'jsonb'): string[] {
  const applyRows = (rows: string, sign: '+' | '-') => `
    UPDATE campaigns AS c SET
      response_count = c.response_count ${sign} d.responses,
      attending_count = c.attending_count ${sign} d.attending,
      not_attending_count = c.not_attending_count ${sign} d.not_attending,
      maybe_count = c.maybe_count ${sign} d.maybe,
      version = c.version + 1
    FROM (
      SELECT campaign_id, count(*) AS responses,
        count(*) FILTER (WHERE attendance_status = 'YES') AS attending,
        count(*) FILTER (WHERE attendance_status = 'NO') AS not_attending,
        count(*) FILTER (WHERE attendance_status = 'MAYBE') AS maybe
      FROM ${rows} GROUP BY campaign_id
    ) AS d
    WHERE c.id = d.campaign_id;
    ${sign === '+' ? 'INSERT INTO answer_counts (campaign_id, field_key, value, count)' : 'UPDATE answer_counts AS a SET count = a.count - d.n FROM ('}
      SELECT r.campaign_id, f.key, j.value #>> '{}' AS value, count(*) AS n
      FROM ${rows} AS r
      CROSS JOIN LATERAL ${answersType}_each(r.answers) AS j
      JOIN campaign_fields AS f ON f.campaign_id = r.campaign_id AND f.key = j.key
      WHERE f.type IN ${SINGLE_CHOICE} AND ${answersType}_typeof(j.value) = 'string'
      GROUP BY 1, 2, 3
    ${
      sign === '+'
        ? 'ON CONFLICT (campaign_id, field_key, value) DO UPDATE SET count = answer_counts.count + EXCLUDED.count;'
        : ') AS d WHERE a.campaign_id = d.campaign_id AND a.field_key = d.key AND a.value = d.value;'
    }`;
  const fn = (name: string, body: string) => `
    CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $body$
    BEGIN
      ${body}
      RETURN NULL;
    END
    $body$`;
  const recountField = `
    INSERT INTO answer_counts (campaign_id, field_key, value, count)
    SELECT r.campaign_id, NEW.key, r.answers ->> NEW.key, count(*)
    FROM respondents AS r
    WHERE r.campaign_id = NEW.campaign_id AND ${answersType}_typeof(r.answers -> NEW.key) = 'string'
    GROUP BY r.campaign_id, r.answers ->> NEW.key;`;
  return [
    fn('respondents_count_inserted', applyRows('new_rows', '+')),
    fn('respondents_count_deleted', applyRows('old_rows', '-')),
    fn('respondents_count_updated', applyRows('old_rows', '-') + applyRows('new_rows', '+')),
    fn(
      'campaign_fields_recount',
      `
      IF TG_OP IN ('UPDATE', 'DELETE') THEN
        DELETE FROM answer_counts WHERE campaign_id = OLD.campaign_id AND field_key = OLD.key;
        UPDATE campaigns SET version = version + 1 WHERE id = OLD.campaign_id;
      END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.type IN ${SINGLE_CHOICE} THEN
        ${recountField}
        UPDATE campaigns SET version = version + 1 WHERE id = NEW.campaign_id;
      END IF;`,
    ),
  ];
}
