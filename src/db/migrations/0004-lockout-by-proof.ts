import { type Kysely, sql } from 'kysely';
import type { Engine } from '../store.ts';

/**
 * Sign-in throttles move off the account row: failed passwords are counted per e-mail address
 * string in client_throttles (so an unknown address answers like a real one), and wrong codes
 * count only against the code they were tried on. What remains on the account is its lock and
 * the count it is decided by: sign-in codes sent in a row without one redeemed (see lockout.ts).
 * An account locked before keeps its lock.
 */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  for (const column of [
    'failed_password_count',
    'failed_password_window_start',
    'consecutive_code_failures',
    'code_locked_until',
  ]) {
    await db.schema.alterTable('accounts').dropColumn(column).execute();
  }
  await db.schema
    .alterTable('accounts')
    .renameColumn('consecutive_failures', 'unredeemed_login_codes')
    .execute();
  await sql`UPDATE accounts SET unredeemed_login_codes = 0`.execute(db);
}
