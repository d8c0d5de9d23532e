import { randomBytes } from 'node:crypto';
import { recordAudit } from '../audit/audit.repository.ts';
import type { Clock } from '../clock.ts';
import type { Store } from '../db/store.ts';
import { DomainError } from '../errors.ts';
import { toIso } from '../instant.ts';
import { keyStatus, lifetimeOf } from '../key-in-force.ts';
import { findKeyById } from '../keys/keys.repository.ts';
import { urlProblem } from '../outbound/url-problem.ts';
import { openSealed, seal } from '../seal.ts';
import { deriveKey } from '../secrets.ts';
import { clockTime, nextSlotAfter, type Schedule, scheduleText } from './export-schedule.ts';
import {
  countExportsOfLineage,
  deleteExport,
  EXPORT_FORMATS,
  type ExportFormat,
  type ExportRecord,
  type ExportRunRecord,
  findExport,
  findExports,
  insertExport,
  recentRuns,
} from './exports.repository.ts';
import type { BucketTarget } from './s3-requests.ts';

export { EXPORT_FORMATS, type ExportFormat };

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
  state: ExportRunRecord['state'];
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

/** What a run needs to reach the bucket: the delivery's target with its credentials opened. */
export function targetOf(delivery: ExportRecord, keySealKey: Buffer): BucketTarget {
  const credentials = openCredentials(delivery.credentialsSealed, keySealKey, delivery.id);
  return {
    bucket: delivery.bucket,
    prefix: delivery.prefix,
    endpoint: delivery.endpoint,
    region: delivery.region,
    credentials,
    publicOnly: delivery.createdBy !== 'operator',
  };
}

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
  const delivery: ExportRecord = {
    id,
    lineageId: key.lineage_id,
    accountId: key.account_id,
    bucket,
    prefix,
    endpoint: input.endpoint,
    region: input.region ?? 'us-east-1',
    credentialsSealed: sealCredentials(input.credentials, settings.keySealKey, id),
    schedule: input.schedule,
    formats,
    keep,
    createdAt: now,
    createdBy: settings.actor,
  };
  await store.db.transaction().execute(async (trx) => {
    if ((await countExportsOfLineage(trx, key.lineage_id)) >= MAX_EXPORTS_PER_KEY) {
      throw new DomainError(
        'conflict',
        `key ${input.keyId} already has ${MAX_EXPORTS_PER_KEY} deliveries; remove one first`,
      );
    }
    await insertExport(trx, delivery);
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
  return (await viewsOf(settings, [delivery]))[0] as ExportView;
}

function runView(run: ExportRunRecord): RunView {
  return {
    run: new Date(run.runAt).toISOString(),
    state: run.state,
    attempts: run.attempts,
    finishedAt: run.finishedAt === null ? null : toIso(run.finishedAt),
    files: run.files,
    rows: run.rows,
    bytes: run.bytes,
    error: run.error,
    nextAttemptAt: run.nextAttemptAt === null ? null : toIso(run.nextAttemptAt),
  };
}

async function viewsOf(
  settings: Pick<ExportSettings, 'store' | 'clock'>,
  deliveries: ExportRecord[],
): Promise<ExportView[]> {
  const now = settings.clock.now();
  const runs = await recentRuns(
    settings.store.db,
    deliveries.map((delivery) => delivery.id),
    now,
  );
  return deliveries.map((delivery) => {
    const own = runs.filter((run) => run.exportId === delivery.id);
    const last = own[0];
    const delivered = own.find((run) => run.state === 'done');
    const { schedule } = delivery;
    return {
      id: delivery.id,
      keyId: delivery.lineageId,
      to: `s3://${delivery.bucket}/${delivery.prefix}`,
      endpoint: delivery.endpoint,
      every: schedule.every,
      at: schedule.every === '1d' ? clockTime(schedule.atMinute) : null,
      schedule: scheduleText(schedule),
      formats: delivery.formats,
      keep: delivery.keep,
      createdAt: toIso(delivery.createdAt),
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
  const deliveries = await findExports(settings.store.db, lineageIds ? { lineageIds } : {});
  return viewsOf(settings, deliveries);
}

/** The export of this id, when the actor may see it (an operator, or the holder of its key). */
export async function ownExport(settings: ExportSettings, id: string): Promise<ExportRecord> {
  const delivery = await findExport(settings.store.db, id);
  if (!delivery || (settings.actor !== 'operator' && delivery.accountId !== settings.actor)) {
    throw new DomainError('not_found', `no delivery with id ${id}`);
  }
  return delivery;
}

/** Removes a delivery; what it wrote stays in the bucket, whose owner it is. */
export async function removeExport(settings: ExportSettings, id: string): Promise<void> {
  const delivery = await ownExport(settings, id);
  await deleteExport(settings.store.db, id);
  await recordAudit(
    settings.store.db,
    {
      actor: settings.actor,
      action: 'export.removed',
      target: delivery.lineageId,
      details: { exportId: id },
    },
    settings.clock.now(),
  );
}
