import { type Kysely, PostgresAdapter } from 'kysely';
import type { Engine } from './connect.ts';
import type { Database } from './schema.ts';

/** Which engine `db` talks to, for the few queries whose SQL differs between the two. */
export function engineOf(db: Kysely<Database>): Engine {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}
