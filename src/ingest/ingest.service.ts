import { hash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import type { Store } from '../db/store.ts';
import { isTransactionConflict } from '../db/store-errors.ts';
import { importWithin } from '../import/import.service.ts';
import { ImportRefused } from '../import/import-problems.ts';
import { jsonLinesItems } from '../import/import-sources.ts';
import { toIso } from '../instant.ts';
import { DAY_MS } from '../time-units.ts';
import {
  claimBatchKey,
  findBatch,
  keepBatchAnswer,
  purgeBatchesBefore,
  takeBatchTurn,
} from './batches.repository.ts';
import type { BatchAnswer } from './ingest.schemas.ts';

/** At most this many records in one batch: one transaction, quick to apply and to retry. */
export const MAX_BATCH_RECORDS = 1_000;
/** At most this many bytes in one batch. */
export const MAX_BATCH_BYTES = 5 * 1024 * 1024;
/** How long a batch's answer is kept under its idempotency key. */
export const IDEMPOTENCY_KEEP_MS = DAY_MS;

export type { BatchAnswer } from './ingest.schemas.ts';

/** How a batch ended. */
export type BatchOutcome =
  /** `removed`: respondents left (deletions, a deleted campaign), so the files want a scrub. */
  | { kind: 'applied'; answer: BatchAnswer; removed: boolean }
  /** The same key and body came before: its answer, and nothing applied again. */
  | { kind: 'replayed'; answer: BatchAnswer }
  /** The same key came before with another body. */
  | { kind: 'key_reused' }
  /** A batch with the same key was being applied meanwhile, and has not answered yet. */
  | { kind: 'key_in_flight' }
  | { kind: 'too_many_records'; records: number }
  /** Records with problems, each spelled out (`line 3 (id r5): …`): nothing was written. */
  | { kind: 'refused'; problems: readonly string[]; unshown: number };

/**
 * How many records a JSON Lines body holds: its lines that are not blank, split as the reader
 * splits them (jsonLinesItems: at LF, CR LF, or CR alone).
 */
function recordCount(body: Buffer): number {
  let count = 0;
  let blank = true;
  for (let at = 0; at < body.length; at++) {
    const byte = body[at];
    if (byte === 0x0a || byte === 0x0d) {
      if (!blank) count += 1;
      blank = true;
    } else if (byte !== 0x20 && byte !== 0x09) {
      blank = false;
    }
  }
  return blank ? count : count + 1;
}

/** `line 3` of a record's place, `line 3 (id r5)`: the batch's answer names the id apart. */
function lineOf(where: string): string {
  const end = where.indexOf(' (id ');
  return end < 0 ? where : where.slice(0, end);
}

async function* chunksOf(body: Buffer): AsyncGenerator<Uint8Array> {
  yield body;
}

/**
 * Applies one batch of JSON Lines records (the import's records, checked by the import's code)
 * in one transaction, all or nothing: a batch with bad records is refused, naming every bad
 * line, and nothing is written. Its answer is kept under `key` in the same transaction, so a batch sent
 * again (a retry, a relay that died before it could note the answer) is answered again and
 * applied once.
 */
export async function applyBatch(
  store: Store,
  clock: Clock,
  batch: { tokenId: string; key: string; body: Buffer },
): Promise<BatchOutcome> {
  const bodyHash = hash('sha256', batch.body, 'hex');
  const earlier = await answeredBefore(store, clock, batch, bodyHash);
  if (earlier) return earlier;
  const records = recordCount(batch.body);
  if (records > MAX_BATCH_RECORDS) return { kind: 'too_many_records', records };
  let answer: Awaited<ReturnType<typeof writeBatch>>;
  try {
    answer = await runAgainOnConflict(() => writeBatch(store, clock, batch, bodyHash));
  } catch (error) {
    if (!(error instanceof ImportRefused)) throw error;
    return { kind: 'refused', problems: error.problems, unshown: error.unshown };
  }
  if (answer) {
    return {
      kind: 'applied',
      answer: answer.answer,
      removed: answer.removed,
    };
  }
  return (await answeredBefore(store, clock, batch, bodyHash)) ?? { kind: 'key_in_flight' };
}

/** Tries of a batch that another writer's transaction ran into (see isTransactionConflict). */
const CONFLICT_TRIES = 3;

/**
 * Batches take turns to write shared rows (takeBatchTurn), but an operator's import, erasure or
 * retention run may still meet one in a deadlock, as may two batches naming the same respondents
 * without versions: the batch, rolled back whole, is written again.
 */
async function runAgainOnConflict<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= CONFLICT_TRIES || !isTransactionConflict(error)) throw error;
    }
  }
}

/** The batch's transaction: its key claimed, its records imported, its answer kept. */
function writeBatch(
  store: Store,
  clock: Clock,
  batch: { tokenId: string; key: string; body: Buffer },
  bodyHash: string,
): Promise<{ answer: BatchAnswer; removed: boolean } | undefined> {
  return store.db.transaction().execute(async (trx) => {
    const now = clock.now();
    const claimed = await claimBatchKey(trx, {
      tokenId: batch.tokenId,
      key: batch.key,
      bodyHash,
      now,
      since: now - IDEMPOTENCY_KEEP_MS,
    });
    // Another request with the same key committed while this one waited: that one answers.
    if (!claimed) return undefined;
    const counts = await importWithin(
      trx,
      store.engine,
      clock,
      jsonLinesItems(chunksOf(batch.body)),
      {
        actor: `ingest:${batch.tokenId}`,
        action: 'ingest.batch',
        problemsShown: MAX_BATCH_RECORDS,
        // Reading, checking, version claims and staging run beside other batches.
        beforeSharedWrites: () => takeBatchTurn(trx, store.engine),
      },
    );
    const answer: BatchAnswer = {
      applied: {
        campaigns: counts.campaigns.upserted + counts.campaigns.deleted,
        respondents: counts.respondents.upserted,
        deletions: counts.respondents.deleted,
      },
      stale: counts.stale,
      keptErased: {
        count: counts.keptErased.count,
        records: counts.keptErased.records.map(({ where, id }) => ({ line: lineOf(where), id })),
      },
      unknownAnswers: {
        count: counts.unknownAnswers.count,
        records: counts.unknownAnswers.records.map(({ where, id, fields }) => ({
          line: lineOf(where),
          id,
          fields,
        })),
      },
      committedAt: toIso(clock.now()),
    };
    await keepBatchAnswer(trx, batch.tokenId, batch.key, JSON.stringify(answer));
    return { answer, removed: counts.respondents.deleted + counts.campaigns.deleted > 0 };
  });
}

async function answeredBefore(
  store: Store,
  clock: Clock,
  batch: { tokenId: string; key: string },
  bodyHash: string,
): Promise<BatchOutcome | undefined> {
  const kept = await findBatch(
    store.db,
    batch.tokenId,
    batch.key,
    clock.now() - IDEMPOTENCY_KEEP_MS,
  );
  if (!kept) return undefined;
  if (kept.bodyHash !== bodyHash) return { kind: 'key_reused' };
  return { kind: 'replayed', answer: JSON.parse(kept.answer) as BatchAnswer };
}

/**
 * Forgets ingest batches' answers past the day a relay may send a batch again under its key
 * (docs/ingesting.md): without it the table gains a row per batch forever.
 */
export async function purgeIngestBatches(db: Kysely<Database>, now: number): Promise<number> {
  return purgeBatchesBefore(db, now - IDEMPOTENCY_KEEP_MS);
}
