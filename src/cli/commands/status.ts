import { listExports } from '../../exports/exports.service.ts';
import { toIso } from '../../instant.ts';
import { queueState } from '../../notifications/deliveries.repository.ts';
import { listEndpoints } from '../../notifications/endpoints.service.ts';
import type { Command, Context } from '../command.ts';
import { withStore } from '../command.ts';
import { UsageError } from '../usage-error.ts';

/** One sample of a Prometheus text scrape: its name, labels and value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parseScrape(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[key as string] = value as string;
    }
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The quantile of a histogram from its cumulative buckets (since the process started). */
function quantile(samples: Sample[], name: string, q: number): number | undefined {
  const buckets = new Map<number, number>();
  for (const sample of samples.filter((s) => s.name === `${name}_bucket`)) {
    const le = sample.labels.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(sample.labels.le);
    buckets.set(le, (buckets.get(le) ?? 0) + sample.value);
  }
  const sorted = [...buckets].sort(([a], [b]) => a - b);
  const total = sorted.at(-1)?.[1] ?? 0;
  if (total === 0) return undefined;
  const found = sorted.find(([, count]) => count >= q * total);
  return found?.[0];
}

const sum = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((total, s) => total + s.value, 0);

/** What `serve` says of itself on its metrics port, when one is given or configured. */
async function scrape(context: Context): Promise<{ url: string; samples: Sample[] } | undefined> {
  const given = context.values.metrics;
  const port = context.config.metricsPort;
  const url =
    typeof given === 'string'
      ? given
      : port !== undefined && port !== 0
        ? `http://${context.config.metricsHost}:${port}/metrics`
        : undefined;
  if (!url) return undefined;
  try {
    const answer = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    if (!answer.ok) throw new Error(`it answered ${answer.status}`);
    return { url, samples: parseScrape(await answer.text()) };
  } catch (error) {
    throw new UsageError(`cannot read the metrics at ${url}: ${(error as Error).message}`);
  }
}

const ago = (ms: number) => {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 120) return `${seconds} s ago`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min ago`;
  return `${Math.round(seconds / 3600)} h ago`;
};

export const STATUS_COMMANDS: Record<string, Command> = {
  status: {
    summary:
      "The live path at a glance: ingest, notifications, deliveries to buckets, the replica, and what failed last; from the store and serve's metrics.",
    example: 'status --metrics http://127.0.0.1:9464/metrics',
    usage: 'status [--metrics URL]',
    options: { metrics: { type: 'string' } },
    async run(context) {
      const now = context.clock.now();
      const facts = await withStore(context, async (store) => {
        const lastBatch = await store.db
          .selectFrom('ingest_tokens')
          .select((eb) => eb.fn.max('last_used_at').as('at'))
          .where('revoked_at', 'is', null)
          .executeTakeFirst();
        return {
          lastBatchAt: lastBatch?.at == null ? null : Number(lastBatch.at),
          queue: await queueState(store.db, now),
          endpoints: await listEndpoints({ store }),
          exports: await listExports({ store, clock: context.clock }),
        };
      });
      const metrics = await scrape(context);
      const samples = metrics?.samples ?? [];
      const failing = facts.endpoints.filter((e) => e.status === 'enabled' && e.failingSince);
      const disabled = facts.endpoints.filter((e) => e.status === 'disabled');
      const json = {
        at: toIso(now),
        ingest: {
          lastBatchAt: facts.lastBatchAt === null ? null : toIso(facts.lastBatchAt),
          ...(metrics
            ? {
                delayP50Seconds: quantile(samples, 'hadir_ingest_delay_seconds', 0.5) ?? null,
                delayP99Seconds: quantile(samples, 'hadir_ingest_delay_seconds', 0.99) ?? null,
                batchesRefused: sum(samples, 'hadir_ingest_batches_total', { outcome: 'refused' }),
              }
            : {}),
        },
        notifications: {
          waiting: facts.queue.pending,
          oldestDueSeconds:
            facts.queue.oldestDueAt === null ? 0 : (now - facts.queue.oldestDueAt) / 1000,
          endpoints: facts.endpoints.length,
          failing: failing.map((e) => ({ id: e.id, since: e.failingSince })),
          disabled: disabled.map((e) => ({ id: e.id, reason: e.disabledReason })),
        },
        deliveries: facts.exports.map((view) => ({
          id: view.id,
          to: view.to,
          lastRun: view.lastRun,
          nextRunAt: view.nextRunAt,
        })),
        ...(metrics
          ? {
              replica: samples.some((s) => s.name === 'hadir_replica_lag_seconds')
                ? { lagSeconds: sum(samples, 'hadir_replica_lag_seconds') }
                : null,
              dataApi: {
                requests: sum(samples, 'hadir_http_requests_total'),
                serverErrors: samples
                  .filter(
                    (s) =>
                      s.name === 'hadir_http_requests_total' && /^5/.test(s.labels.status ?? ''),
                  )
                  .reduce((total, s) => total + s.value, 0),
              },
              metricsFrom: metrics.url,
            }
          : {}),
      };
      const lines = [
        `ingest         ${facts.lastBatchAt === null ? 'no batch yet' : `last batch ${ago(now - facts.lastBatchAt)} (within a minute)`}${
          metrics && json.ingest.delayP99Seconds != null
            ? `; commit to applied p50 ${json.ingest.delayP50Seconds} s, p99 ${json.ingest.delayP99Seconds} s (buckets, since start)`
            : ''
        }`,
        `notifications  ${facts.queue.pending} waiting, the oldest due for ${Math.round(json.notifications.oldestDueSeconds)} s; ${facts.endpoints.length} endpoints, ${failing.length} failing, ${disabled.length} turned off`,
        ...failing.map((e) => `  failing since ${e.failingSince}: ${e.id} ${e.url}`),
        `deliveries     ${facts.exports.length} set up`,
        ...facts.exports.map((view) => {
          const last = view.lastRun;
          const state = !last
            ? `first run ${view.nextRunAt}`
            : last.state === 'failed'
              ? `FAILED ${last.finishedAt}: ${last.error}`
              : `${last.state} ${last.finishedAt ?? ''}`;
          return `  ${view.id} ${view.to}: ${state}`;
        }),
        metrics
          ? `replica        ${json.replica ? `lag ${json.replica.lagSeconds} s` : 'none configured'}`
          : 'replica, data API: give --metrics URL (or set METRICS_PORT) to read serve’s metrics',
        ...(metrics && json.dataApi
          ? [
              `data API       ${json.dataApi.requests} requests, ${json.dataApi.serverErrors} answered 5xx, since this serve started`,
            ]
          : []),
      ];
      return { json, text: lines.join('\n') };
    },
  },
};
