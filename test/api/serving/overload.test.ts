import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metrics } from '../../../src/http/metrics.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';
import { lockWaiters } from '../../helpers/lock-waiters.ts';
import { createTestDatabaseUrl, openTestStore } from '../../helpers/stores.ts';
import { until } from '../../helpers/until.ts';

const BASE = '/developer/v1';

describe('the overload guard', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp('sqlite', { maxEventLoopDelayMs: 50, overloadSampleIntervalMs: 50 });
    await seedCampaign(t.store, t.clock, { id: 'c' });
    key = (await createTestKey(t.store, t.clock, [{ campaignId: 'c', fields: [] }])).key;
  });
  afterAll(() => t.close());

  it('sheds data requests with 503 and Retry-After while the event loop lags, then serves again', async () => {
    expect((await t.get(`${BASE}/campaigns`, key)).status).toBe(200);
    // A sustained backlog of synchronous work, as a burst of SQLite reads would make; between
    // blocks the loop turns once, so the guard samples a delay of about 100 ms each time.
    for (let block = 0; block < 5; block++) {
      const busyUntil = performance.now() + 100;
      while (performance.now() < busyUntil) {}
      await new Promise((resolve) => setImmediate(resolve));
    }
    const shed = await t.get(`${BASE}/campaigns`, key);
    expect(shed.status).toBe(503);
    expect(shed.headers['retry-after']).toBe('1');
    expect(shed.body.error.code).toBe('service_unavailable');
    // Health checks are not data requests: they still answer.
    expect((await t.get('/healthz')).status).toBe(200);
    await until(async () => (await t.get(`${BASE}/campaigns`, key)).status === 200, 'recovery');
  });
});

describe('a client that disconnects while its request waits (PostgreSQL)', () => {
  let t: TestApp;
  let key: string;
  let admin: pg.Client;
  const metrics = new Metrics();

  beforeAll(async () => {
    const url = await createTestDatabaseUrl('postgres');
    t = await startTestApp(await openTestStore(url), { metrics });
    await seedCampaign(t.store, t.clock, {
      id: 'c',
      respondents: [{ id: 'r1', submittedAt: '2026-03-01T10:00:00Z' }],
    });
    key = (await createTestKey(t.store, t.clock, [{ campaignId: 'c', fields: [] }])).key;
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await t?.close();
  });

  it('abandons the work instead of reading the page for nobody', async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as AddressInfo;
    await admin.query('BEGIN');
    await admin.query('LOCK TABLE campaigns IN ACCESS EXCLUSIVE MODE');
    const request = httpRequest({
      host: '127.0.0.1',
      port,
      path: `${BASE}/campaigns/c/respondents`,
      headers: { authorization: `Bearer ${key}` },
    });
    request.on('error', () => {});
    request.end();
    await until(async () => (await lockWaiters(admin)) > 0, 'the request to wait on the lock');
    request.destroy();
    await until(
      () => t.logs.some((line) => line.msg === 'data access' && line.status === 499),
      'the server to notice the disconnect',
    );
    await admin.query('COMMIT');

    await until(
      () =>
        t.logs.some(
          (line) =>
            line.msg === 'the client closed the connection before its answer; nothing was sent',
        ),
      'the handler to give up',
    );
    // The page was never looked up, let alone read.
    expect((await metrics.cacheLookups.get()).values).toEqual([]);
    const answered = await metrics.requests.get();
    expect(answered.values).toContainEqual(
      expect.objectContaining({
        labels: { route: `${BASE}/campaigns/:id/respondents`, method: 'GET', status: '499' },
        value: 1,
      }),
    );
  });
});
