import { type Kysely, sql } from 'kysely';
import type { Engine } from '../store.ts';
import { postgresTriggerFunctions } from './0001-core.ts';

/**
 * PostgreSQL keeps answers as `json` instead of `jsonb`: json holds the text as the import wrote
 * it, so a page reads it out as is, where jsonb is printed afresh on every read (most of the
 * store's work for a page of respondents). Nothing queries inside answers except the counting
 * triggers, which move to the json functions. SQLite already stores the text.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  if (engine !== 'postgres') return;
  await sql`ALTER TABLE respondents ALTER COLUMN answers TYPE json USING answers::json`.execute(db);
  for (const statement of postgresTriggerFunctions('json')) await sql.raw(statement).execute(db);
}
