import { describe, expect, it } from 'vitest';
import { BudgetPacer } from '../../packages/sync/src/budget.ts';

/** A pacer on a manual clock whose sleeps move the clock; returns the send times. */
function pacedRun(share: number, limit: number) {
  let now = 0;
  const waits: string[] = [];
  const pacer = new BudgetPacer({
    share,
    now: () => now,
    sleep: async (ms) => {
      now += ms;
    },
    onWait: (_ms, reason) => waits.push(reason),
  });
  const sent: number[] = [];
  return {
    pacer,
    waits,
    sent,
    advance: (ms: number) => {
      now += ms;
    },
    async request(status = 200, conditional = false) {
      await pacer.turn(conditional);
      sent.push(now);
      pacer.observe({
        url: 'http://hadir.test/',
        status,
        rateLimit: { limit, remaining: 0, resetSeconds: 60 },
      });
    },
  };
}

describe('the budget pacer', () => {
  it('spends at most its share of the key’s budget in any minute, spread evenly', async () => {
    const run = pacedRun(0.45, 120);
    for (let i = 0; i < 200; i++) await run.request();
    expect(run.pacer.perMinute).toBe(54);
    for (let i = 0; i < run.sent.length; i++) {
      const start = run.sent[i] as number;
      const inMinute = run.sent.filter((at) => at >= start && at < start + 60_000).length;
      expect(inMinute).toBeLessThanOrEqual(54);
    }
    // Evenly: never two requests closer than a minute over 50 (4 a minute left for refreshes).
    const gaps = run.sent.slice(2).map((at, i) => at - (run.sent[i + 1] as number));
    expect(Math.min(...gaps)).toBe(1_200);
  });

  it('keeps room for conditional requests that turn out counted', async () => {
    const run = pacedRun(0.45, 120);
    for (let i = 0; i < 150; i++) {
      // A refresh now and then goes at once, and its answer is counted.
      await run.request(200, i % 15 === 0);
    }
    for (let i = 0; i < run.sent.length; i++) {
      const start = run.sent[i] as number;
      expect(
        run.sent.filter((at) => at >= start && at < start + 60_000).length,
      ).toBeLessThanOrEqual(54);
    }
  });

  it('lets conditional requests go at once, and does not count their 304s', async () => {
    const run = pacedRun(0.5, 120);
    await run.request();
    for (let i = 0; i < 100; i++) await run.request(304, true);
    expect(run.sent.at(-1)).toBe(0);
    // The next counted request waits only its gap after the last counted one.
    await run.request();
    expect(run.sent.at(-1)).toBe(1_072);
  });

  it('learns the key’s budget from the answers', async () => {
    const run = pacedRun(0.5, 10);
    await run.request();
    expect(run.pacer.perMinute).toBe(5);
    await run.request();
    expect(run.sent).toEqual([0, 60_000]);
    expect(run.waits).toEqual(['spreading requests 60000 ms apart']);
  });
});
