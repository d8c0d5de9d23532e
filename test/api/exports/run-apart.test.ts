import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../../src/accounts/accounts.service.ts';
import type { Store } from '../../../src/db/store.ts';
import type { RunResult } from '../../../src/exports/export-run.ts';
import { RUN_LEASE_MS } from '../../../src/exports/export-worker.ts';
import { listExports } from '../../../src/exports/exports.service.ts';
import { runApart } from '../../../src/exports/run-apart.ts';
import { issueKey, revokeKey } from '../../../src/keys/keys.service.ts';
import { TEST_SECRETS } from '../../helpers/app.ts';
import { ManualClock } from '../../helpers/clock.ts';
import { recordOf } from '../../helpers/disclosure-record.ts';
import { exportWorld, sha256 } from '../../helpers/export-world.ts';
import { seedCampaign } from '../../helpers/factories.ts';
import { startS3Server, type TestS3 } from '../../helpers/s3-server.ts';
import { createTestStore, ENGINES } from '../../helpers/stores.ts';

const GUESTS = 300;

/** The processes this one has started and that still run (Linux). */
function childrenOfThisProcess(): number[] {
  const listed = readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8');
  return listed.split(' ').filter(Boolean).map(Number);
}

describe.each(ENGINES)('a delivery run in a process of its own, on %s', (engine) => {
  let s3: TestS3;
  let store: Store;
  let keyId: string;
  const clock = new ManualClock(Date.now());
  let world: ReturnType<typeof exportWorld>;
  const apart = () =>
    runApart({
      databaseUrl: store.url,
      keySealKey: TEST_SECRETS.keySealKey,
      allowPrivateNetworks: true,
      speedupsOff: [],
      recordsDisclosures: true,
      leaseMs: RUN_LEASE_MS,
    });

  beforeAll(async () => {
    s3 = await startS3Server(['partner']);
    store = await createTestStore(engine);
    await seedCampaign(store, clock, {
      id: 'nikah',
      fields: [
        { key: 'nama', type: 'TEXT' },
        { key: 'telepon', type: 'PHONE' },
      ],
      respondents: Array.from({ length: GUESTS }, (_, n) => ({
        id: `r${String(n).padStart(3, '0')}`,
        submittedAt: '2026-11-01T00:00:00Z',
        answers: { nama: `Tamu ${n}`, telepon: `+62811${String(n).padStart(7, '0')}` },
      })),
    });
    await createAccount(store, clock, { email: 'bi@example.test', mustChangePassword: false });
    keyId = (
      await issueKey(store, clock, {
        accountEmail: 'bi@example.test',
        scopes: [{ campaignId: 'nikah', fields: ['nama'] }],
      })
    ).id;
    world = exportWorld(store, clock, s3);
  }, 60_000);
  // Each test's deliveries end with it.
  afterEach(() => world.removeAll());
  afterAll(async () => {
    await world?.keyUsage.close();
    await store?.close();
    await s3?.close();
  });

  it('writes the same files as a run in the serving process, and records what it handed over', async () => {
    const here = await world.add({
      keyId,
      to: 's3://partner/here',
      schedule: { every: '1h' },
      formats: ['csv', 'parquet'],
    });
    const away = await world.add({
      keyId,
      to: 's3://partner/away',
      schedule: { every: '1h' },
      formats: ['csv', 'parquet'],
    });
    const inThisProcess = await world.worker().runNow(here.id);
    const before = childrenOfThisProcess();
    const started: number[] = [];
    const watching = setInterval(() => {
      started.push(...childrenOfThisProcess().filter((pid) => !before.includes(pid)));
    }, 5);
    const recordBefore = (await recordOf(store)).length;
    let inItsOwn: RunResult;
    try {
      inItsOwn = await world.worker({ deliver: apart() }).runNow(away.id);
    } finally {
      clearInterval(watching);
    }
    // The run was carried out by a process started for it, gone once it answered.
    expect(started.length).toBeGreaterThan(0);
    expect(childrenOfThisProcess().filter((pid) => started.includes(pid))).toEqual([]);

    const files = (result: RunResult) =>
      result.manifest.files.map(({ path, rows, bytes, sha256 }) => ({ path, rows, bytes, sha256 }));
    expect(files(inItsOwn)).toEqual(files(inThisProcess));
    expect(inItsOwn.rows).toBe(2 * GUESTS);
    const csv = await s3.read('partner', `away/${inItsOwn.manifest.run}/nikah.csv`);
    expect(sha256(csv)).toBe(inItsOwn.manifest.files.find((f) => f.format === 'csv')?.sha256);
    expect(csv.toString()).not.toContain('+62811');

    // Its lines of the record, written before it answered: each guest, once per file, as 'delivery'.
    const lines = (await recordOf(store)).slice(recordBefore);
    expect(new Set(lines.map((line) => line.door))).toEqual(new Set(['delivery']));
    expect(new Set(lines.map((line) => line.keyId))).toEqual(new Set([keyId]));
    expect(new Set(lines.flatMap((line) => line.fields))).toEqual(new Set(['nama']));
    expect(lines.flatMap((line) => line.rows)).toHaveLength(2 * GUESTS);
    const [delivered] = await listExports(world.settings, keyId).then((all) =>
      all.filter((delivery) => delivery.id === away.id),
    );
    expect(delivered?.lastRun).toMatchObject({ state: 'done', rows: 2 * GUESTS });
  });

  it('tells why it failed as a run here would, and stops once the key is not in force', async () => {
    const missing = await world.add({
      keyId,
      to: 's3://no-such-bucket/x',
      schedule: { every: '1h' },
      formats: ['csv'],
    });
    await expect(world.worker({ deliver: apart() }).runNow(missing.id)).rejects.toThrow(
      /NoSuchBucket \(HTTP 404\): the bucket does not exist/,
    );
    const [failed] = (await listExports(world.settings, keyId)).filter((d) => d.id === missing.id);
    expect(failed?.lastRun).toMatchObject({ state: 'failed', attempts: 1 });
    expect(failed?.lastRun?.nextAttemptAt).not.toBeNull();

    const stopped = await world.add({
      keyId,
      to: 's3://partner/stopped',
      schedule: { every: '1h' },
      formats: ['csv'],
    });
    await revokeKey(store, clock, keyId);
    clock.advance(1_000);
    await expect(world.worker({ deliver: apart() }).runNow(stopped.id)).rejects.toThrow(
      /no longer in force/,
    );
    const [ended] = (await listExports(world.settings, keyId)).filter((d) => d.id === stopped.id);
    expect(ended?.lastRun).toMatchObject({ state: 'failed', nextAttemptAt: null });
  });
});
