import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { workerNamesFor } from '../../src/serving/workers.ts';
import { exitOf, startHadir } from '../helpers/cli.ts';
import { createTestKey, seedCampaign } from '../helpers/factories.ts';
import { lockWaiters } from '../helpers/lock-waiters.ts';
import { createTestDatabaseUrl, openTestStore } from '../helpers/stores.ts';
import { until } from '../helpers/until.ts';

describe('SIGTERM while a request is in flight (PostgreSQL)', () => {
  let databaseUrl: string;
  let key: string;
  let admin: pg.Client;

  beforeAll(async () => {
    databaseUrl = await createTestDatabaseUrl('postgres');
    const store = await openTestStore(databaseUrl);
    await seedCampaign(store, systemClock, { id: 'c' });
    key = (await createTestKey(store, systemClock, [{ campaignId: 'c', fields: [] }])).key;
    await store.close();
    admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
  });

  it('finishes the request, refuses new connections, and exits 0', async () => {
    const server = await startHadir(['serve', '--port', '0', '--json'], {
      databaseUrl,
      ready: /^\{"url":"(http:\/\/[^"]+)",/m,
    });
    // Whatever happens below, the server does not outlive the test.
    onTestFinished(() => {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    });
    const url = server.match[1] as string;
    // Holding this lock keeps the request waiting inside the server for as long as the test likes.
    await admin.query('BEGIN');
    await admin.query('LOCK TABLE campaigns IN ACCESS EXCLUSIVE MODE');
    const slow = fetch(`${url}/developer/v1/campaigns/c/summary`, {
      headers: { authorization: `Bearer ${key}` },
    });
    // (The waiting statement may still show its predecessor's text: the lock is taken at parse.)
    await until(async () => (await lockWaiters(admin)) > 0, 'the request to wait on the lock');

    server.child.kill('SIGTERM');
    await until(async () => {
      try {
        await fetch(`${url}/healthz`);
        return false;
      } catch (error) {
        return /ECONNREFUSED/.test(String((error as Error).cause ?? error));
      }
    }, 'new connections to be refused');
    expect(server.child.exitCode).toBeNull();

    await admin.query('COMMIT');
    const response = await slow;
    expect(response.status).toBe(200);
    expect(((await response.json()) as { campaign: { id: string } }).campaign.id).toBe('c');
    expect(await exitOf(server.child)).toBe(0);
  });
});

describe.each([1, 2])('metrics on their own port, with WORKERS=%i', (workers) => {
  it('counts requests by route and status, is not served publicly, and stops with status 0', async () => {
    const databaseUrl = await createTestDatabaseUrl('sqlite');
    const server = await startHadir(['serve', '--port', '0', '--json'], {
      databaseUrl,
      env: { METRICS_PORT: '0', WORKERS: String(workers), LOG_LEVEL: 'info' },
      ready: /^\{"url":"(http:\/\/[^"]+)".*"metricsUrl":"(http:\/\/[^"]+)"/m,
    });
    try {
      // Each serving process starts the workers the table gives its kind (src/serving/workers.ts).
      const started = () =>
        server
          .output()
          .split('\n')
          .filter((line) => line.includes('"workers started"'))
          .map((line) => (JSON.parse(line) as { workers: string[] }).workers);
      await until(() => started().length === workers, 'each process to start its workers');
      const kind = (housekeeper: boolean) =>
        workerNamesFor({
          engine: 'sqlite',
          role: workers === 1 ? 'alone' : 'cluster worker',
          housekeeper,
        });
      expect(started().sort((a, b) => b.length - a.length)).toEqual(
        workers === 1 ? [kind(true)] : [kind(true), kind(false)],
      );
      const [, url, metricsUrl] = server.match as unknown as [string, string, string];
      for (let n = 0; n < 4; n++) {
        expect((await fetch(`${url}/developer/v1/campaigns`)).status).toBe(401);
      }
      expect((await fetch(`${url}/metrics`)).status).toBe(404);
      const text = await (await fetch(metricsUrl)).text();
      // With two workers the primary adds up what each worker counted.
      expect(text).toContain(
        'hadir_http_requests_total{route="/developer/v1/campaigns",method="GET",status="401"} 4',
      );
      expect(text).toMatch(/^hadir_http_request_duration_seconds_bucket\{/m);
      expect(text).toContain('hadir_rate_limit_rejections_total');
      // Every series of the whole path is there, named as Prometheus' conventions ask.
      for (const name of [
        'hadir_ingest_delay_seconds',
        'hadir_ingest_batches_total',
        'hadir_export_runs_total',
        'hadir_export_last_delivered_age_seconds',
        'hadir_notification_oldest_due_seconds',
        'process_resident_memory_bytes',
        'nodejs_eventloop_lag_seconds',
      ]) {
        expect(text).toContain(`# TYPE ${name} `);
      }
      const lint = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
      expect(lint.error).toBeUndefined();
      expect(`${lint.stdout}${lint.stderr}`.trim()).toBe('');
      expect(lint.status).toBe(0);
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await exitOf(server.child)).toBe(0);
  });
});
