import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { ManualClock } from '../../helpers/clock.ts';
import { createTestKey, importRespondents, seedCampaign } from '../../helpers/factories.ts';
import { createTestDatabaseUrl, ENGINES, openTestStore } from '../../helpers/stores.ts';

const BASE = '/developer/v1';
const LIMIT = 5;
const PAGE = `${BASE}/campaigns/c/respondents?limit=2`;
const URLS = [`${BASE}/campaigns`, `${BASE}/campaigns/c/summary`, PAGE];

const respondents = Array.from({ length: 5 }, (_, n) => ({
  id: `r${n}`,
  submittedAt: `2026-03-0${n + 1}T10:00:00Z`,
  answers: { meal: n % 2 ? 'fish' : 'beef', name: `Guest ${n}` },
}));

describe.each(ENGINES)('ETag, 304 and the response cache on %s', (engine) => {
  // Two instances over one database, as two processes behind a load balancer would be.
  let first: TestApp;
  let second: TestApp;
  let key: string;
  const clock = new ManualClock();
  const freshKey = async () =>
    (await createTestKey(first.store, clock, [{ campaignId: 'c', fields: ['meal', 'name'] }])).key;

  beforeAll(async () => {
    const url = await createTestDatabaseUrl(engine);
    first = await startTestApp(await openTestStore(url), { clock, rateLimitPerMinute: LIMIT });
    second = await startTestApp(await openTestStore(url), { clock, rateLimitPerMinute: LIMIT });
    await seedCampaign(first.store, clock, {
      id: 'c',
      fields: [
        { key: 'meal', type: 'RADIO' },
        { key: 'name', type: 'TEXT' },
      ],
      respondents,
    });
    key = await freshKey();
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  it.each(URLS)('tags %s with a strong ETag that both instances agree on', async (url) => {
    const a = await first.get(url, key);
    const b = await second.get(url, key);
    expect(a.status).toBe(200);
    expect(a.headers.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(b.headers.etag).toBe(a.headers.etag);
    expect(b.raw).toBe(a.raw);
    clock.advance(60_000);
  });

  it('answers 304 with no body to a current If-None-Match, weak form and * included', async () => {
    const full = await first.get(PAGE, key);
    const etag = full.headers.etag as string;
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const response = await second.get(PAGE, key, { 'if-none-match': header });
      expect(response.status).toBe(304);
      expect(response.raw).toBe('');
      expect(response.headers.etag).toBe(etag);
    }
    const stale = await first.get(PAGE, key, { 'if-none-match': '"other"' });
    expect(stale.status).toBe(200);
    expect(stale.raw).toBe(full.raw);
    clock.advance(60_000);
  });

  it('does not count a 304 against the rate limit, but counts a full answer to a conditional request', async () => {
    const own = await freshKey();
    const { etag } = (await first.get(PAGE, own)).headers;
    for (let n = 0; n < 3 * LIMIT; n++) {
      expect((await first.get(PAGE, own, { 'if-none-match': etag as string })).status).toBe(304);
    }
    // One request spent; a stale tag gets the page and spends one more.
    expect((await first.get(PAGE, own, { 'if-none-match': '"stale"' })).status).toBe(200);
    for (let n = 2; n < LIMIT; n++) expect((await first.get(PAGE, own)).status).toBe(200);
    const limited = await first.get(PAGE, own);
    expect(limited.status).toBe(429);
    // With the budget used up, even a conditional request waits like any other.
    const waiting = await first.get(PAGE, own, { 'if-none-match': etag as string });
    expect(waiting.status).toBe(429);
    expect(Number(waiting.headers['retry-after'])).toBeGreaterThan(0);
    clock.advance(60_000);
    expect((await first.get(PAGE, own, { 'if-none-match': etag as string })).status).toBe(304);
  });

  it('counts conditional requests that end in an error, like any other', async () => {
    const own = await freshKey();
    for (let n = 0; n < LIMIT; n++) {
      const missing = await first.get(`${BASE}/campaigns/missing/summary`, own, {
        'if-none-match': '*',
      });
      expect(missing.status).toBe(404);
    }
    expect((await first.get(PAGE, own, { 'if-none-match': '*' })).status).toBe(429);
    clock.advance(60_000);
  });

  it('serves no instance an old page after an import edits a row', async () => {
    const url = `${BASE}/campaigns/c/respondents?limit=2&page=1`;
    const before = await first.get(url, key);
    expect((await second.get(url, key)).raw).toBe(before.raw);
    const summaryBefore = await second.get(`${BASE}/campaigns/c/summary`, key);
    expect(summaryBefore.body.breakdowns.meal).toEqual({ beef: 3, fish: 2 });

    await importRespondents(first.store, clock, 'c', [
      { id: 'r0', submittedAt: '2026-03-01T10:00:00Z', answers: { meal: 'fish', name: 'Renamed' } },
    ]);

    for (const instance of [first, second]) {
      const after = await instance.get(url, key, {
        'if-none-match': before.headers.etag as string,
      });
      expect(after.status).toBe(200);
      expect(after.headers.etag).not.toBe(before.headers.etag);
      expect(after.body.data[0]).toMatchObject({ id: 'r0', fields: { name: 'Renamed' } });
      const summary = await instance.get(`${BASE}/campaigns/c/summary`, key);
      expect(summary.body.breakdowns.meal).toEqual({ beef: 2, fish: 3 });
    }
    clock.advance(60_000);
  });

  it('keys the cache by allow-list: another key sees only its own fields', async () => {
    const narrow = (
      await createTestKey(first.store, clock, [{ campaignId: 'c', fields: ['meal'] }])
    ).key;
    const wide = await first.get(PAGE, key);
    const limited = await first.get(PAGE, narrow);
    expect(Object.keys(wide.body.data[0].fields).sort()).toEqual(['meal', 'name']);
    expect(Object.keys(limited.body.data[0].fields)).toEqual(['meal']);
    expect(limited.headers.etag).not.toBe(wide.headers.etag);
    clock.advance(60_000);
  });

  it('tags no error response', async () => {
    const response = await first.get(`${BASE}/campaigns/missing/summary`, key);
    expect(response.status).toBe(404);
    expect(response.headers.etag).toBeUndefined();
    expect(response.headers['cache-control']).toBe('no-store');
  });
});
