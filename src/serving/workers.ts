import type { FastifyBaseLogger } from 'fastify';
import type { CampaignService } from '../campaigns/campaigns.service.ts';
import type { Clock } from '../clock.ts';
import { type Config, retentionOf } from '../config.ts';
import type { Store } from '../db/store.ts';
import { type DisclosureRecorder, UNRECORDED } from '../disclosures/disclosure-log.ts';
import { ExportWorker, RUN_LEASE_MS } from '../exports/export-worker.ts';
import { deliveryFreshness } from '../exports/exports.repository.ts';
import { runApart } from '../exports/run-apart.ts';
import type { Metrics } from '../http/metrics.ts';
import { purgeIngestBatches } from '../ingest/ingest.service.ts';
import type { KeyUsage } from '../keys/key-usage.ts';
import type { Mailer } from '../mail/mailer.ts';
import { queueState } from '../notifications/deliveries.repository.ts';
import { noticeExpiringKeys, purgeDeliveryLog } from '../notifications/housekeeping.ts';
import { notificationSender } from '../notifications/notifications.ts';
import type { Resolver } from '../outbound/resolver.ts';
import { endpointDisabledMail } from '../portal-pages/messages.ts';
import { runRetention } from '../removals/retention.ts';
import type { Speedups } from '../speedups.ts';
import { DAY_MS, MINUTE_MS, SECOND_MS } from '../time-units.ts';
import type { ProcessKind } from './process-kind.ts';

/** A job a serving process runs beside its requests, from listening until it closes. */
export interface BackgroundWorker {
  readonly name: WorkerName;
  start(): void;
  /** Resolves once a run in progress has ended. */
  stop(): Promise<void>;
}

/**
 * Which serving processes run a worker:
 * - `every process`: a claim in the store makes each piece of its work happen once;
 * - `one writer on SQLite`: every process on PostgreSQL, but on SQLite only the housekeeper (one
 *   writer of a file is enough, and the others would only wait on its lock).
 */
export type Placement = 'every process' | 'one writer on SQLite';

/**
 * Every background worker, the room that owns its work, where it runs and what it does. A
 * cluster's primary runs none. docs/architecture.md shows this table, and a test holds both it
 * and what each kind of process starts to it.
 */
export const WORKERS = {
  'webhook-sender': {
    owner: 'notifications',
    placement: 'one writer on SQLite',
    does: 'sends the notification outbox to endpoints, retries, turns failing endpoints off',
  },
  'key-expiry-notices': {
    owner: 'notifications',
    placement: 'one writer on SQLite',
    does: 'queues key.expiring 7 days and 1 day before a key ends (every 10 minutes)',
  },
  'webhook-log-trim': {
    owner: 'notifications',
    placement: 'one writer on SQLite',
    does: 'forgets webhook attempts past the log’s 30 days (every 10 minutes)',
  },
  'ingest-batch-trim': {
    owner: 'ingest',
    placement: 'one writer on SQLite',
    does: 'forgets ingest batches’ answers past their day (every 10 minutes)',
  },
  retention: {
    owner: 'removals',
    placement: 'one writer on SQLite',
    does: 'removes respondents past their retention, old tombstones and record lines (daily)',
  },
  'bucket-deliveries': {
    owner: 'exports',
    placement: 'every process',
    does: 'runs the scheduled deliveries to buckets as they fall due, each slot once',
  },
} as const satisfies Record<string, { owner: string; placement: Placement; does: string }>;

export type WorkerName = keyof typeof WORKERS;

export function runsIn(placement: Placement, kind: ProcessKind): boolean {
  if (placement === 'every process') return true;
  return kind.engine === 'postgres' || kind.housekeeper;
}

/** The workers a process of this kind runs, in the table's order. */
export function workerNamesFor(kind: ProcessKind): WorkerName[] {
  return (Object.keys(WORKERS) as WorkerName[]).filter((name) =>
    runsIn(WORKERS[name].placement, kind),
  );
}

/** What the workers are built on: the assembled process's services. */
export interface WorkerDeps {
  store: Store;
  clock: Clock;
  config: Config;
  keySealKey: Buffer;
  mailer: Mailer;
  metrics: Metrics;
  logger: FastifyBaseLogger;
  disclosures: DisclosureRecorder;
  keyUsage: KeyUsage;
  /** The data API's campaign reads, which a bucket delivery reads through. */
  campaigns: CampaignService;
  speedups: Speedups;
  resolve: Resolver;
}

/**
 * The workers of a process of this kind, built but not started, with their metrics watched.
 * Their log lines and metrics carry ids and counts, never a person's answers.
 */
export function createWorkers(kind: ProcessKind, deps: WorkerDeps): BackgroundWorker[] {
  return workerNamesFor(kind).map((name) => BUILDERS[name](deps));
}

const HOUSEKEEPING_EVERY_MS = 10 * MINUTE_MS;
const HOUSEKEEPING_FIRST_AFTER_MS = 5 * SECOND_MS;

const BUILDERS: { [Name in WorkerName]: (deps: WorkerDeps) => BackgroundWorker } = {
  'webhook-sender': (deps) => {
    deps.metrics.watchNotificationQueue(
      () => queueState(deps.store.db, deps.clock.now()),
      () => deps.clock.now(),
    );
    const sender = notificationSender({
      store: deps.store,
      clock: deps.clock,
      keySealKey: deps.keySealKey,
      disclosures: deps.disclosures,
      disabledNotice: { mailer: deps.mailer, compose: endpointDisabledMail },
      sender: {
        resolve: deps.resolve,
        allowPrivateNetworks: deps.config.webhooksAllowPrivateNetworks,
        timeoutMs: 10_000,
      },
      onOutcome: (outcome) => deps.metrics.notificationDeliveries.inc({ outcome }),
      onError: (error) =>
        deps.logger.error({ err: error }, 'notification delivery failed; it is retried'),
      onWarning: (message, context) => deps.logger.warn(context, message),
      ...(deps.config.databaseListenUrl ? { listenUrl: deps.config.databaseListenUrl } : {}),
    });
    return { name: 'webhook-sender', start: () => sender.start(), stop: () => sender.stop() };
  },
  'key-expiry-notices': (deps) =>
    repeating('key-expiry-notices', deps, HOUSEKEEPING_FIRST_AFTER_MS, HOUSEKEEPING_EVERY_MS, () =>
      noticeExpiringKeys(deps.store.db, deps.clock.now()),
    ),
  'webhook-log-trim': (deps) =>
    repeating('webhook-log-trim', deps, HOUSEKEEPING_FIRST_AFTER_MS, HOUSEKEEPING_EVERY_MS, () =>
      purgeDeliveryLog(deps.store.db, deps.clock.now()),
    ),
  'ingest-batch-trim': (deps) =>
    repeating('ingest-batch-trim', deps, HOUSEKEEPING_FIRST_AFTER_MS, HOUSEKEEPING_EVERY_MS, () =>
      purgeIngestBatches(deps.store.db, deps.clock.now()),
    ),
  retention: (deps) =>
    repeating('retention', deps, MINUTE_MS, DAY_MS, async () => {
      const run = await runRetention(deps.store, deps.clock, retentionOf(deps.config), true);
      const respondents = run.campaigns.reduce((sum, campaign) => sum + campaign.respondents, 0);
      if (respondents + run.tombstonesPurged + run.disclosuresPurged === 0) return;
      // Counts and campaign ids, never a person's data.
      deps.logger.info(
        {
          campaigns: run.campaigns.map((campaign) => campaign.campaignId),
          respondents,
          tombstonesPurged: run.tombstonesPurged,
          disclosuresPurged: run.disclosuresPurged,
        },
        'retention ran',
      );
    }),
  'bucket-deliveries': (deps) => {
    const { metrics, logger, speedups, store } = deps;
    metrics.watchExports(
      () => deliveryFreshness(store.db),
      () => deps.clock.now(),
    );
    // A private in-memory store is seen by this connection only: its runs stay in this process.
    const apart = speedups.on('delivery-process') && !store.url.endsWith(':memory:');
    const worker = new ExportWorker({
      ...(apart
        ? {
            deliver: runApart({
              databaseUrl: store.url,
              keySealKey: deps.keySealKey,
              allowPrivateNetworks: deps.config.webhooksAllowPrivateNetworks,
              speedupsOff: speedups.off,
              recordsDisclosures: deps.disclosures !== UNRECORDED,
              leaseMs: RUN_LEASE_MS,
            }),
          }
        : {}),
      store,
      clock: deps.clock,
      keySealKey: deps.keySealKey,
      campaigns: deps.campaigns,
      keyUsage: deps.keyUsage,
      disclosures: deps.disclosures,
      resolve: deps.resolve,
      allowPrivateNetworks: deps.config.webhooksAllowPrivateNetworks,
      speedups,
      // Ids and counts only: a run's files hold answers, its log line never does.
      onRun: (exportId, outcome) => {
        if ('error' in outcome) {
          metrics.exportRuns.inc({ outcome: 'failed' });
          logger.warn({ exportId, error: outcome.error }, 'delivery to a bucket failed');
          return;
        }
        const { manifest } = outcome;
        metrics.exportRuns.inc({ outcome: 'delivered' });
        metrics.exportBytes.inc(outcome.bytes);
        metrics.exportDuration.observe(
          (Date.parse(manifest.finishedAt) - Date.parse(manifest.startedAt)) / 1000,
        );
        logger.info(
          {
            exportId,
            run: manifest.run,
            files: manifest.files.length,
            rows: outcome.rows,
            bytes: outcome.bytes,
          },
          'delivered to a bucket',
        );
      },
      onError: (error) => logger.error({ err: error }, 'deliveries could not be checked'),
    });
    return { name: 'bucket-deliveries', start: () => worker.start(), stop: () => worker.stop() };
  },
};

/**
 * A worker that runs `work` first `firstAfterMs` after it starts, then every `everyMs`; a failed
 * run is logged and the next one comes as planned. Runs never overlap.
 */
function repeating(
  name: WorkerName,
  deps: Pick<WorkerDeps, 'logger'>,
  firstAfterMs: number,
  everyMs: number,
  work: () => Promise<unknown>,
): BackgroundWorker {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const run = (nextAfterMs: number) => {
    timer = setTimeout(() => {
      running = work().then(
        () => {},
        (error) => deps.logger.error({ err: error, worker: name }, `${name} failed; it runs again`),
      );
      void running.then(() => {
        if (!stopped) run(everyMs);
      });
    }, nextAfterMs);
    timer.unref();
  };
  return {
    name,
    start: () => run(firstAfterMs),
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
