import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateKey } from '../../../src/keys/keys.service.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';
import { ENGINES } from '../../helpers/stores.ts';

const BASE = '/developer/v1';
const LIMIT = 5;
const ANONYMOUS_LIMIT = 3;

describe.each(ENGINES)('rate limit on %s', (engine) => {
  let t: TestApp;
  const newKey = async () =>
    await createTestKey(t.store, t.clock, [{ campaignId: 'c', fields: [] }]);

  beforeAll(async () => {
    t = await startTestApp(engine, {
      rateLimitPerMinute: LIMIT,
      anonymousRateLimitPerMinute: ANONYMOUS_LIMIT,
    });
    await seedCampaign(t.store, t.clock, { id: 'c' });
  });
  afterAll(() => t.close());

  it('allows the budget per key, then answers 429 with Retry-After, until the window passes', async () => {
    const { key } = await newKey();
    t.clock.advance(15_000);
    for (let n = 1; n <= LIMIT; n++) {
      const response = await t.get(`${BASE}/campaigns`, key);
      expect(response.status).toBe(200);
      expect(response.headers['ratelimit-limit']).toBe(String(LIMIT));
      expect(response.headers['ratelimit-remaining']).toBe(String(LIMIT - n));
      expect(Number(response.headers['ratelimit-reset'])).toBeGreaterThan(0);
    }
    t.clock.advance(20_000);
    const limited = await t.get(`${BASE}/campaigns`, key);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(limited.headers['content-type']).toMatch(/^application\/json/);
    // The window opened 20 s ago, so 40 s remain.
    expect(limited.headers['retry-after']).toBe('40');
    t.clock.advance(40_000);
    expect((await t.get(`${BASE}/campaigns`, key)).status).toBe(200);
  });

  it('counts one budget across every data route', async () => {
    const { key } = await newKey();
    const urls = [
      `${BASE}/campaigns`,
      `${BASE}/campaigns/c/summary`,
      `${BASE}/campaigns/c/respondents`,
    ];
    for (let n = 0; n < LIMIT; n++)
      expect((await t.get(urls[n % 3] as string, key)).status).toBe(200);
    expect((await t.get(`${BASE}/campaigns/c/summary`, key)).status).toBe(429);
    t.clock.advance(60_000);
  });

  it('counts requests that fail validation or scope checks too', async () => {
    const { key } = await newKey();
    for (let n = 0; n < LIMIT; n++) {
      expect((await t.get(`${BASE}/campaigns/c/respondents?limit=0`, key)).status).toBe(400);
    }
    expect((await t.get(`${BASE}/campaigns`, key)).status).toBe(429);
    t.clock.advance(60_000);
  });

  it('gives the old and new key of a rotation one shared budget', async () => {
    const { key: oldKey, id } = await newKey();
    const { key: newKeyText } = await rotateKey(t.store, t.clock, id, 3_600_000);
    for (let n = 0; n < LIMIT; n++) {
      expect((await t.get(`${BASE}/campaigns`, n % 2 ? oldKey : newKeyText)).status).toBe(200);
    }
    expect((await t.get(`${BASE}/campaigns`, newKeyText)).status).toBe(429);
    expect((await t.get(`${BASE}/campaigns`, oldKey)).status).toBe(429);
    t.clock.advance(60_000);
  });

  it('keeps separate budgets for separate keys', async () => {
    const first = await newKey();
    const second = await newKey();
    for (let n = 0; n < LIMIT; n++) await t.get(`${BASE}/campaigns`, first.key);
    expect((await t.get(`${BASE}/campaigns`, first.key)).status).toBe(429);
    expect((await t.get(`${BASE}/campaigns`, second.key)).status).toBe(200);
    t.clock.advance(60_000);
  });

  it('limits requests without a valid key per client address, still showing the 401s first', async () => {
    for (let n = 0; n < ANONYMOUS_LIMIT; n++) {
      expect((await t.get(`${BASE}/campaigns`, `hadir_sk_${String(n).repeat(64)}`)).status).toBe(
        401,
      );
    }
    const limited = await t.get(`${BASE}/campaigns`);
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('60');
    const { key } = await newKey();
    expect((await t.get(`${BASE}/campaigns`, key)).status).toBe(200);
    t.clock.advance(60_000);
  });
});
