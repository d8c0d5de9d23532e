import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/db/connect.ts';
import { migrateToLatest } from '../../../src/db/migrate.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';
import { type PostgresCluster, startPostgresCluster } from '../../helpers/postgres-cluster.ts';
import { until } from '../../helpers/until.ts';

const BASE = '/developer/v1';

// A cluster of this file's own: the test stops its processes, which the suite's shared one must
// never be.
describe('a PostgreSQL server that stops answering (SIGSTOP)', () => {
  let cluster: PostgresCluster;
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    const admin = new pg.Client({ connectionString: cluster.url('postgres') });
    await admin.connect();
    await admin.query('CREATE DATABASE hadir');
    await admin.end();
    // Shortened client-side bounds, so the test waits seconds where production waits about ten.
    const store = openStore(cluster.url('hadir'), {
      timeouts: { statementMs: 1_000, queryMs: 1_500, connectionMs: 1_000 },
    });
    await migrateToLatest(store);
    t = await startTestApp(store, {
      outageTimings: { probeIntervalMs: 100, reportIntervalMs: 400 },
    });
    await seedCampaign(t.store, t.clock, {
      id: 'c',
      respondents: [{ id: 'r1', submittedAt: '2026-11-01T00:00:00Z' }],
    });
    key = (await createTestKey(t.store, t.clock, [{ campaignId: 'c', fields: [] }])).key;
  });
  afterAll(async () => {
    cluster?.thaw();
    await t?.close();
    await cluster?.stop();
  });

  it('answers 503 with Retry-After within its bounds, logs the outage once, and resumes by itself', async () => {
    expect((await t.get(`${BASE}/campaigns/c/summary`, key)).status).toBe(200);
    cluster.freeze();

    // Not known to be down yet: /readyz asks, and gives up after its own short bound.
    let started = Date.now();
    expect((await t.get('/readyz')).status).toBe(503);
    expect(Date.now() - started).toBeLessThan(3_000);

    started = Date.now();
    const answers = await Promise.all([
      t.get(`${BASE}/campaigns`, key),
      t.get(`${BASE}/campaigns/c/summary`, key),
      t.get(`${BASE}/campaigns/c/respondents`, key),
      t.app.inject({
        method: 'POST',
        url: '/developer/auth/login',
        payload: { email: 'someone@example.test', password: 'a-password-here' },
      }),
    ]);
    expect(Date.now() - started).toBeLessThan(5_000);
    const [list, summary, page, login] = answers;
    for (const answer of [list, summary, page]) {
      expect(answer?.status).toBe(503);
      expect(answer?.headers['retry-after']).toBe('5');
      expect(answer?.body.error.code).toBe('service_unavailable');
    }
    expect(login?.statusCode).toBe(503);
    expect(login?.headers['retry-after']).toBe('5');
    expect(login?.json().error.code).toBe('service_unavailable');
    // Still bounded while the outage lasts.
    started = Date.now();
    expect((await t.get('/readyz')).status).toBe(503);
    expect(Date.now() - started).toBeLessThan(3_000);

    await until(
      () => t.logs.some((line) => line.msg === 'the data store is still unreachable'),
      'a report of the outage',
    );
    cluster.thaw();
    await until(async () => (await t.get('/readyz')).status === 200, 'readiness');
    expect((await t.get(`${BASE}/campaigns/c/summary`, key)).status).toBe(200);

    const outage = t.logs.filter((line) => String(line.msg).startsWith('the data store'));
    expect(outage[0]).toMatchObject({
      level: 40,
      msg: 'the data store is unreachable; requests that need it get 503 until it is back',
      cause: { message: expect.any(String) },
    });
    expect(outage.filter((line) => line.msg === outage[0]?.msg)).toHaveLength(1);
    expect(outage.at(-1)).toMatchObject({
      msg: 'the data store is reachable again',
      refused: expect.any(Number),
    });
    expect(outage.at(-1)?.refused).toBeGreaterThanOrEqual(5);
    // No stack per refused request: the whole outage is a few lines.
    expect(JSON.stringify(t.logs)).not.toContain('"stack"');
  });
});
