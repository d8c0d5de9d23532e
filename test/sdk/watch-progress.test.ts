import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Mirror, SyncWatcher } from '../../packages/sync/src/index.ts';
import { importDocument } from '../../src/import/import.service.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ManualClock } from '../helpers/clock.ts';
import { createTestKey, seedCampaign } from '../helpers/factories.ts';
import { until } from '../helpers/until.ts';

const row = (n: number) => ({
  id: `g${String(n).padStart(4, '0')}`,
  campaignId: 'pesta',
  submittedAt: new Date(Date.UTC(2026, 10, 1, 0, 0, n)).toISOString(),
  attendanceStatus: 'YES' as const,
  answers: { menu: 'Sate' },
});

describe.each([false, true])('what hadir-sync watch says, verbose %s', (verbose) => {
  let t: TestApp;
  let baseUrl: string;
  let key: string;
  let added = 600;

  beforeAll(async () => {
    t = await startTestApp('sqlite', {
      clock: new ManualClock(Date.now()),
      rateLimitPerMinute: 100_000,
    });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    await seedCampaign(t.store, t.clock, {
      id: 'pesta',
      fields: [{ key: 'menu', type: 'RADIO' }],
      respondents: Array.from({ length: 600 }, (_, n) => row(n)),
    });
    key = (await createTestKey(t.store, t.clock, [{ campaignId: 'pesta', fields: ['menu'] }])).key;
  });
  afterAll(() => t.close());

  it('tells a long first sync every 5 s, then sums steady syncing up once a minute', async () => {
    const lines: string[] = [];
    let syncs = 0;
    // Each reading of the watch's clock is 2 s after the last while the first sync runs.
    let now = 0;
    let step = 2_000;
    const mirror = await Mirror.open(
      `sqlite:${join(mkdtempSync(join(tmpdir(), 'hadir-watch-says-')), 'mirror.sqlite')}`,
    );
    const watcher = new SyncWatcher(
      {
        sync: { baseUrl, apiKey: key, campaigns: ['pesta'], limit: 50 },
        listen: { host: '127.0.0.1', port: 0 },
        secrets: [],
        pollIntervalMs: 20,
        gatherMs: 0,
        budgetShare: 1,
        verbose,
      },
      {
        mirror,
        log: (line) => lines.push(line),
        onSynced: () => (syncs += 1),
        now: () => {
          now += step;
          return now;
        },
      },
    );
    try {
      await watcher.start();
      const progress = lines.filter((line) => /rows so far/.test(line));
      // 12 pages, a clock reading each at 2 s a reading: a line at most every 5 s.
      expect(progress.length).toBeGreaterThanOrEqual(3);
      expect(progress.length).toBeLessThanOrEqual(5);
      expect(progress[0]).toBe('pesta: 50 of 600 rows so far, 1 page');
      expect(lines).toContain(
        lines.find((line) => /^pesta: 600 rows, 0 removed, watermark/.test(line)),
      );

      // Steady syncing, the clock still: three syncs, each of a new guest.
      step = 0;
      lines.length = 0;
      for (let n = 0; n < 3; n++) {
        const before = syncs;
        await importDocument(t.store, t.clock, { respondents: [row(added++)] });
        await until(() => syncs > before, 'the new guest to be synced');
      }
      const each = lines.filter((line) => /^pesta: 1 rows/.test(line));
      expect(each).toHaveLength(verbose ? 3 : 0);
      // A minute later, the next sync's report sums the minute up.
      now += 60_000;
      const before = syncs;
      await importDocument(t.store, t.clock, { respondents: [row(added++)] });
      await until(() => syncs > before, 'the fourth guest to be synced');
      const summaries = lines.filter((line) => line.startsWith('in the last minute'));
      expect(summaries).toEqual(
        verbose ? [] : ['in the last minute: 4 syncs of 1 campaign, 4 rows changed, 0 removed'],
      );
    } finally {
      await watcher.stop();
      await mirror.close();
    }
  });
});
