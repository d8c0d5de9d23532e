import { recordAudit } from '../audit/audit.repository.ts';
import type { CampaignService } from '../campaigns/campaigns.service.ts';
import type { Clock } from '../clock.ts';
import type { Store } from '../db/store.ts';
import type { DisclosureRecorder } from '../disclosures/disclosure-log.ts';
import { ApiError } from '../errors.ts';
import { writeGuestList } from '../guest-list/guest-list-files.ts';
import { GUEST_LIST_HEADINGS } from '../guest-list/guest-list-headings.ts';
import { writeOnThread } from '../guest-list/written-on-a-thread.ts';
import { toIso } from '../instant.ts';
import { keyStatus } from '../key-in-force.ts';
import type { KeyUsage } from '../keys/key-usage.ts';
import { findKeysOfLineage, findScopesOfKeys } from '../keys/keys.repository.ts';
import { type AuthenticatedKey, verifyKey } from '../keys/keys.service.ts';
import type { Resolver } from '../outbound/resolver.ts';
import { readHorizon } from '../removals/removals.repository.ts';
import type { Speedups } from '../speedups.ts';
import { bucketProblem, openBucket } from './bucket.ts';
import { runName } from './export-schedule.ts';
import type { ExportFormat, ExportRecord, RunClaim } from './exports.repository.ts';
import { targetOf } from './exports.service.ts';

export interface RunDeps {
  store: Store;
  clock: Clock;
  keySealKey: Buffer;
  /** The data API's campaign reads: the one door to rows, under the key's allow-list. */
  campaigns: CampaignService;
  keyUsage: KeyUsage;
  /** Where each file's rows are recorded as handed over, before they are written. */
  disclosures: DisclosureRecorder;
  /** How a holder's bucket endpoint is looked up (never getaddrinfo, see dnsResolver). */
  resolve: Resolver;
  /** WEBHOOKS_ALLOW_PRIVATE_NETWORKS: a holder's bucket may be on this machine (development). */
  allowPrivateNetworks?: boolean;
  /** Whether files are written on a thread of their own ('file-thread'), as downloads are. */
  speedups: Speedups;
}

/** A file of a run, as its manifest lists it. */
export interface DeliveredFile {
  path: string;
  campaignId: string;
  format: ExportFormat;
  rows: number;
  bytes: number;
  sha256: string;
}

/** What a run wrote: its manifest's contents. */
export interface Manifest {
  version: 1;
  exportId: string;
  run: string;
  runAt: string;
  startedAt: string;
  finishedAt: string;
  /** Follow the removals feed from here: every removal after this run's rows is in it. */
  removals: { until: string };
  files: DeliveredFile[];
}

export interface RunResult {
  manifest: Manifest;
  rows: number;
  bytes: number;
  /** Older runs deleted to keep the export's last N. */
  runsRemoved: string[];
}

/** The key chain has no key in force: the delivery stops until one is (never, for most). */
export class KeyNotInForce extends Error {}
/** Another node took the run over (this one's lease ran out): it stops before its manifest. */
export class RunTakenOver extends Error {}
/** A run that failed elsewhere (its own process), told here in the words it failed with. */
export class RunFailed extends Error {}

/** A failed run in the words its delivery's page and log show: ids and causes, never answers. */
export function failureWords(error: unknown): string {
  if (error instanceof KeyNotInForce || error instanceof RunFailed) return error.message;
  return bucketProblem(error);
}

const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  parquet: 'application/vnd.apache.parquet',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** The chain's newest key in force, checked by the one policy every read of a key takes. */
async function keyOf(deps: RunDeps, delivery: ExportRecord): Promise<AuthenticatedKey> {
  const now = deps.clock.now();
  const keys = await findKeysOfLineage(deps.store.db, delivery.lineageId);
  const inForce = keys.find((key) => keyStatus(key.lifetime, now) === 'active');
  const verified =
    inForce &&
    (await verifyKey(deps.store, { holder: delivery.accountId, keyId: inForce.id }, now));
  if (verified?.kind !== 'valid') {
    throw new KeyNotInForce('the key is no longer in force (revoked, expired or its account off)');
  }
  return verified.key;
}

/** A file's name in its run's folder: the campaign's slug, or its id where two slugs meet. */
function fileNames(campaigns: Array<{ id: string; slug: string }>): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const campaign of campaigns) {
    const safe = campaign.slug.replace(/[^A-Za-z0-9._-]+/g, '-') || campaign.id;
    const name = taken.has(safe) ? campaign.id.replace(/[^A-Za-z0-9._-]+/g, '-') : safe;
    taken.add(name);
    names.set(campaign.id, name);
  }
  return names;
}

/**
 * One run of a delivery: per campaign the key reads and per format, one file of exactly what the
 * key reads (the download's columns), streamed to the bucket and hashed; then each file checked in
 * the bucket; then `manifest.json`, last, so that a reader of the manifest never sees a half-written
 * run; then the runs past the export's `keep` deleted. `stillHeld` is asked between steps: a run
 * another node took over stops before its manifest.
 */
export async function deliverRun(
  deps: RunDeps,
  delivery: ExportRecord,
  claim: RunClaim,
  stillHeld: () => Promise<boolean>,
): Promise<RunResult> {
  const startedAt = deps.clock.now();
  const key = await keyOf(deps, delivery);
  // Read before the rows: a removal after this is in the feed from `until` on.
  const horizon = await readHorizon(deps.store.db);
  const scopes = (await findScopesOfKeys(deps.store.db, [key.id])).get(key.id) ?? [];
  const readable = [];
  for (const scope of scopes) {
    try {
      readable.push(await deps.campaigns.resolve(key, scope.campaignId, 'record'));
    } catch (error) {
      // A campaign deleted since the key was issued serves nothing, and has no file.
      if (!(error instanceof ApiError && error.status === 404)) throw error;
    }
  }
  const names = fileNames(readable.map((access) => access.campaign));
  const run = runName(claim.runAt);
  const write = deps.speedups.on('file-thread') ? writeOnThread : writeGuestList;
  const headings = GUEST_LIST_HEADINGS.en;
  let target: ReturnType<typeof targetOf>;
  try {
    target = targetOf(delivery, deps.keySealKey);
  } catch {
    throw new Error(
      'the credentials cannot be opened: KEY_SEAL_SECRET changed since the delivery was set up; add it again',
    );
  }
  const bucket = await openBucket(target, {
    resolve: deps.resolve,
    allowPrivateNetworks: deps.allowPrivateNetworks === true,
  });
  try {
    const files: DeliveredFile[] = [];
    for (const access of readable) {
      for (const format of delivery.formats) {
        const path = `${names.get(access.campaign.id)}.${format}`;
        const whole = await deps.campaigns.everyRespondent(access, {
          recipient: { keyId: key.id, lineageId: key.lineageId, accountId: key.accountId },
          door: 'delivery',
          disclosures: deps.disclosures,
          now: () => deps.clock.now(),
        });
        const stored = await bucket.upload(bucket.keyOf(run, path), CONTENT_TYPES[format], (out) =>
          write(format, whole, headings, out),
        );
        files.push({ path, campaignId: access.campaign.id, format, ...stored });
        if (!(await stillHeld())) throw new RunTakenOver('another node took this run over');
      }
    }
    // Never a manifest over a missing file: each is checked where a reader will find it.
    for (const file of files) {
      const size = await bucket.sizeOf(bucket.keyOf(run, file.path));
      if (size !== file.bytes) {
        throw new Error(
          `${file.path} is ${size ?? 'missing'} in the bucket, not ${file.bytes} bytes`,
        );
      }
    }
    const manifest: Manifest = {
      version: 1,
      exportId: delivery.id,
      run,
      runAt: new Date(claim.runAt).toISOString(),
      startedAt: toIso(startedAt),
      finishedAt: toIso(deps.clock.now()),
      removals: { until: toIso(Math.max(horizon.lastStamp, horizon.vouchedSince)) },
      files,
    };
    if (!(await stillHeld())) throw new RunTakenOver('another node took this run over');
    await bucket.put(
      bucket.keyOf(run, 'manifest.json'),
      `${JSON.stringify(manifest, null, 2)}\n`,
      'application/json',
    );
    // The newest `keep` runs stay, this one among them; an erased guest leaves with the rest.
    const runs = await bucket.runs();
    const runsRemoved = runs
      .slice(0, Math.max(0, runs.length - delivery.keep))
      .filter((r) => r !== run);
    for (const old of runsRemoved) await bucket.removeRun(old);
    const rows = files.reduce((sum, file) => sum + file.rows, 0);
    const bytes = files.reduce((sum, file) => sum + file.bytes, 0);
    const now = deps.clock.now();
    // One request of the key, with its rows, as a download is counted.
    deps.keyUsage.count(key.id, now, 200, rows);
    await recordAudit(
      deps.store.db,
      {
        actor: 'exports',
        action: 'export.delivered',
        target: key.id,
        details: { exportId: delivery.id, run, files: files.length, rows, bytes, runsRemoved },
      },
      now,
    );
    return { manifest, rows, bytes, runsRemoved };
  } finally {
    bucket.close();
  }
}
