import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metrics } from '../../../src/http/metrics.ts';
import { connectRedis } from '../../../src/redis.ts';
import { logCapture, startTestApp, type TestApp } from '../../helpers/app.ts';
import { ManualClock } from '../../helpers/clock.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';
import { type RedisServer, startRedisServer } from '../../helpers/redis-server.ts';
import { createTestDatabaseUrl, ENGINES, openTestStore } from '../../helpers/stores.ts';
import { until } from '../../helpers/until.ts';

const BASE = '/developer/v1';
const SPEC_LIMIT = 120;

async function connected(url: string): Promise<Redis> {
  const redis = connectRedis(url, logCapture().logger);
  if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  return redis;
}

describe.each(ENGINES)('two instances sharing one Redis, on %s', (engine) => {
  let redisServer: RedisServer;
  const clients: Redis[] = [];
  let first: TestApp;
  let second: TestApp;
  const clock = new ManualClock();
  const firstMetrics = new Metrics();
  const newKey = async () =>
    (await createTestKey(first.store, clock, [{ campaignId: 'c', fields: [] }])).key;

  beforeAll(async () => {
    redisServer = await startRedisServer();
    const url = await createTestDatabaseUrl(engine);
    for (let n = 0; n < 2; n++) clients.push(await connected(redisServer.url));
    first = await startTestApp(await openTestStore(url), {
      clock,
      rateLimitPerMinute: SPEC_LIMIT,
      redis: clients[0] as Redis,
      metrics: firstMetrics,
    });
    second = await startTestApp(await openTestStore(url), {
      clock,
      rateLimitPerMinute: SPEC_LIMIT,
      redis: clients[1] as Redis,
    });
    await seedCampaign(first.store, clock, { id: 'c' });
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
    for (const client of clients) client.disconnect();
    await redisServer?.stop();
  });

  it('answers 429 after 120 requests in total across both instances', async () => {
    const key = await newKey();
    for (let n = 1; n <= SPEC_LIMIT; n++) {
      const response = await (n % 2 ? first : second).get(`${BASE}/campaigns`, key);
      expect(response.status).toBe(200);
      expect(response.headers['ratelimit-remaining']).toBe(String(SPEC_LIMIT - n));
    }
    for (const instance of [first, second]) {
      const limited = await instance.get(`${BASE}/campaigns`, key);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBe(60);
    }
    clock.advance(60_000);
    expect((await second.get(`${BASE}/campaigns`, key)).status).toBe(200);
  });

  it('fails open with a logged error when Redis answers the rate-limit script wrongly', async () => {
    const client = await connected(redisServer.url);
    clients.push(client);
    const odd = await startTestApp(await openTestStore(await createTestDatabaseUrl(engine)), {
      clock,
      rateLimitPerMinute: SPEC_LIMIT,
      redis: client,
    });
    try {
      await seedCampaign(odd.store, clock, { id: 'c' });
      const key = (await createTestKey(odd.store, clock, [{ campaignId: 'c', fields: [] }])).key;
      // A Redis (or a proxy before it) that answers the script with nil, then with a number.
      const scripted = client as unknown as Record<string, () => Promise<unknown>>;
      for (const wrong of [null, 7]) {
        scripted.hadirWindowIncr = async () => wrong;
        scripted.hadirWindowRead = async () => wrong;
        const response = await odd.get(`${BASE}/campaigns`, key);
        expect(response.status).toBe(200);
        expect(
          odd.logs.some(
            (line) =>
              line.msg === 'rate-limit store failed; requests let through' &&
              String(line.cause).includes(`with ${JSON.stringify(wrong)}, not [count, ms]`),
          ),
        ).toBe(true);
        clock.advance(10_001);
      }
    } finally {
      await odd.close();
    }
  });

  it('keeps serving data while Redis is down, and limits again once it is back', async () => {
    const key = await newKey();
    expect((await first.get('/readyz')).status).toBe(200);
    await redisServer.stop();

    // Well past the budget, every request is still served: the data API fails open.
    for (let n = 0; n < SPEC_LIMIT + 10; n++) {
      const response = await (n % 2 ? first : second).get(`${BASE}/campaigns`, key);
      expect(response.status).toBe(200);
      expect(response.headers['ratelimit-remaining']).toBeUndefined();
    }
    const ready = await first.get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.error.code).toBe('service_unavailable');
    expect(
      first.logs.some((line) => line.msg === 'rate-limit store failed; requests let through'),
    ).toBe(true);
    const failures = await firstMetrics.rateLimitStoreFailures.get();
    expect(failures.values[0]?.value).toBeGreaterThanOrEqual((SPEC_LIMIT + 10) / 2);

    await redisServer.start();
    await until(async () => (await second.get('/readyz')).status === 200, 'redis to be back');
    await until(async () => (await first.get('/readyz')).status === 200, 'redis to be back');
    clock.advance(60_000);
    for (let n = 0; n < SPEC_LIMIT; n++) {
      expect((await (n % 2 ? first : second).get(`${BASE}/campaigns`, key)).status).toBe(200);
    }
    expect((await first.get(`${BASE}/campaigns`, key)).status).toBe(429);
    clock.advance(60_000);
  });
});
