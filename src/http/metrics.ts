import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Store } from '../db/connect.ts';
import { CLIENT_CLOSED_REQUEST } from './access-log.ts';

/** The notification outbox as the store reads it (deliveries.repository.ts's queueState). */
interface NotificationQueue {
  pending: number;
  oldestDueAt: number | null;
  oldestPendingSince: number | null;
  endpoints: { enabled: number; failing: number; disabled: number };
}

/** What became of an applied batch's records, as the ingest routes report it. */
interface BatchCounts {
  upserted: number;
  deleted: number;
  stale: number;
  keptErased: number;
}

/**
 * What an operator watches, in Prometheus form: requests and their latency by route and status,
 * rate-limit rejections and store failures, response-cache lookups, and database pool usage.
 * One registry per app, so several apps in one process (tests) keep separate counts.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'hadir_http_requests_total',
    help: 'HTTP requests answered, by route, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
  readonly latency = new Histogram({
    name: 'hadir_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [this.registry],
  });
  readonly rateLimited = new Counter({
    name: 'hadir_rate_limit_rejections_total',
    help: 'Data requests answered 429 because their budget was used up.',
    registers: [this.registry],
  });
  readonly rateLimitStoreFailures = new Counter({
    name: 'hadir_rate_limit_store_failures_total',
    help: 'Data requests let through unlimited because the rate-limit store (Redis) failed.',
    registers: [this.registry],
  });
  readonly shed = new Counter({
    name: 'hadir_overload_rejections_total',
    help: 'Data requests answered 503 at once because the event loop was overloaded.',
    registers: [this.registry],
  });
  readonly cacheLookups = new Counter({
    name: 'hadir_response_cache_lookups_total',
    help: 'Response-cache lookups, by result (hit or miss).',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  readonly notificationDeliveries = new Counter({
    name: 'hadir_notification_deliveries_total',
    help: 'Notification attempts, by outcome (delivered, retrying, failed, skipped, refused).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly dataReads = new Counter({
    name: 'hadir_data_reads_total',
    help: 'Data requests by the store they were read from (replica, or primary when the replica could not serve them), with a replica configured.',
    labelNames: ['store'] as const,
    registers: [this.registry],
  });
  readonly ingestBatches = new Counter({
    name: 'hadir_ingest_batches_total',
    help: 'Ingest batches answered, by outcome (applied, replayed, refused, conflict, busy).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly ingestRecords = new Counter({
    name: 'hadir_ingest_records_total',
    help: 'Records of applied ingest batches, by what became of them (upserted, deleted, stale, kept_erased).',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  readonly ingestDelay = new Histogram({
    name: 'hadir_ingest_delay_seconds',
    help: "From the platform's commit of a batch's oldest change (as its relay says) to Hadir's commit of the batch.",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });
  readonly exportRuns = new Counter({
    name: 'hadir_export_runs_total',
    help: 'Runs of deliveries to a bucket, by outcome (delivered, failed).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly exportDuration = new Histogram({
    name: 'hadir_export_run_duration_seconds',
    help: 'Time from a delivered run’s claim to its manifest.',
    buckets: [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: [this.registry],
  });
  readonly exportBytes = new Counter({
    name: 'hadir_export_bytes_total',
    help: 'Bytes of the files delivered to buckets.',
    registers: [this.registry],
  });

  constructor(options: { processMetrics?: boolean } = {}) {
    // Process metrics (CPU, memory, event-loop lag) are global; only a real server collects them.
    if (options.processMetrics) {
      collectDefaultMetrics({ register: this.registry });
      // Gauges prom-client names as counters (`_total`), which Prometheus' conventions (and
      // `promtool check metrics`) refuse; the handles and requests of a process tell little.
      for (const name of [
        'nodejs_active_handles_total',
        'nodejs_active_requests_total',
        'nodejs_active_resources_total',
      ]) {
        this.registry.removeSingleMetric(name);
      }
    }
  }

  /** Gauges read from the store's pool whenever metrics are scraped. */
  watchPool(store: Store): void {
    const stats = store.poolStats;
    if (!stats) return;
    const registry = this.registry;
    new Gauge({
      name: 'hadir_db_pool_connections',
      help: 'Database pool connections, by state (total, idle, waiting clients).',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        const now = stats();
        this.set({ state: 'total' }, now.total);
        this.set({ state: 'idle' }, now.idle);
        this.set({ state: 'waiting' }, now.waiting);
      },
    });
  }

  /**
   * The notification outbox, read from the store whenever metrics are scraped (one read a
   * scrape): deliveries waiting, how long the oldest due one has waited, how long the oldest
   * waiting one has gone undelivered, and the endpoints by state.
   */
  watchNotificationQueue(read: () => Promise<NotificationQueue>, now: () => number): void {
    let last: Promise<NotificationQueue> | undefined;
    const state = () => {
      last ??= read().finally(() => {
        setImmediate(() => {
          last = undefined;
        });
      });
      return last;
    };
    const age = (at: number | null) => (at === null ? 0 : Math.max(0, (now() - at) / 1000));
    new Gauge({
      name: 'hadir_notification_queue_depth',
      help: 'Notification deliveries waiting to be sent (due now or retrying later).',
      registers: [this.registry],
      async collect() {
        this.set((await state()).pending);
      },
    });
    new Gauge({
      name: 'hadir_notification_oldest_due_seconds',
      help: 'How long the oldest due notification delivery has waited to be sent.',
      registers: [this.registry],
      async collect() {
        this.set(age((await state()).oldestDueAt));
      },
    });
    new Gauge({
      name: 'hadir_notification_oldest_undelivered_seconds',
      help: 'How long ago the oldest notification delivery not yet delivered was made (due or retrying).',
      registers: [this.registry],
      async collect() {
        this.set(age((await state()).oldestPendingSince));
      },
    });
    new Gauge({
      name: 'hadir_notification_endpoints',
      help: 'Notification endpoints by state (enabled, failing, disabled).',
      labelNames: ['state'] as const,
      registers: [this.registry],
      async collect() {
        const { endpoints } = await state();
        for (const [name, count] of Object.entries(endpoints)) this.set({ state: name }, count);
      },
    });
  }

  /** The replica's lag as ReplicaChoice last measured it (-1 while unknown or unreachable). */
  watchReplica(lagMs: () => number): void {
    new Gauge({
      name: 'hadir_replica_lag_seconds',
      help: 'How far the read replica is behind the primary (-1 while unknown or unreachable).',
      registers: [this.registry],
      collect() {
        const lag = lagMs();
        this.set(Number.isFinite(lag) ? lag / 1000 : -1);
      },
    });
  }

  /**
   * The deliveries to buckets, read from the store whenever metrics are scraped: how many there
   * are, and how long ago the stalest of them last delivered (or was set up, before its first).
   */
  watchExports(
    read: () => Promise<{ count: number; oldestDeliveredAt: number | null }>,
    now: () => number,
  ): void {
    let last: Promise<{ count: number; oldestDeliveredAt: number | null }> | undefined;
    const state = () => {
      last ??= read().finally(() => {
        setImmediate(() => {
          last = undefined;
        });
      });
      return last;
    };
    new Gauge({
      name: 'hadir_exports',
      help: 'Deliveries to a bucket that are set up.',
      registers: [this.registry],
      async collect() {
        this.set((await state()).count);
      },
    });
    new Gauge({
      name: 'hadir_export_last_delivered_age_seconds',
      help: 'How long ago the stalest delivery last delivered (since it was set up, before its first run).',
      registers: [this.registry],
      async collect() {
        const { oldestDeliveredAt } = await state();
        this.set(oldestDeliveredAt === null ? 0 : Math.max(0, (now() - oldestDeliveredAt) / 1000));
      },
    });
  }

  /** The ingest API's batches and their delay, as the routes report them (see IngestObserver). */
  ingestObserver() {
    return {
      batch: (outcome: string) => this.ingestBatches.inc({ outcome }),
      applied: (counts: BatchCounts, delaySeconds: number | undefined) => {
        this.ingestRecords.inc({ result: 'upserted' }, counts.upserted);
        this.ingestRecords.inc({ result: 'deleted' }, counts.deleted);
        this.ingestRecords.inc({ result: 'stale' }, counts.stale);
        this.ingestRecords.inc({ result: 'kept_erased' }, counts.keptErased);
        if (delaySeconds !== undefined) this.ingestDelay.observe(delaySeconds);
      },
    };
  }

  /** Counts every answered request under its route pattern (never the raw URL: ids stay out). */
  register(app: FastifyInstance): void {
    app.addHook('onResponse', async (request, reply) => {
      const labels = {
        route: request.routeOptions.url ?? 'unmatched',
        method: request.method,
        status: String(reply.statusCode),
      };
      this.requests.inc(labels);
      this.latency.observe(labels, reply.elapsedTime / 1000);
    });
    app.addHook('onRequestAbort', async (request) => {
      const route = request.routeOptions.url ?? 'unmatched';
      this.requests.inc({ route, method: request.method, status: String(CLIENT_CLOSED_REQUEST) });
    });
  }
}
