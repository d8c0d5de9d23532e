import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HadirApiError,
  HadirClient,
  type HadirClientOptions,
} from '../../packages/client/src/index.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createTestKey, importRespondents, seedCampaign } from '../helpers/factories.ts';

const ROWS = 3000;
const RATE_LIMIT = 10;

describe('HadirClient against a real server', () => {
  let t: TestApp;
  let baseUrl: string;
  let apiKey: string;

  beforeAll(async () => {
    t = await startTestApp('sqlite', { rateLimitPerMinute: RATE_LIMIT });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const start = Date.UTC(2026, 9, 1);
    await seedCampaign(t.store, t.clock, {
      id: 'lari',
      fields: [{ key: 'kategori', type: 'RADIO' }],
      respondents: Array.from({ length: ROWS }, (_, i) => ({
        id: `l${String(i).padStart(5, '0')}`,
        // Ties every four rows, as real RSVPs submitted in the same millisecond would.
        submittedAt: new Date(start + Math.floor(i / 4) * 1000).toISOString(),
        answers: { kategori: i % 2 ? '5K' : '10K', nama: `Pelari ${i}` },
      })),
    });
    await seedCampaign(t.store, t.clock, {
      id: 'kecil',
      respondents: [{ id: 'k1', submittedAt: '2026-11-01T00:00:00Z' }],
    });
    ({ key: apiKey } = await createTestKey(t.store, t.clock, [
      { campaignId: 'lari', fields: ['kategori'] },
      { campaignId: 'kecil', fields: [] },
    ]));
  });
  afterAll(() => t.close());

  /** Waits advance the server's clock instead of the test's time. */
  const client = (options: Partial<HadirClientOptions> = {}) =>
    new HadirClient({
      baseUrl,
      apiKey,
      sleep: async (ms) => {
        t.clock.advance(ms);
      },
      ...options,
    });
  const pageRequests = (status: number) =>
    t.logs.filter(
      (line) => line.route === '/developer/v1/campaigns/:id/respondents' && line.status === status,
    ).length;

  it('reads every row once in server order under a low rate limit, honouring every Retry-After', async () => {
    t.clock.advance(60_000);
    const waits: number[] = [];
    const before = { ok: pageRequests(200), limited: pageRequests(429) };
    const ids: string[] = [];
    for await (const row of client({
      onRateLimit: (event) => waits.push(event.retryAfterSeconds),
    }).respondents('lari', { limit: 100 })) {
      ids.push(row.id);
      expect(Object.keys(row.fields).every((field) => field === 'kategori')).toBe(true);
    }
    expect(ids).toEqual(Array.from({ length: ROWS }, (_, i) => `l${String(i).padStart(5, '0')}`));
    expect(pageRequests(200) - before.ok).toBe(Math.ceil(ROWS / 100));
    expect(pageRequests(429) - before.limited).toBe(waits.length);
    expect(waits.length).toBeGreaterThan(0);
    for (const seconds of waits) expect(seconds).toBeGreaterThan(0);
  });

  it('returns typed campaigns and summaries, keeping counters it does not know', async () => {
    t.clock.advance(60_000);
    const campaigns = await client().campaigns();
    expect(campaigns.map((campaign) => campaign.id)).toEqual(['kecil', 'lari']);
    const summary = await client().summary('lari');
    expect(summary.totals).toMatchObject({ responses: ROWS, maybe: 0 });
    expect(summary.breakdowns.kategori).toEqual({ '10K': ROWS / 2, '5K': ROWS / 2 });
  });

  it('asks the server for the rows and counts a filter matches, in a few requests', async () => {
    const before = pageRequests(200);
    const fives: string[] = [];
    for await (const row of client().respondents('lari', {
      filter: { answers: { kategori: '5k' } },
    })) {
      expect(row.fields.kategori).toBe('5K');
      fives.push(row.id);
    }
    // Half the campaign, 200 a page: the server matched them, so 8 pages, not 15.
    expect(fives).toHaveLength(ROWS / 2);
    expect(pageRequests(200) - before).toBe(Math.ceil(ROWS / 2 / 200));
    const summary = await client().summary('lari', {
      filter: { attendanceStatus: ['YES', 'MAYBE'], answers: { kategori: { contains: '10' } } },
    });
    expect(summary.totals.responses).toBe(ROWS / 2);
    expect(summary.breakdowns).toEqual({ kategori: { '10K': ROWS / 2 } });
    await expect(
      client().summary('lari', { filter: { answers: { nama: 'Pelari 1' } } }),
    ).rejects.toMatchObject({ status: 400, code: 'invalid_parameter' });
  });

  it('throws a typed error with the request id, and never retries a 401 or 404', async () => {
    t.clock.advance(60_000);
    let calls = 0;
    const counting: typeof fetch = (input, init) => {
      calls += 1;
      return fetch(input, init);
    };
    const error = await client({ apiKey: `hadir_sk_${'0'.repeat(64)}`, fetch: counting })
      .campaigns()
      .catch((e) => e);
    expect(error).toBeInstanceOf(HadirApiError);
    expect(error).toMatchObject({
      status: 401,
      code: 'unauthorized',
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    const missing = await client({ fetch: counting })
      .summary('nope')
      .catch((e) => e);
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });
    expect(calls).toBe(2);
  });

  it('retries 5xx answers and network errors with backoff, then succeeds', async () => {
    t.clock.advance(60_000);
    let calls = 0;
    const flaky: typeof fetch = async (input, init) => {
      calls += 1;
      if (calls === 1) throw new TypeError('fetch failed: ECONNRESET');
      if (calls <= 3)
        return new Response('{"error":{"code":"internal_error","message":"x"}}', { status: 500 });
      return fetch(input, init);
    };
    const retries: string[] = [];
    const campaigns = await client({
      fetch: flaky,
      onRetry: (event) => retries.push(event.reason),
    }).campaigns();
    expect(campaigns).toHaveLength(2);
    expect(retries).toEqual(['network error: fetch failed: ECONNRESET', 'HTTP 500', 'HTTP 500']);
  });

  it('gives up after the bounded number of retries', async () => {
    let calls = 0;
    const broken: typeof fetch = async () => {
      calls += 1;
      return new Response('{"error":{"code":"internal_error","message":"down"}}', { status: 500 });
    };
    const error = await client({ fetch: broken, maxRetries: 3 })
      .campaigns()
      .catch((e) => e);
    expect(error).toMatchObject({ status: 500, code: 'internal_error' });
    expect(calls).toBe(4);
  });

  it('with page numbers only, runs the pass again when an edit made it skip a row', async () => {
    t.clock.advance(60_000);
    await seedCampaign(t.store, t.clock, {
      id: 'sunting',
      respondents: Array.from({ length: 9 }, (_, i) => ({
        id: `s${i}`,
        submittedAt: `2026-11-01T00:0${i}:00Z`,
      })),
    });
    const { key } = await createTestKey(t.store, t.clock, [{ campaignId: 'sunting', fields: [] }]);
    let firstPages = 0;
    // A server of the plain spec: no cursor in meta. The first page is followed by an edit that
    // moves row s0 to the end, so a single page-number pass skips s3.
    const pagesOnly: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const body: any = await response.json();
      if (body.meta) {
        delete body.meta.nextCursor;
        if (body.meta.page === 1 && ++firstPages === 1) {
          await importRespondents(t.store, t.clock, 'sunting', [
            { id: 's0', submittedAt: '2026-11-02T00:00:00Z' },
          ]);
        }
      }
      return new Response(JSON.stringify(body), {
        status: response.status,
        headers: response.headers,
      });
    };
    const ids = new Set<string>();
    for await (const row of client({ apiKey: key, fetch: pagesOnly }).respondents('sunting', {
      limit: 3,
    }))
      ids.add(row.id);
    expect([...ids].sort()).toEqual(['s0', 's1', 's2', 's3', 's4', 's5', 's6', 's7', 's8']);
    expect(firstPages).toBe(2);
  });

  it('in cursor mode, misses no row when rows are edited between pages', async () => {
    t.clock.advance(60_000);
    await seedCampaign(t.store, t.clock, {
      id: 'kursor',
      respondents: Array.from({ length: 9 }, (_, i) => ({
        id: `c${i}`,
        submittedAt: `2026-11-01T00:0${i}:00Z`,
      })),
    });
    const { key } = await createTestKey(t.store, t.clock, [{ campaignId: 'kursor', fields: [] }]);
    let pages = 0;
    const editing: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (String(input).includes('/respondents') && ++pages === 1) {
        await importRespondents(t.store, t.clock, 'kursor', [
          { id: 'c0', submittedAt: '2026-11-02T00:00:00Z' },
        ]);
      }
      return response;
    };
    const ids: string[] = [];
    for await (const row of client({ apiKey: key, fetch: editing }).respondents('kursor', {
      limit: 3,
    }))
      ids.push(row.id);
    expect(new Set(ids)).toEqual(new Set(['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8']));
    expect(pages).toBe(4);
  });

  it('walks the changes feed, then only what changed, and answers unchanged for a 304', async () => {
    const hadir = client();
    let until = '';
    let first = 0;
    for await (const page of hadir.changePages('kecil')) {
      first += page.data.length;
      until = page.meta.until;
    }
    expect(first).toBe(1);
    t.clock.advance(1_000);
    await importRespondents(t.store, t.clock, 'kecil', [
      { id: 'k2', submittedAt: '2026-10-01T00:00:00Z' },
    ]);
    const changed = [];
    for await (const page of hadir.changePages('kecil', { since: until }))
      changed.push(...page.data);
    expect(changed.map((change) => `${change.type}:${change.id}`)).toEqual(['upsert:k2']);
    const quiet = await hadir.changesPage('kecil', {
      since: new Date(t.clock.now()).toISOString(),
    });
    expect(quiet).not.toBe('unchanged');
    const etag = quiet === 'unchanged' ? undefined : quiet.etag;
    expect(
      await hadir.changesPage('kecil', {
        since: new Date(t.clock.now()).toISOString(),
        ...(etag ? { etag } : {}),
      }),
    ).toBe('unchanged');
  });

  it('stops when its AbortSignal fires during a wait', async () => {
    const controller = new AbortController();
    const limited: typeof fetch = async () =>
      new Response('{"error":{"code":"rate_limited","message":"x"}}', {
        status: 429,
        headers: { 'retry-after': '30' },
      });
    const pending = new HadirClient({
      baseUrl,
      apiKey,
      fetch: limited,
      signal: controller.signal,
    }).campaigns();
    setTimeout(() => controller.abort(new Error('stopped by the caller')), 20);
    await expect(pending).rejects.toThrow('stopped by the caller');
  });
});
