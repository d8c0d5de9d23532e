import { type AddressInfo, connect } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/db/connect.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';
import { createTestDatabaseUrl, ENGINES } from '../../helpers/stores.ts';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.ts';
import { until } from '../../helpers/until.ts';

const BASE = '/developer/v1';

describe('an unreachable PostgreSQL store', () => {
  let t: TestApp;
  let proxy: TcpProxy;
  let key: string;

  beforeAll(async () => {
    const url = new URL(await createTestDatabaseUrl('postgres'));
    proxy = await startTcpProxy(Number(url.port));
    url.port = String(proxy.port);
    t = await startTestApp(openStore(url.toString()));
    await seedCampaign(t.store, t.clock, {
      id: 'c',
      respondents: [{ id: 'r', submittedAt: '2026-11-01T00:00:00Z' }],
    });
    ({ key } = await createTestKey(t.store, t.clock, [{ campaignId: 'c', fields: [] }]));
  });
  afterAll(async () => {
    await t.close();
    await proxy.close();
  });

  it('caps every statement with a server-side timeout', async () => {
    const { rows } = await sql<{ statement_timeout: string }>`SHOW statement_timeout`.execute(
      t.store.db,
    );
    expect(rows[0]?.statement_timeout).toBe('6s');
  });

  it('answers 503 with Retry-After (never 401 or 200) and recovers by itself', async () => {
    expect((await t.get(`${BASE}/campaigns/c/respondents`, key)).status).toBe(200);
    await proxy.cut();
    for (const url of [
      `${BASE}/campaigns`,
      `${BASE}/campaigns/c/summary`,
      `${BASE}/campaigns/c/respondents`,
    ]) {
      const response = await t.get(url, key);
      expect(response.status).toBe(503);
      expect(response.body.error.code).toBe('service_unavailable');
      expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
    }
    const notReady = await t.get('/readyz');
    expect(notReady.status).toBe(503);
    expect(notReady.body.error.code).toBe('service_unavailable');
    expect((await t.get('/healthz')).body).toEqual({ status: 'ok' });
    await proxy.restore();
    expect((await t.get('/readyz')).body).toEqual({ status: 'ready' });
    const recovered = await t.get(`${BASE}/campaigns/c/respondents`, key);
    expect(recovered.status).toBe(200);
    expect(recovered.body.data).toHaveLength(1);
  });
});

describe.each(ENGINES)('failures and the access log on %s', (engine) => {
  let t: TestApp;
  let key: string;
  let keyId: string;
  let accountId: string;

  beforeAll(async () => {
    t = await startTestApp(engine);
    await seedCampaign(t.store, t.clock, {
      id: 'c',
      fields: [{ key: 'menu', type: 'RADIO' }],
      respondents: [
        {
          id: 'r1',
          submittedAt: '2026-11-01T00:00:00Z',
          answers: { menu: 'Rendang', nama: 'Siti Rahayu' },
          token: 'secret-token',
        },
      ],
    });
    const created = await createTestKey(t.store, t.clock, [
      { campaignId: 'c', fields: ['menu', 'nama'] },
    ]);
    ({ key } = created);
    keyId = created.id;
    accountId = created.account.id;
  });
  afterAll(() => t.close());

  it('logs each data request with key, account, campaign, served field keys and row count, never a value or key', async () => {
    const response = await t.get(`${BASE}/campaigns/c/respondents`, key);
    const line = t.logs.find((entry) => entry.requestId === response.headers['x-request-id']);
    expect(line).toMatchObject({
      msg: 'data access',
      keyId,
      accountId,
      clientAddress: '127.0.0.1',
      campaignId: 'c',
      fieldKeys: ['menu', 'nama'],
      rows: 1,
      status: 200,
    });
    expect(typeof line?.time).toBe('number');
    const everything = JSON.stringify(t.logs);
    for (const secret of [key, key.slice(9), 'Rendang', 'Siti Rahayu', 'secret-token', 'Bearer']) {
      expect(everything).not.toContain(secret);
    }
  });

  it('answers an unexpected failure with 500 internal_error, no stack, logged under the request id', async () => {
    await sql`DROP TABLE answer_counts`.execute(t.store.db);
    const response = await t.get(`${BASE}/campaigns/c/summary`, key);
    expect(response.status).toBe(500);
    expect(response.body).toEqual({
      error: { code: 'internal_error', message: 'an unexpected error occurred' },
    });
    expect(response.raw).not.toMatch(/answer_counts|at .*\.ts/);
    const logged = t.logs.find(
      (entry) => entry.requestId === response.headers['x-request-id'] && entry.level === 50,
    );
    expect(logged?.msg).toBe('request failed');
  });
});

describe('a client that leaves in the middle of its request', () => {
  it('is logged as such, not as a store outage', async () => {
    const t = await startTestApp('sqlite');
    try {
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const socket = connect((t.app.server.address() as AddressInfo).port, '127.0.0.1');
      await new Promise((resolve) => socket.on('connect', resolve));
      socket.write(
        'POST /developer/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
          'Content-Length: 1000\r\n\r\n{"email":',
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.destroy();
      await until(
        () => t.logs.some((line) => String(line.msg).startsWith('the client closed')),
        'the abort to be logged',
      );
      expect(t.logs.some((line) => String(line.msg).includes('data store'))).toBe(false);
      expect((await t.get('/readyz')).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
