import { Session } from 'node:inspector/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataReads, type DataReads } from '../../src/data-api/data-reads.ts';
import type { Store } from '../../src/db/connect.ts';
import { verifyKey } from '../../src/keys/keys.service.ts';
import { Speedups } from '../../src/speedups.ts';
import { TEST_SECRETS } from '../helpers/app.ts';
import { ManualClock } from '../helpers/clock.ts';
import { createTestKey, seedCampaign } from '../helpers/factories.ts';
import { createTestStore, ENGINES } from '../helpers/stores.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The files of src/ whose code ran while `act` did, by V8's own call counts. */
async function filesRunBy(act: () => Promise<unknown>): Promise<string[]> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    // Taking the coverage resets the counts: what follows counts `act` alone.
    await session.post('Profiler.takePreciseCoverage');
    await act();
    const { result } = await session.post('Profiler.takePreciseCoverage');
    await session.post('Profiler.stopPreciseCoverage');
    const files = new Set<string>();
    for (const script of result) {
      if (!script.url.includes('/src/') || script.url.includes('/node_modules/')) continue;
      if (!script.functions.some((fn) => fn.ranges.some((range) => range.count > 0))) continue;
      const path = script.url.startsWith('file:') ? fileURLToPath(script.url) : script.url;
      files.add(relative(ROOT, path.split('?')[0] as string));
    }
    return [...files].sort();
  } finally {
    session.disconnect();
  }
}

/**
 * What a page's route runs besides the reads (the handler, its sending with an ETag, the door's
 * check that the client still waits), and the two files of the page threads, which write the page
 * in another thread when there are threads (here, without, the reads write it): counted on top of
 * what the reads are measured to run.
 */
const AROUND_THE_READS = [
  'src/campaigns/campaigns.routes.ts',
  'src/http/conditional.ts',
  'src/data-api/data-api.ts',
  'src/http/overload.ts',
  'src/campaigns/pages/page-threads.ts',
  'src/campaigns/pages/page-thread.ts',
];

describe.each(ENGINES)('the read path on %s', (engine) => {
  let store: Store;
  let reads: DataReads;
  let key: Awaited<ReturnType<typeof verifyKey>>;

  beforeAll(async () => {
    const clock = new ManualClock();
    store = await createTestStore(engine);
    await seedCampaign(store, clock, {
      id: 'jalan',
      fields: [{ key: 'menu', type: 'RADIO' }],
      respondents: Array.from({ length: 9 }, (_, n) => ({
        id: `r${n}`,
        submittedAt: new Date(Date.UTC(2026, 10, 1, 8, n)).toISOString(),
        answers: { menu: 'Sate' },
      })),
    });
    const created = await createTestKey(store, clock, [{ campaignId: 'jalan', fields: ['menu'] }]);
    key = await verifyKey(store, created.key, clock.now());
    reads = createDataReads(store, {
      cursorKey: TEST_SECRETS.cursorKey,
      pageThreads: 0,
      responseCacheBytes: 1024 * 1024,
      speedups: Speedups.ALL_ON,
    });
  });
  afterAll(async () => {
    await reads.close();
    await store.close();
  });

  it('crosses at most 25 files of src/ from the route to the bytes of an uncached page', async () => {
    if (key.kind !== 'valid') throw new Error(`the test key is ${key.kind}`);
    const caller = { key: key.key, stillWaiting: () => {} };
    // Everything loaded and compiled by another page first.
    await reads.campaigns.respondents(caller, 'jalan', { limit: 2 });
    const files = await filesRunBy(async () => {
      const page = await reads.campaigns.respondents(caller, 'jalan', { limit: 3, page: 2 });
      expect(JSON.parse(page.body.toString()).data.map((row: { id: string }) => row.id)).toEqual([
        'r3',
        'r4',
        'r5',
      ]);
    });
    const path = [...new Set([...files, ...AROUND_THE_READS])].sort();
    expect(path.length, path.join('\n')).toBeLessThanOrEqual(25);
  });
});
