#!/usr/bin/env node
import { IngestClient } from './ingest-client.ts';
import { RelayStopped, runRelay } from './relay.ts';
import { startTracing } from './tracing.ts';

// hadir-relay: drains the platform's outbox into Hadir. Settings from the environment only, so
// the token never sits in a process list.
const env = process.env;
const missing = ['HADIR_INGEST_URL', 'HADIR_INGEST_TOKEN', 'RELAY_SOURCE_URL'].filter(
  (name) => !env[name],
);
if (missing.length > 0 || process.argv.length > 2) {
  process.stderr.write(
    `hadir-relay: set ${missing.join(', ') || 'its settings'} in the environment (it takes no arguments):
  HADIR_INGEST_URL     where Hadir's ingest API is, e.g. https://hadir.example.com
  HADIR_INGEST_TOKEN   an ingest token (./bin/hadir ingest-tokens create --name relay)
  RELAY_SOURCE_URL     the platform's PostgreSQL, e.g. postgres://relay@db/platform
  RELAY_TABLE          the outbox table (hadir_outbox); refused records go to RELAY_TABLE_rejected
  RELAY_BATCH_SIZE     rows per batch, 1 to 1000 (500)
  RELAY_POLL_MS        how often it looks when no NOTIFY woke it (1000)
`,
  );
  process.exit(2);
}
const table = env.RELAY_TABLE || 'hadir_outbox';
const batchSize = Number(env.RELAY_BATCH_SIZE || 500);
const pollMs = Number(env.RELAY_POLL_MS || 1_000);
if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 1_000) {
  process.stderr.write('hadir-relay: RELAY_BATCH_SIZE must be a whole number from 1 to 1000\n');
  process.exit(2);
}
// Each line says when: a service manager's journal has its own times, a plain log file does not.
const log = (line: string) =>
  process.stderr.write(`${new Date().toISOString()} hadir-relay: ${line}\n`);
const stop = new AbortController();
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => stop.abort());
const client = new IngestClient({
  baseUrl: env.HADIR_INGEST_URL as string,
  token: env.HADIR_INGEST_TOKEN as string,
  onRetry: (event) => log(`${event.reason}; sending again in ${Math.ceil(event.waitMs / 1000)} s`),
});
// Traces, when the OTEL_* variables ask for them (see tracing.ts).
const tracing = await startTracing(env);
try {
  log(`draining ${table} into ${env.HADIR_INGEST_URL}`);
  await runRelay(
    client,
    {
      sourceUrl: env.RELAY_SOURCE_URL as string,
      table,
      rejectedTable: `${table}_rejected`,
      batchSize,
      pollMs,
    },
    stop.signal,
    log,
  );
} catch (error) {
  log(error instanceof RelayStopped ? `stopped: ${error.message}` : (error as Error).message);
  await tracing?.shutdown().catch(() => {});
  process.exit(1);
}
await tracing?.shutdown().catch(() => {});
