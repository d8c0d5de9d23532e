import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Mirror, SyncWatcher } from '../packages/sync/src/index.ts';
import { systemClock } from '../src/clock.ts';
import type { Store } from '../src/db/connect.ts';
import { importDocument } from '../src/import/import.service.ts';
import { addEndpoint } from '../src/notifications/endpoints.service.ts';
import { webhookSealKey } from '../src/notifications/signing.ts';
import { createTestKey } from '../test/helpers/factories.ts';

/** Imports in the watch case; each adds WATCH_ADDED rows and removes one. */
export const WATCH_ROUNDS = 20;
export const WATCH_ADDED = 10;

export interface WatchRow {
  rounds: number;
  /** From an import's commit until the mirror holds exactly the campaign's rows, in ms. */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Rounds whose mirror never became exact within 30 s. */
  missed: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `hadir-sync watch` against a running server: a campaign gets WATCH_ROUNDS imports (rows added,
 * one removed) and each time the time from the commit until the mirror is exact is taken. The
 * safety poll is off (an hour), so only notifications move the mirror.
 */
export async function measureWatchMirror(options: {
  store: Store;
  baseUrl: string;
  sealSecret: string;
}): Promise<WatchRow> {
  const { store, baseUrl } = options;
  const campaignId = 'watch-mirror';
  await importDocument(store, systemClock, {
    campaigns: [
      {
        id: campaignId,
        slug: campaignId,
        title: campaignId,
        eventDate: null,
        location: null,
        fields: [],
      },
    ],
  });
  const key = await createTestKey(store, systemClock, [{ campaignId, fields: [] }]);
  const folder = mkdtempSync(join(tmpdir(), 'hadir-bench-watch-'));
  const mirror = await Mirror.open(`sqlite:${join(folder, 'mirror.sqlite')}`);
  const settings = {
    store,
    clock: systemClock,
    sealKey: webhookSealKey(Buffer.from(options.sealSecret, 'hex')),
    allowPrivateNetworks: true,
    actor: 'bench',
  };
  const { endpoint, secret } = await addEndpoint(settings, {
    keyId: key.id,
    url: 'http://127.0.0.1:9/',
  });
  const watcher = new SyncWatcher(
    {
      sync: { baseUrl, apiKey: key.key, campaigns: [campaignId], limit: 200 },
      listen: { host: '127.0.0.1', port: 0 },
      secrets: [secret],
      pollIntervalMs: 3_600_000,
    },
    { mirror, log: () => {} },
  );
  const { url } = await watcher.start();
  await store.db
    .updateTable('webhook_endpoints')
    .set({ url: url as string })
    .where('id', '=', endpoint.id)
    .execute();
  const live = new Set<string>();
  const mirrored = async () => {
    const ids = new Set<string>();
    for await (const row of mirror.rows([campaignId])) ids.add(row.id);
    return ids;
  };
  const exact = async () => {
    const ids = await mirrored();
    return ids.size === live.size && [...live].every((id) => ids.has(id));
  };
  const times: number[] = [];
  let missed = 0;
  try {
    for (let round = 0; round < WATCH_ROUNDS; round++) {
      const added = Array.from({ length: WATCH_ADDED }, (_, n) => `w${round}-${n}`);
      const leaving = [...live][0];
      await importDocument(store, systemClock, {
        respondents: [
          ...added.map((id, n) => ({
            id,
            campaignId,
            submittedAt: new Date(Date.UTC(2026, 10, 1) + round * 60_000 + n).toISOString(),
            attendanceStatus: 'YES',
            answers: {},
          })),
          ...(leaving ? [{ id: leaving, deleted: true }] : []),
        ],
      });
      const committed = Date.now();
      for (const id of added) live.add(id);
      if (leaving) live.delete(leaving);
      const deadline = committed + 30_000;
      while (!(await exact()) && Date.now() < deadline) await sleep(10);
      if (await exact()) times.push(Date.now() - committed);
      else missed += 1;
    }
  } finally {
    await watcher.stop();
    await mirror.close();
    rmSync(folder, { recursive: true, force: true });
  }
  times.sort((a, b) => a - b);
  const at = (share: number) =>
    times[Math.min(times.length - 1, Math.floor(share * times.length))] ?? Number.NaN;
  return {
    rounds: WATCH_ROUNDS,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    maxMs: times.at(-1) ?? Number.NaN,
    missed,
  };
}
