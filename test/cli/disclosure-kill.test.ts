import { describe, expect, it, onTestFinished } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { exitOf, startHadir } from '../helpers/cli.ts';
import { recordOf } from '../helpers/disclosure-record.ts';
import { createTestKey, seedCampaign } from '../helpers/factories.ts';
import { createTestDatabaseUrl, ENGINES, openTestStore } from '../helpers/stores.ts';

const CLIENTS = 8;

describe.each(ENGINES)('the disclosure record when serve is killed, on %s', (engine) => {
  it('holds a line for every answer a client received before the kill', async () => {
    const databaseUrl = await createTestDatabaseUrl(engine);
    const store = await openTestStore(databaseUrl);
    try {
      await seedCampaign(store, systemClock, {
        id: 'nikah',
        fields: [{ key: 'menu', type: 'RADIO' }],
        respondents: Array.from({ length: 60 }, (_, n) => ({
          id: `tamu-${String(n).padStart(2, '0')}`,
          submittedAt: new Date(Date.UTC(2026, 10, 1, 0, n)).toISOString(),
          answers: { menu: 'Sate' },
        })),
      });
      const { key } = await createTestKey(store, systemClock, [
        { campaignId: 'nikah', fields: ['menu'] },
      ]);
      const server = await startHadir(['serve', '--port', '0', '--json'], {
        databaseUrl,
        ready: /^\{"url":"(http:\/\/[^"]+)"/m,
        env: { RESPONSE_CACHE_MB: '0', RATE_LIMIT_PER_MINUTE: '1000000' },
      });
      onTestFinished(() => {
        if (server.child.exitCode === null) server.child.kill('SIGKILL');
      });
      const url = `${server.match[1]}/developer/v1/campaigns/nikah/respondents`;
      // Each client reads pages as fast as answers come, until the server is gone.
      const received: string[][] = [];
      let killed = false;
      const client = async (n: number) => {
        for (let page = 1 + (n % 6); !killed; page = (page % 6) + 1) {
          try {
            const answer = await fetch(`${url}?limit=10&page=${page}`, {
              headers: { authorization: `Bearer ${key}` },
            });
            if (answer.status !== 200) continue;
            const body = (await answer.json()) as { data: Array<{ id: string }> };
            received.push(body.data.map((row) => row.id));
          } catch {
            return;
          }
        }
      };
      const clients = Array.from({ length: CLIENTS }, (_, n) => client(n));
      while (received.length < 200) await new Promise((resolve) => setTimeout(resolve, 5));
      server.child.kill('SIGKILL');
      killed = true;
      await exitOf(server.child);
      await Promise.all(clients);

      // Every answer received has its own line; a line beyond them is an answer under way at the
      // kill (recorded, then never sent): at most one per client.
      const lines = (await recordOf(store)).map((line) => line.rows.join(','));
      const left = new Map<string, number>();
      for (const line of lines) left.set(line, (left.get(line) ?? 0) + 1);
      for (const answer of received) {
        const named = answer.join(',');
        expect(left.get(named) ?? 0, `a line for ${named}`).toBeGreaterThan(0);
        left.set(named, (left.get(named) ?? 0) - 1);
      }
      expect(lines.length - received.length).toBeLessThanOrEqual(CLIENTS);
    } finally {
      await store.close();
    }
  }, 120_000);
});
