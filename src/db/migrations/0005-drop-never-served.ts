import { type Kysely, sql } from 'kysely';
import type { Engine } from '../store.ts';

const NEVER_SERVED = ['ipAddress', 'token', 'guestToken'];

/**
 * Respondents' ipAddress, token and guestToken are never served (spec, Respondent), so they are
 * no longer kept: their columns go, and so do answers stored under those keys. On SQLite the
 * pages they leave are overwritten with zeros (secure_delete), not merely marked free. PostgreSQL
 * keeps old row versions until they are vacuumed: run VACUUM FULL respondents to erase them.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  if (engine === 'sqlite') {
    await sql`PRAGMA secure_delete = ON`.execute(db);
    const paths = NEVER_SERVED.map((key) => `$.${key}`);
    await sql`UPDATE respondents SET answers = json_remove(answers, ${sql.join(paths)})
      WHERE ${sql.join(
        paths.map((path) => sql`json_type(answers, ${path}) IS NOT NULL`),
        sql` OR `,
      )}`.execute(db);
  } else {
    await sql`UPDATE respondents SET ip_address = NULL, token = NULL, guest_token = NULL
      WHERE ip_address IS NOT NULL OR token IS NOT NULL OR guest_token IS NOT NULL`.execute(db);
    await sql`UPDATE respondents
      SET answers = (answers::jsonb - ${sql.val(NEVER_SERVED)}::text[])::json
      WHERE answers::jsonb ?| ${sql.val(NEVER_SERVED)}::text[]`.execute(db);
  }
  for (const column of ['ip_address', 'token', 'guest_token']) {
    await db.schema.alterTable('respondents').dropColumn(column).execute();
  }
}
