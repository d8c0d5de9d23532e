import { type Kysely, sql } from 'kysely';
import type { Engine } from '../store.ts';

/** Respondent values that are never stored or served, so no allow-list may name them. */
const NEVER_SERVED = new Set(['ipAddress', 'token', 'guestToken']);

/**
 * One-time codes learn who may spend them. A sign-in code is handed with a challenge to the
 * client that proved the password (its hash is kept here); tries that come without it are
 * counted apart (`open_attempts`), so they can never use up the tries of the challenged client.
 *
 * Allow-lists that name a value Hadir never keeps (ipAddress, token, guestToken) lose it: such
 * an entry never served anything, and a holder reading it would believe it might.
 */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema.alterTable('one_time_codes').addColumn('challenge_hash', 'text').execute();
  await db.schema
    .alterTable('one_time_codes')
    .addColumn('open_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  const scopes = await sql<{ key_id: string; campaign_id: string; fields: string }>`
    SELECT key_id, campaign_id, fields FROM key_scopes`.execute(db);
  const changedKeys = new Set<string>();
  for (const scope of scopes.rows) {
    const fields = JSON.parse(scope.fields) as string[];
    const kept = fields.filter((field) => !NEVER_SERVED.has(field));
    if (kept.length === fields.length) continue;
    await sql`UPDATE key_scopes SET fields = ${JSON.stringify(kept)}
      WHERE key_id = ${scope.key_id} AND campaign_id = ${scope.campaign_id}`.execute(db);
    changedKeys.add(scope.key_id);
  }
  // Compiled projections are keyed by scope version: a changed scope gets a new one.
  for (const keyId of changedKeys) {
    await sql`UPDATE api_keys SET scope_version = scope_version + 1 WHERE id = ${keyId}`.execute(
      db,
    );
  }
}

/** The code columns go; an allow-list entry that never served anything is not put back. */
export async function down(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema.alterTable('one_time_codes').dropColumn('open_attempts').execute();
  await db.schema.alterTable('one_time_codes').dropColumn('challenge_hash').execute();
}
