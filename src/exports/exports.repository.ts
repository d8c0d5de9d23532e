import type { Kysely } from 'kysely';
import type { Database, ExportRunsTable, ExportsTable } from '../db/schema.ts';
import { DAY_MS } from '../time-units.ts';
import type { Schedule } from './export-schedule.ts';

/** The files a delivery may write, each campaign's in each format chosen. */
export const EXPORT_FORMATS = ['csv', 'parquet', 'xlsx'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** A scheduled delivery of a key's guest lists to a bucket, as the rest of the room uses it. */
export interface ExportRecord {
  id: string;
  /** The key's rotation chain: a delivery outlives a rotation, and stops with the chain. */
  lineageId: string;
  /** The key's holder, whose key in force the run reads with. */
  accountId: string;
  bucket: string;
  /** Without slashes at either end; '' for the bucket's top. */
  prefix: string;
  endpoint: string;
  region: string;
  /** The sealed `{ accessKeyId, secretAccessKey }` (see openCredentials), never opened here. */
  credentialsSealed: string;
  schedule: Schedule;
  formats: ExportFormat[];
  /** How many runs the bucket keeps. */
  keep: number;
  createdAt: number;
  /** 'operator', or the holder's account id. */
  createdBy: string;
}

/** One run of a delivery: its slot's claim, its lease while it runs, and what it wrote. */
export interface ExportRunRecord {
  exportId: string;
  /** The slot's instant: the run's folder is named after it. */
  runAt: number;
  state: ExportRunsTable['state'];
  attempts: number;
  leaseUntil: number;
  /** When a failed run is tried again; null once it is given up. */
  nextAttemptAt: number | null;
  startedAt: number;
  finishedAt: number | null;
  files: number | null;
  rows: number | null;
  bytes: number | null;
  /** What went wrong, in words without values. */
  error: string | null;
}

const nullableNumber = (value: number | null) => (value === null ? null : Number(value));

function rowToExport(row: ExportsTable): ExportRecord {
  return {
    id: row.id,
    lineageId: row.lineage_id,
    accountId: row.account_id,
    bucket: row.bucket,
    prefix: row.prefix,
    endpoint: row.endpoint,
    region: row.region,
    credentialsSealed: row.credentials_sealed,
    schedule: row.every === '1h' ? { every: '1h' } : { every: '1d', atMinute: row.at_minute },
    formats: row.formats.split(',') as ExportFormat[],
    keep: Number(row.keep),
    createdAt: Number(row.created_at),
    createdBy: row.created_by,
  };
}

function exportToRow(record: ExportRecord): ExportsTable {
  return {
    id: record.id,
    lineage_id: record.lineageId,
    account_id: record.accountId,
    bucket: record.bucket,
    prefix: record.prefix,
    endpoint: record.endpoint,
    region: record.region,
    credentials_sealed: record.credentialsSealed,
    every: record.schedule.every,
    at_minute: record.schedule.every === '1d' ? record.schedule.atMinute : 0,
    formats: record.formats.join(','),
    keep: record.keep,
    created_at: record.createdAt,
    created_by: record.createdBy,
  };
}

function rowToRun(row: ExportRunsTable): ExportRunRecord {
  return {
    exportId: row.export_id,
    runAt: Number(row.run_at),
    state: row.state,
    attempts: Number(row.attempts),
    leaseUntil: Number(row.lease_until),
    nextAttemptAt: nullableNumber(row.next_attempt_at),
    startedAt: Number(row.started_at),
    finishedAt: nullableNumber(row.finished_at),
    files: nullableNumber(row.files),
    rows: nullableNumber(row.rows),
    bytes: nullableNumber(row.bytes),
    error: row.error,
  };
}

/** Runs remembered per export (their counts and errors, for the listing and the key page). */
const RUNS_REMEMBERED_MS = 30 * DAY_MS;

export async function insertExport(db: Kysely<Database>, record: ExportRecord): Promise<void> {
  await db.insertInto('exports').values(exportToRow(record)).execute();
}

/** How many deliveries a key chain has. */
export async function countExportsOfLineage(
  db: Kysely<Database>,
  lineageId: string,
): Promise<number> {
  const counted = await db
    .selectFrom('exports')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('lineage_id', '=', lineageId)
    .executeTakeFirstOrThrow();
  return Number(counted.n);
}

export async function findExports(
  db: Kysely<Database>,
  filter: { lineageIds?: readonly string[] } = {},
): Promise<ExportRecord[]> {
  let query = db.selectFrom('exports').selectAll().orderBy('created_at').orderBy('id');
  if (filter.lineageIds) {
    if (filter.lineageIds.length === 0) return [];
    query = query.where('lineage_id', 'in', filter.lineageIds);
  }
  return (await query.execute()).map(rowToExport);
}

export async function findExport(
  db: Kysely<Database>,
  id: string,
): Promise<ExportRecord | undefined> {
  const row = await db.selectFrom('exports').selectAll().where('id', '=', id).executeTakeFirst();
  return row && rowToExport(row);
}

/** Removes an export and what is remembered of its runs; true when there was one. */
export async function deleteExport(db: Kysely<Database>, id: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await trx.deleteFrom('export_runs').where('export_id', '=', id).execute();
    const deleted = await trx.deleteFrom('exports').where('id', '=', id).executeTakeFirst();
    return deleted.numDeletedRows > 0n;
  });
}

/** The newest runs of these exports, newest first: at most `perExport` each. */
export async function recentRuns(
  db: Kysely<Database>,
  exportIds: readonly string[],
  now: number,
): Promise<ExportRunRecord[]> {
  if (exportIds.length === 0) return [];
  const rows = await db
    .selectFrom('export_runs')
    .selectAll()
    .where('export_id', 'in', exportIds)
    .where('run_at', '>', now - RUNS_REMEMBERED_MS)
    .orderBy('run_at', 'desc')
    .execute();
  return rows.map(rowToRun);
}

/** The runs of these slots that exist already, whatever their state. */
export async function runsOfSlots(
  db: Kysely<Database>,
  slots: ReadonlyArray<{ exportId: string; runAt: number }>,
): Promise<ExportRunRecord[]> {
  if (slots.length === 0) return [];
  const rows = await db
    .selectFrom('export_runs')
    .selectAll()
    .where(
      'export_id',
      'in',
      slots.map((slot) => slot.exportId),
    )
    .where(
      'run_at',
      'in',
      slots.map((slot) => slot.runAt),
    )
    .execute();
  const wanted = new Set(slots.map((slot) => `${slot.exportId}@${slot.runAt}`));
  return rows.map(rowToRun).filter((run) => wanted.has(`${run.exportId}@${run.runAt}`));
}

/** A slot's run held by one node: which attempt it is, so that a later holder fences it out. */
export interface RunClaim {
  exportId: string;
  runAt: number;
  attempt: number;
}

/**
 * Claims a slot's run for `leaseMs`: the first claim inserts its row; a later one takes it only
 * when its last attempt failed and its retry is due, or its holder's lease ran out (a node that
 * died mid-run). One statement each, so of nodes claiming at once exactly one succeeds.
 */
export async function claimRun(
  db: Kysely<Database>,
  slot: { exportId: string; runAt: number },
  now: number,
  leaseMs: number,
): Promise<RunClaim | undefined> {
  const inserted = await db
    .insertInto('export_runs')
    .values({
      export_id: slot.exportId,
      run_at: slot.runAt,
      state: 'running',
      attempts: 1,
      lease_until: now + leaseMs,
      next_attempt_at: null,
      started_at: now,
      finished_at: null,
      files: null,
      rows: null,
      bytes: null,
      error: null,
    })
    .onConflict((conflict) => conflict.columns(['export_id', 'run_at']).doNothing())
    .executeTakeFirst();
  if ((inserted.numInsertedOrUpdatedRows ?? 0n) > 0n) return { ...slot, attempt: 1 };
  const taken = await db
    .updateTable('export_runs')
    .set((eb) => ({
      state: 'running',
      attempts: eb('attempts', '+', 1),
      lease_until: now + leaseMs,
      next_attempt_at: null,
      started_at: now,
    }))
    .where('export_id', '=', slot.exportId)
    .where('run_at', '=', slot.runAt)
    .where((eb) =>
      eb.or([
        eb.and([eb('state', '=', 'failed'), eb('next_attempt_at', '<=', now)]),
        eb.and([eb('state', '=', 'running'), eb('lease_until', '<', now)]),
      ]),
    )
    .returning('attempts')
    .executeTakeFirst();
  return taken ? { ...slot, attempt: Number(taken.attempts) } : undefined;
}

const held = (db: Kysely<Database>, claim: RunClaim) =>
  db
    .updateTable('export_runs')
    .where('export_id', '=', claim.exportId)
    .where('run_at', '=', claim.runAt)
    .where('attempts', '=', claim.attempt)
    .where('state', '=', 'running');

/** Extends the claim's lease; false when another node has taken the run since. */
export async function renewLease(
  db: Kysely<Database>,
  claim: RunClaim,
  until: number,
): Promise<boolean> {
  const renewed = await held(db, claim).set({ lease_until: until }).executeTakeFirst();
  return renewed.numUpdatedRows > 0n;
}

/** Ends the claim's run as delivered; false when another node has taken the run since. */
export async function finishRun(
  db: Kysely<Database>,
  claim: RunClaim,
  done: { at: number; files: number; rows: number; bytes: number },
): Promise<boolean> {
  const finished = await held(db, claim)
    .set({
      state: 'done',
      finished_at: done.at,
      files: done.files,
      rows: done.rows,
      bytes: done.bytes,
      error: null,
    })
    .executeTakeFirst();
  await db
    .deleteFrom('export_runs')
    .where('export_id', '=', claim.exportId)
    .where('run_at', '<', done.at - RUNS_REMEMBERED_MS)
    .execute();
  return finished.numUpdatedRows > 0n;
}

/** Ends the claim's attempt as failed: tried again at `retryAt`, or given up when null. */
export async function failRun(
  db: Kysely<Database>,
  claim: RunClaim,
  failed: { at: number; error: string; retryAt: number | null },
): Promise<void> {
  await held(db, claim)
    .set({
      state: 'failed',
      finished_at: failed.at,
      error: failed.error,
      next_attempt_at: failed.retryAt,
    })
    .execute();
}

/**
 * How many deliveries are set up, and the instant the stalest of them last delivered (its
 * set-up for one not delivered yet): what the metrics watch.
 */
export async function deliveryFreshness(
  db: Kysely<Database>,
): Promise<{ count: number; oldestDeliveredAt: number | null }> {
  const row = await db
    .selectFrom((eb) =>
      eb
        .selectFrom('exports as e')
        .select((inner) =>
          inner.fn
            .coalesce(
              inner
                .selectFrom('export_runs as r')
                .select((runs) => runs.fn.max('r.finished_at').as('at'))
                .whereRef('r.export_id', '=', 'e.id')
                .where('r.state', '=', 'done'),
              'e.created_at',
            )
            .as('delivered_at'),
        )
        .as('each'),
    )
    .select((eb) => [
      eb.fn.countAll<number | string>().as('count'),
      eb.fn.min('each.delivered_at').as('oldest'),
    ])
    .executeTakeFirstOrThrow();
  return {
    count: Number(row.count),
    oldestDeliveredAt: row.oldest === null ? null : Number(row.oldest),
  };
}
