import { Session } from 'node:inspector/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';
import { ENGINES } from '../../helpers/stores.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

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
 * At most this many files of src/ run for a data request, counted from the request as Fastify
 * gets it to the bytes of its answer: the door's checks, the campaign resolved once, the page
 * read and written (under a response-cache key built in one place), its line in the disclosure
 * record, the access line (docs/architecture.md, The path of a data request).
 */
const MOST_FILES = 50;

describe.each(ENGINES)('the read path on %s', (engine) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp(engine);
    await seedCampaign(t.store, t.clock, {
      id: 'jalan',
      fields: [{ key: 'menu', type: 'RADIO' }],
      respondents: Array.from({ length: 9 }, (_, n) => ({
        id: `r${n}`,
        submittedAt: new Date(Date.UTC(2026, 10, 1, 8, n)).toISOString(),
        answers: { menu: 'Sate' },
      })),
    });
    ({ key } = await createTestKey(t.store, t.clock, [{ campaignId: 'jalan', fields: ['menu'] }]));
  });
  afterAll(() => t.close());

  it(`crosses at most ${MOST_FILES} files of src/ from the request to the bytes of an uncached page`, async () => {
    const pages = '/developer/v1/campaigns/jalan/respondents';
    // Everything loaded and compiled by another page first.
    expect((await t.get(`${pages}?limit=2`, key)).status).toBe(200);
    const files = await filesRunBy(async () => {
      const page = await t.get(`${pages}?limit=3&page=2`, key);
      expect(page.body.data.map((row: { id: string }) => row.id)).toEqual(['r3', 'r4', 'r5']);
    });
    expect(files.length, files.join('\n')).toBeLessThanOrEqual(MOST_FILES);
  });
});
