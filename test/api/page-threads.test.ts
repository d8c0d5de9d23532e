import type { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PageRequest, writePage } from '../../src/campaigns/pages/page-body.ts';
import { readPageText } from '../../src/campaigns/pages/page-rows.repository.ts';
import { type PageThreadSource, PageThreads } from '../../src/campaigns/pages/page-threads.ts';
import { RESPONDENT_POSITIONS } from '../../src/campaigns/pages/respondent-line.ts';
import { Metrics } from '../../src/http/metrics.ts';
import { CursorCodec } from '../../src/paging/page-cursor.ts';
import { startTestApp, TEST_SECRETS, type TestApp } from '../helpers/app.ts';
import { ManualClock } from '../helpers/clock.ts';
import { createTestKey, seedCampaign } from '../helpers/factories.ts';
import { createTestDatabaseUrl, ENGINES, openTestStore } from '../helpers/stores.ts';

const BASE = '/developer/v1/campaigns/c/respondents';
const respondents = Array.from({ length: 23 }, (_, n) => ({
  id: `r${String(n).padStart(2, '0')}`,
  submittedAt: `2026-03-01T10:${String(n % 7).padStart(2, '0')}:00Z`,
  // Long enough that a full page outgrows Node's shared buffer pool (it then moves, not copies).
  answers: {
    meal: n % 2 ? 'fish' : 'beef',
    diet: n % 3 ? ['halal'] : [],
    name: `Tamu\t${n} ${'panjang '.repeat(40)}`,
  },
}));

// Pages are written in a page thread by default (on SQLite, read there too). The thread must
// serve exactly the bytes the main thread would, and a thread that dies must not take the service
// with it.
describe.each(ENGINES)('page threads on %s', (engine) => {
  let url: string;
  let inThread: TestApp;
  let onMain: TestApp;
  let key: string;
  const clock = new ManualClock();
  const inThreadMetrics = new Metrics();
  const threadsRunning = async (metrics: Metrics) =>
    (await metrics.registry.getSingleMetric('hadir_page_threads')?.get())?.values[0]?.value;

  beforeAll(async () => {
    url = await createTestDatabaseUrl(engine);
    inThread = await startTestApp(await openTestStore(url), {
      clock,
      pageThreads: 1,
      metrics: inThreadMetrics,
    });
    onMain = await startTestApp(await openTestStore(url), { clock, pageThreads: 0 });
    await seedCampaign(inThread.store, clock, {
      id: 'c',
      fields: [
        { key: 'meal', type: 'RADIO' },
        { key: 'diet', type: 'CHECKBOX' },
        { key: 'name', type: 'TEXT' },
      ],
      respondents,
    });
    key = (
      await createTestKey(inThread.store, clock, [
        { campaignId: 'c', fields: ['name', 'meal', 'diet'] },
      ])
    ).key;
  });
  afterAll(async () => {
    await inThread?.close();
    await onMain?.close();
  });

  it('serves the same bytes and ETags as the main thread, page by page and by cursor', async () => {
    const urls = [
      `${BASE}?limit=5`,
      `${BASE}?limit=100`,
      `${BASE}?limit=5&page=4`,
      `${BASE}?limit=5&page=5`,
      `${BASE}?limit=5&page=9`,
      `${BASE}?limit=4&since=2026-03-01T10:03:00Z`,
    ];
    for (const path of urls) {
      const threaded = await inThread.get(path, key);
      const main = await onMain.get(path, key);
      expect(threaded.status).toBe(200);
      expect(threaded.raw).toBe(main.raw);
      expect(threaded.headers.etag).toBe(main.headers.etag);
    }
    // The pages above were written by a thread: the app started one to serve them.
    expect(await threadsRunning(inThreadMetrics)).toBe(1);
    expect((await inThread.get(`${BASE}?limit=100`, key)).raw.length).toBeGreaterThan(8192);
    // Following the cursor from the thread's pages visits every row once, in order.
    const seen: string[] = [];
    let path: string | undefined = `${BASE}?limit=6`;
    while (path) {
      const response = await inThread.get(path, key);
      seen.push(...response.body.data.map((row: { id: string }) => row.id));
      const cursor = response.body.meta.nextCursor;
      path = cursor ? `${BASE}?limit=6&cursor=${cursor}` : undefined;
    }
    const specOrder = [...respondents].sort(
      (a, b) => a.submittedAt.localeCompare(b.submittedAt) || a.id.localeCompare(b.id),
    );
    expect(seen).toEqual(specOrder.map((row) => row.id));
  });

  /** What the service gives its page threads on this engine. */
  const source = (): PageThreadSource =>
    engine === 'sqlite'
      ? { readsFrom: 'sqlite-file', url }
      : { readsFrom: 'main-thread', store: onMain.store };
  const threadsOf = (count: number, onStart?: (worker: Worker) => void) =>
    new PageThreads(source(), {
      count,
      cursorKey: TEST_SECRETS.cursorKey,
      quoteJumping: true,
      ...(onStart ? { onStart } : {}),
    });
  /** The page as this thread writes it, for comparison. */
  const writtenHere = async (page: PageRequest) =>
    writePage(
      (await readPageText(onMain.store, { campaignId: 'c', after: null }, page.limit + 1)).take() ??
        '',
      page,
      {
        cursors: new CursorCodec(TEST_SECRETS.cursorKey, RESPONDENT_POSITIONS),
        quoteJumping: true,
      },
    );

  const request: PageRequest = {
    campaignId: 'c',
    sinceMs: undefined,
    after: null,
    limit: 3,
    fieldKeys: ['name', 'meal'],
    meta: { total: 23, page: 1, limit: 3, totalPages: 8 },
  };

  it('keeps serving after its thread dies: the next read starts a new one', async () => {
    const started: Worker[] = [];
    const threads = threadsOf(1, (worker) => started.push(worker));
    try {
      const expected = await writtenHere(request);
      const first = await threads.write(request);
      expect(first.response.body.equals(expected.response.body)).toBe(true);
      expect(first.response.etag).toBe(expected.response.etag);
      expect(first.end).toEqual(expected.end);
      expect(started).toHaveLength(1);

      // A read in flight when its thread dies is answered or fails, never left hanging; the
      // next one gets a new thread.
      const inFlight = threads.write(request).then(
        () => 'answered',
        (error: Error) => error.message,
      );
      await started[0]?.terminate();
      expect(await inFlight).toMatch(/answered|stopped/);
      const again = await threads.write(request);
      expect(again.response.body.equals(expected.response.body)).toBe(true);
      expect(started).toHaveLength(2);
    } finally {
      await threads.close();
    }
  });

  it('serves concurrent uncached pages intact, written in a thread or here', async () => {
    const pages = [`${BASE}?limit=12`, `${BASE}?limit=12&page=2`, `${BASE}?limit=20`];
    for (const threads of [1, 0]) {
      const server = await startTestApp(await openTestStore(url), {
        clock,
        pageThreads: threads,
        responseCacheBytes: 0,
      });
      try {
        await server.app.listen({ port: 0, host: '127.0.0.1' });
        const { port } = server.app.server.address() as { port: number };
        const expected = await Promise.all(
          pages.map(async (path) => (await onMain.get(path, key)).raw),
        );
        const fetched = await Promise.all(
          Array.from({ length: 30 }, async (_, n) => {
            const response = await fetch(`http://127.0.0.1:${port}${pages[n % 3]}`, {
              headers: { authorization: `Bearer ${key}` },
            });
            return { n, text: await response.text() };
          }),
        );
        for (const { n, text } of fetched) expect(text).toBe(expected[n % 3]);
        expect(Buffer.byteLength(expected[0] as string)).toBeGreaterThan(4096);
      } finally {
        await server.close();
      }
    }
  });

  it('starts every thread at once with startAll, and pages then start none', async () => {
    const started: Worker[] = [];
    const threads = threadsOf(2, (worker) => started.push(worker));
    try {
      threads.startAll();
      expect(started).toHaveLength(2);
      expect(threads.running).toBe(2);
      await Promise.all([threads.write(request), threads.write(request), threads.write(request)]);
      expect(started).toHaveLength(2);
    } finally {
      await threads.close();
    }
  });

  it('starts its threads when the server starts listening, before any request', async () => {
    const metrics = new Metrics();
    const server = await startTestApp(await openTestStore(url), {
      clock,
      pageThreads: 2,
      metrics,
    });
    const running = () => threadsRunning(metrics);
    try {
      expect(await running()).toBe(0);
      await server.app.listen({ port: 0, host: '127.0.0.1' });
      expect(await running()).toBe(2);
    } finally {
      await server.close();
    }
  });
});
