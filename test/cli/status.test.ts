import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/db/connect.ts';
import { claimRun, failRun } from '../../src/exports/exports.repository.ts';
import { addExport } from '../../src/exports/exports.service.ts';
import { Metrics } from '../../src/http/metrics.ts';
import { addEndpoint, sendTestEvent } from '../../src/notifications/endpoints.service.ts';
import { webhookSealKey } from '../../src/notifications/signing.ts';
import { runHadirInProcess, TEST_SECRET_ENV } from '../helpers/cli.ts';
import { ManualClock } from '../helpers/clock.ts';
import { createTestKey, seedCampaign } from '../helpers/factories.ts';
import { createTestDatabaseUrl, openTestStore } from '../helpers/stores.ts';

describe('hadir status', () => {
  let databaseUrl: string;
  let store: Store;
  let server: Server;
  let metricsUrl: string;
  const clock = new ManualClock('2026-11-28T01:00:00Z');
  const sealKey = Buffer.from(TEST_SECRET_ENV.KEY_SEAL_SECRET, 'hex');

  beforeAll(async () => {
    databaseUrl = await createTestDatabaseUrl('sqlite');
    store = await openTestStore(databaseUrl);
    await seedCampaign(store, clock, { id: 'nikah' });
    const key = await createTestKey(store, clock, [{ campaignId: 'nikah', fields: [] }]);
    // A notification waiting to go, queued 90 s ago.
    const { endpoint } = await addEndpoint(
      {
        store,
        clock,
        sealKey: webhookSealKey(sealKey),
        allowPrivateNetworks: true,
        actor: 'operator',
      },
      { keyId: key.id, url: 'http://127.0.0.1:9/in' },
    );
    await sendTestEvent(
      {
        store,
        clock,
        sealKey: webhookSealKey(sealKey),
        allowPrivateNetworks: true,
        actor: 'operator',
      },
      endpoint.id,
    );
    // A delivery whose run failed, in words.
    const delivery = await addExport(
      { store, clock, keySealKey: sealKey, actor: 'operator', allowPrivateNetworks: true },
      {
        keyId: key.id,
        to: 's3://partner/x',
        endpoint: 'http://127.0.0.1:9',
        credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
        schedule: { every: '1h' },
        formats: ['csv'],
      },
    );
    const claim = await claimRun(
      store.db,
      { exportId: delivery.id, runAt: clock.now() },
      clock.now(),
      60_000,
    );
    if (!claim) throw new Error('not claimed');
    await failRun(store.db, claim, {
      at: clock.now(),
      error: 'NoSuchBucket (HTTP 404): the bucket does not exist',
      retryAt: null,
    });
    clock.advance(90_000);
    // serve's metrics: two batches 0.3 s and 4 s behind the platform, a replica 2 s behind.
    const metrics = new Metrics();
    const observer = metrics.ingestObserver();
    observer.batch('applied');
    observer.batch('refused');
    metrics.ingestDelay.observe(0.3);
    metrics.ingestDelay.observe(4);
    metrics.watchReplica(() => 2_000);
    metrics.requests.inc({ route: '/developer/v1/campaigns', method: 'GET', status: '200' }, 98);
    metrics.requests.inc({ route: '/developer/v1/campaigns', method: 'GET', status: '503' }, 2);
    server = createServer(async (_request, response) => {
      response.end(await metrics.registry.metrics());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    metricsUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
  });
  afterAll(async () => {
    server?.close();
    await store?.close();
  });

  const hadir = (args: string[]) => runHadirInProcess(args, { databaseUrl, clock });

  it('prints the live path from the store and the metrics, in words and as JSON', async () => {
    const text = await hadir(['status', '--metrics', metricsUrl]);
    expect(text.stderr).toBe('');
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/notifications {2}1 waiting, the oldest due for 90 s; 1 endpoints/);
    expect(text.stdout).toContain('FAILED 2026-11-28T01:00:00.000Z: NoSuchBucket (HTTP 404)');
    expect(text.stdout).toContain('replica        lag 2 s');
    expect(text.stdout).toContain('commit to applied p50 0.5 s, p99 5 s');
    expect(text.stdout).toContain('data API       100 requests, 2 answered 5xx');

    const json = JSON.parse((await hadir(['status', '--metrics', metricsUrl, '--json'])).stdout);
    expect(json.notifications).toMatchObject({ waiting: 1, oldestDueSeconds: 90, endpoints: 1 });
    expect(json.ingest).toMatchObject({ delayP99Seconds: 5, batchesRefused: 1 });
    expect(json.replica).toEqual({ lagSeconds: 2 });
    expect(json.deliveries[0].lastRun).toMatchObject({ state: 'failed' });
  });

  it('reads the store alone without metrics, and says how to add them', async () => {
    const text = await hadir(['status']);
    expect(text.status).toBe(0);
    expect(text.stdout).toContain('give --metrics URL (or set METRICS_PORT)');
  });

  it('says plainly when the metrics cannot be read', async () => {
    const refused = await hadir(['status', '--metrics', 'http://127.0.0.1:9/metrics']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(
      /^hadir status: cannot read the metrics at http:\/\/127\.0\.0\.1:9\/metrics/,
    );
  });
});
