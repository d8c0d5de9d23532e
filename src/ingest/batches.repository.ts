import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { Engine } from '../db/store.ts';

/** The PostgreSQL advisory lock of batches being written (an arbitrary constant: 'batc'). */
const BATCH_LOCK = 0x62617463;

/**
 * Waits, within the transaction, until no other batch is writing shared rows, in any serving
 * process. Batches write the same rows (a campaign's counts, its answer counts, its change window)
 * in orders no statement fixes; two at once on PostgreSQL could deadlock, and a deadlock is found
 * only after a second's wait. A batch takes its turn just before its first such write (see
 * ImportOptions.beforeSharedWrites): its reading, checking, version claims and staging, which
 * touch its own respondents' rows only, run beside other batches. SQLite has one writer already.
 */
export async function takeBatchTurn(db: Kysely<Database>, engine: Engine): Promise<void> {
  if (engine === 'postgres') await sql`SELECT pg_advisory_xact_lock(${BATCH_LOCK})`.execute(db);
}

/** A batch kept under its idempotency key: what its body hashed to, and what it was answered. */
export interface KeptBatch {
  bodyHash: string;
  answer: string;
}

/** The batch a token sent under a key since `since`, if any. */
export async function findBatch(
  db: Kysely<Database>,
  tokenId: string,
  key: string,
  since: number,
): Promise<KeptBatch | undefined> {
  const row = await db
    .selectFrom('ingest_batches')
    .select(['body_hash', 'answer'])
    .where('token_id', '=', tokenId)
    .where('idempotency_key', '=', key)
    .where('created_at', '>', since)
    .executeTakeFirst();
  return row ? { bodyHash: row.body_hash, answer: row.answer } : undefined;
}

/**
 * Takes a key for this transaction's batch: false when another batch holds it. A batch with the
 * same key in another transaction makes this wait for that one's end (the key's row lock on
 * PostgreSQL, the one writer on SQLite), then see it. An entry older than `since` is forgotten.
 */
export async function claimBatchKey(
  db: Kysely<Database>,
  batch: { tokenId: string; key: string; bodyHash: string; now: number; since: number },
): Promise<boolean> {
  await db
    .deleteFrom('ingest_batches')
    .where('token_id', '=', batch.tokenId)
    .where('idempotency_key', '=', batch.key)
    .where('created_at', '<=', batch.since)
    .execute();
  const taken = await db
    .insertInto('ingest_batches')
    .values({
      token_id: batch.tokenId,
      idempotency_key: batch.key,
      body_hash: batch.bodyHash,
      answer: '',
      created_at: batch.now,
    })
    .onConflict((oc) => oc.columns(['token_id', 'idempotency_key']).doNothing())
    .returning('token_id')
    .execute();
  return taken.length > 0;
}

export async function keepBatchAnswer(
  db: Kysely<Database>,
  tokenId: string,
  key: string,
  answer: string,
): Promise<void> {
  await db
    .updateTable('ingest_batches')
    .set({ answer })
    .where('token_id', '=', tokenId)
    .where('idempotency_key', '=', key)
    .execute();
}

/** Forgets batches older than `before`; returns how many. */
export async function purgeBatchesBefore(db: Kysely<Database>, before: number): Promise<number> {
  const result = await db
    .deleteFrom('ingest_batches')
    .where('created_at', '<=', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
