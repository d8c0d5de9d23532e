import pg from 'pg';
import { type BatchAnswer, batchKey, type IngestClient } from './ingest-client.ts';

export interface RelayOptions {
  /** The platform's PostgreSQL, where the outbox table is. */
  sourceUrl: string;
  /** The outbox: `id bigserial`, `record jsonb`, `created_at` (see docs/ingesting.md). */
  table: string;
  /** Where records Hadir refused go, with why (same columns and `problem`, `rejected_at`). */
  rejectedTable: string;
  /** Rows per batch (Hadir takes at most 1,000). */
  batchSize: number;
  /** How often the outbox is looked at when no NOTIFY on channel `table` woke the relay. */
  pollMs: number;
}

/** What one pass over the outbox did. */
export interface Drained {
  /** Rows sent and deleted. */
  sent: number;
  /** Whether Hadir had applied the batch before (a relay died between its answer and the delete). */
  replayed: boolean;
  /** Rows Hadir refused (or that cannot be sent), moved to the rejected table. */
  rejected: number;
  /** The outbox ids of those rows, each with why. */
  refusals: Array<{ rowId: string; problem: string }>;
  /** Records Hadir did not apply because an operator erased those people. */
  keptErased?: BatchAnswer['keptErased'];
  /** Records that answer questions their campaign does not have (applied, and said). */
  unknownAnswers?: BatchAnswer['unknownAnswers'];
}

/** Which row of Hadir a record writes: a batch names each once (the import's rule). */
function targetOf(record: unknown): string {
  const fields = (record ?? {}) as Record<string, unknown>;
  if (fields.type === 'deletion') {
    return fields.respondentId !== undefined
      ? `respondent:${String(fields.respondentId)}`
      : `campaign:${String(fields.campaignId)}`;
  }
  return `${String(fields.type)}:${String(fields.id)}`;
}

/**
 * The rows' records, the newest change of each row of Hadir alone, in the order of the outbox:
 * an edit and a deletion of one RSVP in the same batch are its last state. Each record keeps the
 * ids of the outbox rows it stands for.
 */
function newestOfEach(
  rows: ReadonlyArray<{ id: string; record: unknown }>,
): Array<{ record: unknown; rowIds: string[] }> {
  const last = new Map<string, number>();
  const covered = new Map<string, string[]>();
  rows.forEach((row, index) => {
    const target = targetOf(row.record);
    last.set(target, index);
    covered.set(target, [...(covered.get(target) ?? []), row.id]);
  });
  return rows.flatMap((row, index) => {
    const target = targetOf(row.record);
    return last.get(target) === index
      ? [{ record: row.record, rowIds: covered.get(target) ?? [] }]
      : [];
  });
}

/** The earliest `created_at` of these outbox rows, as ISO 8601; undefined when none has one. */
function oldestOf(rows: ReadonlyArray<{ created_at: Date | null }>): string | undefined {
  const times = rows
    .map((row) => row.created_at?.getTime())
    .filter((time): time is number => time !== undefined && Number.isFinite(time));
  return times.length > 0 ? new Date(Math.min(...times)).toISOString() : undefined;
}

/** An answer the relay cannot mend by sending again: a revoked token, a batch too large, … */
export class RelayStopped extends Error {}

/** What to do about an answer that stops the relay, in words. */
function stoppedBy(status: number, message: string): RelayStopped {
  if (status === 401) {
    return new RelayStopped(
      `Hadir refused the ingest token (401: ${message}): it was revoked, or is not an ingest token. Create one on Hadir's host with ./bin/hadir ingest-tokens create --name relay, set it as HADIR_INGEST_TOKEN, and start hadir-relay again`,
    );
  }
  return new RelayStopped(`Hadir answered ${status}: ${message}`);
}

/** Why a record cannot go as JSON (nested too deep for the serialiser, say), or undefined. */
function unsendable(record: unknown): string | undefined {
  try {
    JSON.stringify(record);
    return undefined;
  } catch (error) {
    return `cannot be sent as JSON: ${(error as Error).message}`;
  }
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$/;

function checkedName(name: string): string {
  if (!IDENTIFIER.test(name)) {
    throw new RelayStopped(`'${name}' is not a table name (lowercase letters, digits and _)`);
  }
  return name;
}

/**
 * Takes the oldest rows of the outbox that no other relay holds (FOR UPDATE SKIP LOCKED), sends
 * them (the newest change of each RSVP among them) as one batch under a key made of their ids,
 * and deletes them in the same transaction once Hadir answered 200. Should the relay die before
 * that commit, the rows are taken again and sent again under the same key, and Hadir answers its
 * first answer without applying them twice.
 * Records Hadir refuses (422, named by line) move to the rejected table, and the rest go again.
 */
export async function drainOnce(
  pool: pg.Pool,
  client: IngestClient,
  options: Pick<RelayOptions, 'table' | 'rejectedTable' | 'batchSize'>,
): Promise<Drained> {
  const table = checkedName(options.table);
  const rejectedTable = checkedName(options.rejectedTable);
  const db = await pool.connect();
  try {
    await db.query('BEGIN');
    const { rows } = await db.query<{ id: string; record: unknown; created_at: Date }>(
      // Ordered by the bigint column itself: its text, which the relay reads, sorts "10" before "9".
      `SELECT o.id::text AS id, o.record, o.created_at FROM ${table} AS o
       ORDER BY o.id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [options.batchSize],
    );
    let rejected = 0;
    let replayed = false;
    let keptErased: BatchAnswer['keptErased'] | undefined;
    let unknownAnswers: BatchAnswer['unknownAnswers'] | undefined;
    const refusals: Drained['refusals'] = [];
    /** Moves rows to the rejected table, each with its problem, copied there by the database. */
    const reject = async (
      moved: ReadonlyArray<{ id: string }>,
      problem: (id: string) => string,
    ) => {
      for (const row of moved) {
        await db.query(
          `INSERT INTO ${rejectedTable} (id, record, created_at, problem)
           SELECT id, record, created_at, $2 FROM ${table} WHERE id = $1`,
          [row.id, problem(row.id)],
        );
        refusals.push({ rowId: row.id, problem: problem(row.id) });
      }
      await db.query(`DELETE FROM ${table} WHERE id = ANY($1::bigint[])`, [
        moved.map((row) => row.id),
      ]);
      rejected += moved.length;
    };
    // A record no serialiser can write would fail every try: it is refused here and now.
    const broken = new Map<string, string>();
    for (const row of rows) {
      const problem = unsendable(row.record);
      if (problem) broken.set(row.id, problem);
    }
    if (broken.size > 0) {
      await reject(
        rows.filter((row) => broken.has(row.id)),
        (id) => broken.get(id) ?? '',
      );
    }
    let pending = rows.filter((row) => !broken.has(row.id));
    while (pending.length > 0) {
      const groups = newestOfEach(pending);
      const result = await client.send(
        groups.map((group) => group.record),
        batchKey(pending.map((row) => row.id)),
        // When the platform committed the oldest change sent: Hadir measures its delay from it.
        { oldestChangeAt: oldestOf(pending) },
      );
      if (result.kind === 'applied') {
        replayed = result.replayed;
        keptErased = result.answer.keptErased;
        unknownAnswers = result.answer.unknownAnswers;
        break;
      }
      if (result.kind === 'failed') throw stoppedBy(result.status, result.message);
      // A refused record goes with the older changes of the same row that it stood for, each
      // with the record's own problems (or Hadir's whole message when it named no line).
      const problemOf = new Map<string, string>();
      for (const [line, problem] of result.problems) {
        for (const rowId of groups[line - 1]?.rowIds ?? []) problemOf.set(rowId, problem);
      }
      const refused = problemOf.size > 0 ? pending.filter((row) => problemOf.has(row.id)) : pending;
      await reject(refused, (id) => problemOf.get(id) ?? result.message);
      pending = pending.filter((row) => !refused.includes(row));
    }
    if (pending.length > 0) {
      await db.query(`DELETE FROM ${table} WHERE id = ANY($1::bigint[])`, [
        pending.map((row) => row.id),
      ]);
    }
    await db.query('COMMIT');
    return {
      sent: pending.length,
      replayed,
      rejected,
      refusals,
      ...(keptErased && keptErased.count > 0 ? { keptErased } : {}),
      ...(unknownAnswers && unknownAnswers.count > 0 ? { unknownAnswers } : {}),
    };
  } catch (error) {
    await db.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    db.release();
  }
}

/**
 * Drains the outbox until `signal` aborts: a batch after another while there are rows, then a
 * wait for the next NOTIFY on the table's channel or `pollMs`. Errors that a retry may mend
 * (Hadir or the source unreachable) are told and waited out; RelayStopped ends the relay.
 */
export async function runRelay(
  client: IngestClient,
  options: RelayOptions,
  signal: AbortSignal,
  log: (line: string) => void,
): Promise<void> {
  const pool = new pg.Pool({ connectionString: options.sourceUrl, max: 2 });
  pool.on('error', (error) => log(`the source database connection failed: ${error.message}`));
  let wake: (() => void) | undefined;
  const listener = new pg.Client({ connectionString: options.sourceUrl });
  listener.on('notification', () => wake?.());
  listener.on('error', (error) => log(`listening for NOTIFY failed: ${error.message}`));
  const listening = listener
    .connect()
    .then(() => listener.query(`LISTEN ${checkedName(options.table)}`))
    .catch((error: Error) => log(`not woken by NOTIFY (polling only): ${error.message}`));
  const rest = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        signal.removeEventListener('abort', done);
        resolve();
      }
      wake = done;
      signal.addEventListener('abort', done, { once: true });
    });
  try {
    await listening;
    let failures = 0;
    while (!signal.aborted) {
      try {
        const drained = await drainOnce(pool, client, options);
        failures = 0;
        if (drained.sent + drained.rejected > 0) {
          log(
            `sent ${drained.sent} record${drained.sent === 1 ? '' : 's'}${drained.replayed ? ' (Hadir had them: a replay)' : ''}${drained.rejected > 0 ? `; ${drained.rejected} refused, moved to ${options.rejectedTable}` : ''}`,
          );
          for (const { rowId, problem } of drained.refusals) {
            log(`refused outbox row ${rowId}: ${problem}`);
          }
          if (drained.keptErased) {
            const { count, records } = drained.keptErased;
            const named = records.map((record) => `${record.line} (id ${record.id})`).join(', ');
            log(
              `Hadir kept ${count} erased respondent${count === 1 ? '' : 's'} erased (an operator erased them; not applied): ${named}${count > records.length ? ', …' : ''}. Erase them in the platform too, or let it send their deletion`,
            );
          }
          if (drained.unknownAnswers) {
            const { count, records } = drained.unknownAnswers;
            const named = records
              .map((record) => `${record.line} (id ${record.id}): ${record.fields.join(', ')}`)
              .join('; ');
            log(
              `${count} record${count === 1 ? '' : 's'} answer questions their campaign does not have (kept; served once the campaign has them): ${named}${count > records.length ? '; …' : ''}. Send the campaign's questions, or mend the mapping of the form`,
            );
          }
          continue;
        }
        await rest(options.pollMs);
      } catch (error) {
        if (error instanceof RelayStopped) throw error;
        failures += 1;
        const waitMs = Math.min(30_000, 500 * 2 ** Math.min(failures, 6));
        log(`${(error as Error).message}; trying again in ${Math.round(waitMs / 1000)} s`);
        await rest(waitMs);
      }
    }
  } finally {
    await listener.end().catch(() => {});
    await pool.end();
  }
}
