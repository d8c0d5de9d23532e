import { randomBytes } from 'node:crypto';
import { recordAudit } from '../audit/audit.repository.ts';
import type { Clock } from '../clock.ts';
import type { Store } from '../db/store.ts';
import { DomainError } from '../errors.ts';
import { toIso } from '../instant.ts';
import { keyStatus, lifetimeOf } from '../key-in-force.ts';
import { findKeyById } from '../keys/keys.repository.ts';
import { urlProblem } from '../notifications/webhook-sender.ts';
import { openSealed, seal } from '../seal.ts';
import { deriveKey } from '../secrets.ts';
import { clockTime, nextSlotAfter, type Schedule, scheduleText } from './export-schedule.ts';
import {
  deleteExport,
  type ExportRow,
  type ExportRunRow,
  findExport,
  insertExport,
  listExportRows,
  recentRuns,
} from './exports.repository.ts';
import type { BucketTarget } from './s3-requests.ts';

/** The files a delivery may write, each campaign's in each format chosen. */
export const EXPORT_FORMATS = ['csv', 'parquet', 'xlsx'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const DEFAULT_KEEP = 7;
export const MAX_KEEP = 100;
/** Deliveries per key chain: each run reads every campaign of the key. */
export const MAX_EXPORTS_PER_KEY = 3;

export interface ExportSettings {
  store: Store;
  clock: Clock;
  /** The server's KEY_SEAL_SECRET: the bucket credentials are sealed under a key derived from it. */
  keySealKey: Buffer;
  /** Who acts: 'operator', or the holder's account id. */
  actor: string;
  /** Whether a bucket may be on a private address, or plain http:// (development and tests). */
  allowPrivateNetworks: boolean;
}

export interface NewExport {
  keyId: string;
  /** `s3://BUCKET/PREFIX` */
  to: string;
  endpoint: string;
  region?: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  schedule: Schedule;
  formats: readonly string[];
  keep?: number;
}

/** A delivery as the CLI and the portal show it: never its credentials. */
export interface ExportView {
  id: string;
  /** The key chain's first key: the delivery follows its rotations. */
  keyId: string;
  to: string;
  endpoint: string;
  every: Schedule['every'];
  /** `HH:MM` in Asia/Jakarta for a daily delivery. */
  at: string | null;
  schedule: string;
  formats: ExportFormat[];
  keep: number;
  createdAt: string;
  nextRunAt: string;
  lastRun: RunView | null;
  /** The newest run that delivered, when the last one did not. */
  lastDelivered: RunView | null;
}

export interface RunView {
  run: string;
  state: ExportRunRow['state'];
  attempts: number;
  finishedAt: string | null;
  files: number | null;
  rows: number | null;
  bytes: number | null;
  error: string | null;
  nextAttemptAt: string | null;
}

/** The sealing key of bucket credentials: derived, so it serves no other purpose. */
const credentialsKey = (keySealKey: Buffer) => deriveKey(keySealKey, 'hadir export credentials');

export function sealCredentials(
  credentials: NewExport['credentials'],
  keySealKey: Buffer,
  exportId: string,
): string {
  return seal(JSON.stringify(credentials), credentialsKey(keySealKey), `export:${exportId}`);
}

/** A delivery's bucket credentials, opened (throws when `keySealKey` is not the one they took). */
export function openCredentials(
  sealed: string,
  keySealKey: Buffer,
  exportId: string,
): BucketTarget['credentials'] {
  return JSON.parse(openSealed(sealed, credentialsKey(keySealKey), `export:${exportId}`));
}

/** What a run needs to reach the bucket: the row's target with its credentials opened. */
export function targetOf(row: ExportRow, keySealKey: Buffer): BucketTarget {
  const credentials = openCredentials(row.credentials_sealed, keySealKey, row.id);
  return {
    bucket: row.bucket,
    prefix: row.prefix,
    endpoint: row.endpoint,
    region: row.region,
    credentials,
    publicOnly: row.created_by !== 'operator',
  };
}

export const scheduleOf = (row: Pick<ExportRow, 'every' | 'at_minute'>): Schedule =>
  row.every === '1h' ? { every: '1h' } : { every: '1d', atMinute: row.at_minute };

export const formatsOf = (row: Pick<ExportRow, 'formats'>): ExportFormat[] =>
  row.formats.split(',') as ExportFormat[];

/** `s3://BUCKET/PREFIX` as its bucket and prefix (S3's naming rules, checked before any call). */
export function parseDestination(text: string): { bucket: string; prefix: string } {
  const match = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(text);
  if (!match) throw new DomainError('invalid', `--to ${text} is not s3://BUCKET/PREFIX`);
  const bucket = match[1] as string;
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new DomainError(
      'invalid',
      `bucket name ${bucket} is not one S3 allows (3 to 63 lower-case letters, digits, dots and hyphens)`,
    );
  }
  const prefix = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  const segments = prefix === '' ? [] : prefix.split('/');
  const safe = segments.every(
    (segment) => /^[A-Za-z0-9!_.*'()=+-]+$/.test(segment) && segment !== '.' && segment !== '..',
  );
  if (prefix.length > 512 || !safe) {
    throw new DomainError(
      'invalid',
      `prefix ${prefix} must be at most 512 characters of folders named with letters, digits and !_.*'()=+- (S3's safe characters), none of them . or ..`,
    );
  }
  return { bucket, prefix };
}

function formatsFrom(names: readonly string[]): ExportFormat[] {
  const chosen = [...new Set(names.map((name) => name.trim().toLowerCase()).filter(Boolean))];
  const unknown = chosen.filter((name) => !EXPORT_FORMATS.includes(name as ExportFormat));
  if (chosen.length === 0 || unknown.length > 0) {
    throw new DomainError(
      'invalid',
      `formats must be one or more of ${EXPORT_FORMATS.join(', ')}${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}`,
    );
  }
  return EXPORT_FORMATS.filter((format) => chosen.includes(format));
}

async function lineageInForce(settings: ExportSettings, keyId: string) {
  const key = await findKeyById(settings.store.db, keyId);
  if (!key || (settings.actor !== 'operator' && key.account_id !== settings.actor)) {
    throw new DomainError('not_found', `no key with id ${keyId}`);
  }
  if (keyStatus(lifetimeOf(key), settings.clock.now()) !== 'active') {
    throw new DomainError('conflict', `key ${keyId} is no longer in force`);
  }
  return key;
}

/** Adds a scheduled delivery of a key's guest lists; the credentials are sealed, never shown. */
export async function addExport(settings: ExportSettings, input: NewExport): Promise<ExportView> {
  const { store, clock } = settings;
  const { bucket, prefix } = parseDestination(input.to);
  const problem = urlProblem(input.endpoint, settings.allowPrivateNetworks);
  if (problem) throw new DomainError('invalid', `endpoint ${input.endpoint} ${problem}`);
  const formats = formatsFrom(input.formats);
  const keep = input.keep ?? DEFAULT_KEEP;
  if (!Number.isInteger(keep) || keep < 1 || keep > MAX_KEEP) {
    throw new DomainError('invalid', `keep must be a whole number from 1 to ${MAX_KEEP}`);
  }
  const { accessKeyId, secretAccessKey } = input.credentials;
  if (!accessKeyId || !secretAccessKey) {
    throw new DomainError('invalid', 'both the access key and the secret key are needed');
  }
  const key = await lineageInForce(settings, input.keyId);
  const id = `exp_${randomBytes(12).toString('base64url')}`;
  const now = clock.now();
  const row: ExportRow = {
    id,
    lineage_id: key.lineage_id,
    account_id: key.account_id,
    bucket,
    prefix,
    endpoint: input.endpoint,
    region: input.region ?? 'us-east-1',
    credentials_sealed: sealCredentials(input.credentials, settings.keySealKey, id),
    every: input.schedule.every,
    at_minute: input.schedule.every === '1d' ? input.schedule.atMinute : 0,
    formats: formats.join(','),
    keep,
    created_at: now,
    created_by: settings.actor,
  };
  await store.db.transaction().execute(async (trx) => {
    const existing = await trx
      .selectFrom('exports')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('lineage_id', '=', key.lineage_id)
      .executeTakeFirstOrThrow();
    if (Number(existing.n) >= MAX_EXPORTS_PER_KEY) {
      throw new DomainError(
        'conflict',
        `key ${input.keyId} already has ${MAX_EXPORTS_PER_KEY} deliveries; remove one first`,
      );
    }
    await insertExport(trx, row);
    await recordAudit(
      trx,
      {
        actor: settings.actor,
        action: 'export.added',
        target: key.lineage_id,
        details: { exportId: id, bucket, prefix, endpoint: input.endpoint, formats, keep },
      },
      now,
    );
  });
  return (await viewsOf(settings, [row]))[0] as ExportView;
}

function runView(run: ExportRunRow): RunView {
  return {
    run: new Date(run.run_at).toISOString(),
    state: run.state,
    attempts: run.attempts,
    finishedAt: run.finished_at === null ? null : toIso(run.finished_at),
    files: run.files,
    rows: run.rows,
    bytes: run.bytes,
    error: run.error,
    nextAttemptAt: run.next_attempt_at === null ? null : toIso(run.next_attempt_at),
  };
}

async function viewsOf(
  settings: Pick<ExportSettings, 'store' | 'clock'>,
  rows: ExportRow[],
): Promise<ExportView[]> {
  const now = settings.clock.now();
  const runs = await recentRuns(
    settings.store.db,
    rows.map((row) => row.id),
    now,
  );
  return rows.map((row) => {
    const own = runs.filter((run) => run.export_id === row.id);
    const last = own[0];
    const delivered = own.find((run) => run.state === 'done');
    const schedule = scheduleOf(row);
    return {
      id: row.id,
      keyId: row.lineage_id,
      to: `s3://${row.bucket}/${row.prefix}`,
      endpoint: row.endpoint,
      every: schedule.every,
      at: schedule.every === '1d' ? clockTime(schedule.atMinute) : null,
      schedule: scheduleText(schedule),
      formats: formatsOf(row),
      keep: row.keep,
      createdAt: toIso(Number(row.created_at)),
      nextRunAt: toIso(nextSlotAfter(schedule, now)),
      lastRun: last ? runView(last) : null,
      lastDelivered: delivered && delivered !== last ? runView(delivered) : null,
    };
  });
}

/** The deliveries, of one key's chain when `keyId` is given (any key of the chain). */
export async function listExports(
  settings: Pick<ExportSettings, 'store' | 'clock'>,
  keyId?: string,
): Promise<ExportView[]> {
  let lineageIds: string[] | undefined;
  if (keyId !== undefined) {
    const key = await findKeyById(settings.store.db, keyId);
    if (!key) throw new DomainError('not_found', `no key with id ${keyId}`);
    lineageIds = [key.lineage_id];
  }
  const rows = await listExportRows(settings.store.db, lineageIds ? { lineageIds } : {});
  return viewsOf(settings, rows);
}

/** The export of this id, when the actor may see it (an operator, or the holder of its key). */
export async function ownExport(settings: ExportSettings, id: string): Promise<ExportRow> {
  const row = await findExport(settings.store.db, id);
  if (!row || (settings.actor !== 'operator' && row.account_id !== settings.actor)) {
    throw new DomainError('not_found', `no delivery with id ${id}`);
  }
  return row;
}

/** Removes a delivery; what it wrote stays in the bucket, whose owner it is. */
export async function removeExport(settings: ExportSettings, id: string): Promise<void> {
  const row = await ownExport(settings, id);
  await deleteExport(settings.store.db, id);
  await recordAudit(
    settings.store.db,
    {
      actor: settings.actor,
      action: 'export.removed',
      target: row.lineage_id,
      details: { exportId: id },
    },
    settings.clock.now(),
  );
}
