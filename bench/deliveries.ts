import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccount } from '../src/accounts/accounts.service.ts';
import { systemClock } from '../src/clock.ts';
import { openStore } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { addExport } from '../src/exports/exports.service.ts';
import { importDocument } from '../src/import/import.service.ts';
import { issueKey } from '../src/keys/keys.service.ts';
import { HOUR_MS } from '../src/time-units.ts';
import { S3_CREDENTIALS } from '../test/helpers/s3-server.ts';
import { campaign, FIELDS, SMALL, timedPageOne } from './downloads.ts';
import { sampleChildrenRss, sampleRss, startHadir, startS3 } from './processes.ts';

const LARGE = { id: 'tamu-100k', rows: 100_000 };
const WARM_UP_MS = 3_000;
const TIMED_MS = 8_000;
/** Deliveries run back to back, so that the data API is timed during them for long enough. */
const RUNS = 3;

export interface DeliveriesRow {
  /** Runs of 100,000 respondents as Parquet and CSV, one after another, by the server's worker. */
  runs: number;
  rows: number;
  files: number;
  bytes: number;
  /** The slowest run, from its claim to its manifest, as its row records them. */
  seconds: number;
  idleRssBytes: number;
  peakRssBytes: number;
  /** The peak of a run's own process (SPEEDUPS_OFF=delivery-process: none, the run is the server's). */
  runProcessPeakRssBytes: number;
  /** The data API's page 1, one request at a time: before the runs, and while they ran. */
  restP50Ms: number;
  duringP50Ms: number;
  duringSamples: number;
}

/**
 * A scheduled delivery as a serving process runs it: a campaign of 100,000 respondents written as
 * Parquet and CSV to a local S3-compatible server, with the process's peak memory and the data
 * API's p50 at rest and while the run goes on (default settings: the 30-second check, the file
 * thread).
 */
export async function measureDeliveries(log: (line: string) => void): Promise<DeliveriesRow> {
  const folder = mkdtempSync(join(tmpdir(), 'hadir-bench-deliveries-'));
  const database = join(folder, 'deliveries.sqlite');
  const sealSecret = randomBytes(32).toString('hex');
  // In a process of its own: its work is not the bench client's.
  const s3 = await startS3(['partner']);
  const store = openStore(`sqlite:${database}`);
  let server: Awaited<ReturnType<typeof startHadir>> | undefined;
  try {
    await migrateToLatest(store);
    for (const { id, rows } of [SMALL, LARGE]) {
      await importDocument(store, systemClock, campaign(id, rows));
    }
    await createAccount(store, systemClock, { email: 'bi@hadir.test', mustChangePassword: false });
    const fields = FIELDS.map((field) => field.key);
    const dataKey = await issueKey(store, systemClock, {
      accountEmail: 'bi@hadir.test',
      scopes: [{ campaignId: SMALL.id, fields }],
    });
    const exportKey = await issueKey(store, systemClock, {
      accountEmail: 'bi@hadir.test',
      scopes: [{ campaignId: LARGE.id, fields }],
    });
    server = await startHadir({
      DATABASE_URL: `sqlite:${database}`,
      KEY_SEAL_SECRET: sealSecret,
    });
    await timedPageOne(server.url, dataKey.key, WARM_UP_MS);
    const restP50Ms = await timedPageOne(server.url, dataKey.key, TIMED_MS);
    const idleRssBytes = sampleRss(server.pid)();
    const peak = sampleRss(server.pid);
    const runProcessPeak = sampleChildrenRss(server.pid);
    // Three deliveries set up an hour ago: the server's next look (within 30 s) finds this
    // hour's slot of each due, and runs them one after another.
    const deliveries: Array<{ id: string }> = [];
    for (let n = 0; n < RUNS; n += 1) {
      deliveries.push(
        await addExport(
          {
            store,
            clock: { now: () => Date.now() - HOUR_MS },
            keySealKey: Buffer.from(sealSecret, 'hex'),
            actor: 'operator',
            allowPrivateNetworks: true,
          },
          {
            keyId: exportKey.id,
            to: `s3://partner/bench-${n}`,
            endpoint: s3.url,
            credentials: S3_CREDENTIALS,
            schedule: { every: '1h' },
            formats: ['parquet', 'csv'],
          },
        ),
      );
    }
    const runs = () =>
      store.db
        .selectFrom('export_runs')
        .selectAll()
        .where(
          'export_id',
          'in',
          deliveries.map((delivery) => delivery.id),
        )
        .execute();
    const deadline = Date.now() + 180_000;
    while ((await runs()).length === 0) {
      if (Date.now() > deadline) throw new Error('the server did not start a run');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Page 1 timed for as long as the runs go on.
    const times: number[] = [];
    for (;;) {
      const now = await runs();
      if (now.length === RUNS && now.every((run) => run.state !== 'running')) break;
      if (Date.now() > deadline) throw new Error('the runs did not finish');
      const started = performance.now();
      const answer = await fetch(
        `${server.url}/developer/v1/campaigns/${SMALL.id}/respondents?limit=50`,
        { headers: { authorization: `Bearer ${dataKey.key}`, 'x-forwarded-proto': 'https' } },
      );
      await answer.arrayBuffer();
      times.push(performance.now() - started);
    }
    const peakRssBytes = peak();
    const runProcessPeakRssBytes = runProcessPeak();
    const done = await runs();
    const failed = done.find((run) => run.state !== 'done');
    if (failed) throw new Error(`a run ended ${failed.state}: ${failed.error}`);
    times.sort((a, b) => a - b);
    const seconds = done.map((run) => (Number(run.finished_at) - Number(run.started_at)) / 1000);
    const row: DeliveriesRow = {
      runs: RUNS,
      rows: Number(done[0]?.rows),
      files: Number(done[0]?.files),
      bytes: Number(done[0]?.bytes),
      seconds: Math.max(...seconds),
      idleRssBytes,
      peakRssBytes,
      runProcessPeakRssBytes,
      restP50Ms,
      duringP50Ms: Math.round((times[Math.floor(times.length / 2)] ?? 0) * 100) / 100,
      duringSamples: times.length,
    };
    log(
      `  100,000 respondents as Parquet and CSV to a bucket, ${RUNS} runs: at most ${row.seconds.toFixed(1)} s each, ${(row.bytes / 1e6).toFixed(1)} MB, server RSS ${Math.round(idleRssBytes / 2 ** 20)} MiB idle, ${Math.round(peakRssBytes / 2 ** 20)} MiB at peak; a run's own process ${Math.round(runProcessPeakRssBytes / 2 ** 20)} MiB at peak`,
    );
    log(
      `  data API page 1, one at a time: p50 ${row.restP50Ms} ms at rest, ${row.duringP50Ms} ms during the runs (${row.duringSamples} requests)`,
    );
    return row;
  } finally {
    await server?.stop();
    await store.close();
    await s3.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}
