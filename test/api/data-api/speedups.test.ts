import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/db/connect.ts';
import { SPEEDUPS, type Speedup, Speedups } from '../../../src/speedups.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { ManualClock } from '../../helpers/clock.ts';
import { createTestKey, importRespondents, seedCampaign } from '../../helpers/factories.ts';
import { createTestDatabaseUrl, ENGINES, openTestStore } from '../../helpers/stores.ts';

const BASE = '/developer/v1';
const respondents = Array.from({ length: 30 }, (_, n) => ({
  id: `r${String(n).padStart(2, '0')}`,
  submittedAt: `2026-03-01T10:${String(n % 9).padStart(2, '0')}:00Z`,
  attendanceStatus: (['YES', 'NO', 'MAYBE'] as const)[n % 3],
  answers: {
    meal: n % 2 ? 'ikan' : 'sapi',
    diet: n % 3 ? ['halal'] : [],
    note: `"kutip" \\ garis\u2028${n}`,
    secret: 'not allow-listed',
  },
}));

/** Every switch the bench turns: each is a speed device and must not change a byte served. */
const VARIANTS: Array<{ name: string; off?: Speedup; cache?: number }> = [
  ...SPEEDUPS.map((off) => ({ name: off, off })),
  { name: 'response cache', cache: 0 },
];

describe.each(ENGINES)('speed devices switched off, on %s', (engine) => {
  const clock = new ManualClock();
  let url: string;
  let allOn: TestApp;
  let key: string;
  let paths: string[];

  beforeAll(async () => {
    url = await createTestDatabaseUrl(engine);
    allOn = await startTestApp(await openTestStore(url), { clock });
    await seedCampaign(allOn.store, clock, {
      id: 'c',
      fields: [
        { key: 'meal', type: 'RADIO' },
        { key: 'diet', type: 'CHECKBOX' },
        { key: 'note', type: 'TEXT' },
      ],
      respondents,
    });
    ({ key } = await createTestKey(allOn.store, clock, [
      { campaignId: 'c', fields: ['meal', 'diet', 'note'] },
    ]));
    const first = await allOn.get(`${BASE}/campaigns/c/respondents?limit=7`, key);
    paths = [
      `${BASE}/campaigns`,
      `${BASE}/campaigns/c/summary`,
      `${BASE}/campaigns/c/respondents?limit=7`,
      `${BASE}/campaigns/c/respondents?limit=7&page=3`,
      `${BASE}/campaigns/c/respondents?limit=7&page=9`,
      `${BASE}/campaigns/c/respondents?limit=7&cursor=${first.body.meta.nextCursor}`,
      `${BASE}/campaigns/c/respondents?limit=4&since=2026-03-01T10:04:00Z`,
    ];
  });
  afterAll(() => allOn.close());

  it.each(VARIANTS)(
    '$name off serves the same bytes and ETags, before and after a write',
    async (variant) => {
      const store = openStore(url, { rememberReads: variant.off !== 'remembered-reads' });
      const switchedOff = await startTestApp(store, {
        clock,
        ...(variant.cache !== undefined ? { responseCacheBytes: variant.cache } : {}),
        ...(variant.off ? { speedups: new Speedups([variant.off]) } : {}),
      });
      try {
        const compare = async () => {
          for (const path of paths) {
            // Twice each: the second answer may come from what the first left behind.
            for (let round = 0; round < 2; round++) {
              const [expected, actual] = await Promise.all([
                allOn.get(path, key),
                switchedOff.get(path, key),
              ]);
              expect(expected.status, path).toBe(200);
              expect(actual.raw, path).toBe(expected.raw);
              expect(actual.headers.etag, path).toBe(expected.headers.etag);
            }
          }
        };
        await compare();
        clock.advance(60_000);
        await importRespondents(allOn.store, clock, 'c', [
          { id: 'r03', submittedAt: '2026-03-02T00:00:00Z', answers: { meal: 'tahu' } },
        ]);
        await compare();
      } finally {
        await switchedOff.close();
      }
    },
  );
});
