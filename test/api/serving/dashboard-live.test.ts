import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardQueries } from '../../../scripts/dashboard.ts';
import { systemClock } from '../../../src/clock.ts';
import { openStore, type Store } from '../../../src/db/connect.ts';
import { migrateToLatest } from '../../../src/db/migrate.ts';
import { createIngestToken } from '../../../src/ingest/ingest-tokens.service.ts';
import { HOUR_MS } from '../../../src/time-units.ts';
import { exitOf, runHadirInProcess, startHadir } from '../../helpers/cli.ts';
import { ManualClock } from '../../helpers/clock.ts';
import { exportsAdd, PARTNER_ENV } from '../../helpers/export-world.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';
import { BATCHES, jsonLines } from '../../helpers/ingest-batch.ts';
import { type PostgresCluster, startPostgresCluster } from '../../helpers/postgres-cluster.ts';
import { type RunningPrometheus, startPrometheus } from '../../helpers/prometheus.ts';
import { TestReceiver } from '../../helpers/receiver.ts';
import { startS3Server, type TestS3 } from '../../helpers/s3-server.ts';
import { until } from '../../helpers/until.ts';

/**
 * The whole path on one serve process, as an operator runs it: PostgreSQL with a streaming
 * replica, an ingest batch from the platform, a notification to a partner, a delivery to a
 * bucket; Debian's Prometheus scraping it with the shipped rules. Every panel of the dashboard
 * then shows something.
 */
describe('the dashboard against a real Prometheus scraping a serve process', () => {
  let primary: PostgresCluster;
  let standby: PostgresCluster;
  let store: Store;
  let s3: TestS3;
  let receiver: TestReceiver;
  let prometheus: RunningPrometheus | undefined;
  let server: Awaited<ReturnType<typeof startHadir>> | undefined;
  let apiKey: string;
  let token: string;

  beforeAll(async () => {
    primary = await startPostgresCluster();
    const admin = new pg.Client({ connectionString: primary.url('postgres') });
    await admin.connect();
    await admin.query('CREATE DATABASE hadir');
    await admin.end();
    store = openStore(primary.url('hadir'));
    await migrateToLatest(store);
    await seedCampaign(store, systemClock, {
      id: 'c',
      fields: [{ key: 'nama', type: 'TEXT' }],
      respondents: [{ id: 'r1', submittedAt: '2026-11-01T00:00:00Z', answers: { nama: 'Ayu' } }],
    });
    const key = await createTestKey(store, systemClock, [{ campaignId: 'c', fields: ['nama'] }]);
    apiKey = key.key;
    token = (await createIngestToken(store, systemClock, 'relay', 'operator')).token;
    receiver = await TestReceiver.start();
    s3 = await startS3Server(['partner']);
    const databaseUrl = primary.url('hadir');
    const env = { WEBHOOKS_ALLOW_PRIVATE_NETWORKS: '1', ...PARTNER_ENV };
    const cli = (args: string[], clock = new ManualClock(Date.now())) =>
      runHadirInProcess(args, { databaseUrl, env, clock });
    expect((await cli(['webhooks', 'add', '--key', key.id, '--url', receiver.url])).status).toBe(0);
    // Set up an hour ago: its slot is due as serve starts.
    const added = await cli(
      exportsAdd(key.id, s3.endpoint, [
        '--to',
        's3://partner/live',
        '--every',
        '1h',
        '--format',
        'csv',
      ]),
      new ManualClock(Date.now() - HOUR_MS),
    );
    expect(added.status, added.stderr).toBe(0);
    standby = await startPostgresCluster({ standbyOf: primary.port });
  }, 120_000);
  afterAll(async () => {
    await prometheus?.stop();
    if (server) {
      server.child.kill('SIGTERM');
      await exitOf(server.child);
    }
    await receiver?.close();
    await s3?.close();
    await store?.close();
    await standby?.stop();
    await primary?.stop();
  });

  it('has no empty panel once the path has carried a change', async () => {
    server = await startHadir(['serve', '--port', '0', '--json'], {
      databaseUrl: primary.url('hadir'),
      env: {
        DATABASE_READ_URL: standby.url('hadir'),
        METRICS_PORT: '0',
        WEBHOOKS_ALLOW_PRIVATE_NETWORKS: '1',
      },
      ready: /^\{"url":"(http:\/\/[^"]+)".*"metricsUrl":"http:\/\/([^/"]+)/m,
    });
    const [, base, metricsHost] = server.match as unknown as [string, string, string];
    prometheus = await startPrometheus([metricsHost]);
    const scraper = prometheus;
    await until(() => scraper.scraped(), 'the first scrape');

    // The path carries a change: a batch from the platform, read by a partner, notified.
    const batch = await fetch(`${base}${BATCHES}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/x-ndjson',
        'idempotency-key': 'live-1',
        'hadir-oldest-change': new Date(Date.now() - 1_500).toISOString(),
      },
      body: jsonLines({
        type: 'respondent',
        id: 'r2',
        campaignId: 'c',
        submittedAt: '2026-11-02T00:00:00Z',
        attendanceStatus: 'YES',
        answers: { nama: 'Budi' },
      }),
    });
    expect(batch.status).toBe(200);
    for (let n = 0; n < 20; n++) {
      const page = await fetch(`${base}/developer/v1/campaigns/c/respondents`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      await page.arrayBuffer();
    }
    await until(() => receiver.received.length > 0, 'the notification');
    await until(async () => (await s3.keys('partner', 'live/')).length > 1, 'the delivery');

    const queries = dashboardQueries();
    let empty: string[] = queries;
    await until(async () => {
      const results = await Promise.all(queries.map((expr) => scraper.query(expr)));
      empty = queries.filter((_, index) => results[index]?.length === 0);
      return empty.length === 0;
    }, 'every panel to show something').catch(() => {});
    expect(empty).toEqual([]);
  });
});
