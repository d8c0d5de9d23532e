import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { type ProcessSettings, settingsFor } from '../../src/process-memory.ts';
import { startHadir } from '../helpers/cli.ts';
import { createTestKey, seedCampaign } from '../helpers/factories.ts';
import { childrenOf } from '../helpers/processes.ts';
import { createTestDatabaseUrl, openTestStore } from '../helpers/stores.ts';

/** A GET on a connection of its own, so the cluster hands it to the next worker in turn. */
function getOnNewConnection(url: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { agent: false, headers: { authorization: `Bearer ${key}` } });
    outgoing.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('WORKERS=2 without Redis', () => {
  it('gives a key one budget on the machine, not one per worker, each worker sized alike', async () => {
    const databaseUrl = await createTestDatabaseUrl('sqlite');
    const store = await openTestStore(databaseUrl);
    await seedCampaign(store, systemClock, { id: 'c' });
    const { key } = await createTestKey(store, systemClock, [{ campaignId: 'c', fields: [] }]);
    await store.close();

    const server = await startHadir(['serve', '--port', '0', '--json'], {
      databaseUrl,
      env: { WORKERS: '2', RATE_LIMIT_PER_MINUTE: '10' },
      ready: /^\{"url":"(http:\/\/[^"]+)","workers":2/m,
    });
    onTestFinished(() => {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    });
    const url = `${server.match[1]}/developer/v1/campaigns`;
    const statuses: number[] = [];
    for (let n = 0; n < 30; n++) statuses.push(await getOnNewConnection(url, key));
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.slice(10).every((status) => status === 429)).toBe(true);

    // Each worker runs with the memory settings the primary started with (process-memory.ts).
    const { semiSpaceMb, mallocArenas } = settingsFor('serve', process.env) as ProcessSettings;
    const workers = childrenOf(server.child.pid as number);
    expect(workers).toHaveLength(2);
    for (const pid of workers) {
      expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')).toContain(
        `--max-semi-space-size=${semiSpaceMb}`,
      );
      expect(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')).toContain(
        `MALLOC_ARENA_MAX=${mallocArenas}`,
      );
    }
  });
});
