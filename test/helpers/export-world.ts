import { createHash } from 'node:crypto';
import { createDataReads } from '../../src/data-api/data-reads.ts';
import type { Store } from '../../src/db/store.ts';
import { DisclosureLog } from '../../src/disclosures/disclosure-log.ts';
import { ExportWorker, type ExportWorkerOptions } from '../../src/exports/export-worker.ts';
import {
  addExport,
  type ExportSettings,
  listExports,
  type NewExport,
  removeExport,
} from '../../src/exports/exports.service.ts';
import { KeyUsage } from '../../src/keys/key-usage.ts';
import { type Resolver, systemResolver } from '../../src/outbound/resolver.ts';
import { Speedups } from '../../src/speedups.ts';
import { logCapture, TEST_SECRETS } from './app.ts';
import type { ManualClock } from './clock.ts';
import { S3_CREDENTIALS, type TestS3 } from './s3-server.ts';

/** The manifest a run writes last (see export-run.ts). */
export interface TestManifest {
  exportId: string;
  run: string;
  runAt: string;
  removals: { until: string };
  files: Array<{
    path: string;
    campaignId: string;
    format: string;
    rows: number;
    bytes: number;
    sha256: string;
  }>;
}

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A store, a clock, a local bucket and a worker that delivers to it, as a serving process would. */
export function exportWorld(
  store: Store,
  clock: ManualClock,
  s3: TestS3,
  resolve: Resolver = systemResolver,
) {
  const keyUsage = new KeyUsage(store.db, logCapture().logger, 3_600_000);
  const settings: ExportSettings = {
    store,
    clock,
    keySealKey: TEST_SECRETS.keySealKey,
    actor: 'operator',
    allowPrivateNetworks: true,
  };
  const reads = createDataReads(store, {
    cursorKey: TEST_SECRETS.cursorKey,
    responseCacheBytes: 0,
    speedups: Speedups.ALL_ON,
  });
  const worker = (options: Pick<ExportWorkerOptions, 'leaseMs' | 'deliver'> = {}) =>
    new ExportWorker({
      ...settings,
      campaigns: reads.campaigns,
      keyUsage,
      disclosures: new DisclosureLog(settings.store),
      resolve,
      speedups: Speedups.ALL_ON,
      ...options,
    });
  return {
    settings,
    keyUsage,
    worker,
    /** Ends every delivery (the worker runs every one that is due, and a key has at most three). */
    async removeAll(): Promise<void> {
      for (const delivery of await listExports(settings)) await removeExport(settings, delivery.id);
    },
    add: (input: Omit<NewExport, 'endpoint' | 'credentials'> & Partial<NewExport>) =>
      addExport(settings, { endpoint: s3.endpoint, credentials: S3_CREDENTIALS, ...input }),
    /** The run folders under `prefix` of `bucket` that hold a manifest, oldest first. */
    async completeRuns(bucket: string, prefix: string): Promise<string[]> {
      const keys = await s3.keys(bucket, `${prefix}/`);
      return keys
        .filter((key) => key.endsWith('/manifest.json'))
        .map((key) => key.slice(prefix.length + 1, -'/manifest.json'.length));
    },
    async manifest(bucket: string, prefix: string, run: string): Promise<TestManifest> {
      return JSON.parse((await s3.read(bucket, `${prefix}/${run}/manifest.json`)).toString());
    },
  };
}

/** The partner's credentials where an operator's script keeps them: in the environment. */
export const PARTNER_ENV = {
  PARTNER_KEY_ID: S3_CREDENTIALS.accessKeyId,
  PARTNER_SECRET: S3_CREDENTIALS.secretAccessKey,
};

/** `hadir exports add` for a key to a local bucket, the credentials named in PARTNER_ENV. */
export const exportsAdd = (keyId: string, endpoint: string, extra: string[]) => [
  'exports',
  'add',
  '--key',
  keyId,
  '--endpoint',
  endpoint,
  '--access-key-env',
  'PARTNER_KEY_ID',
  '--secret-key-env',
  'PARTNER_SECRET',
  ...extra,
];
