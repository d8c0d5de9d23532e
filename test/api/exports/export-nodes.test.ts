import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.ts';
import type { Store } from '../../../src/db/connect.ts';
import { runName, slotAt } from '../../../src/exports/export-schedule.ts';
import { HOUR_MS } from '../../../src/time-units.ts';
import { exitOf, runHadirInProcess, startHadir } from '../../helpers/cli.ts';
import { ManualClock } from '../../helpers/clock.ts';
import { exportsAdd, PARTNER_ENV } from '../../helpers/export-world.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';
import { startS3Server, type TestS3 } from '../../helpers/s3-server.ts';
import { createTestDatabaseUrl, openTestStore } from '../../helpers/stores.ts';
import { until } from '../../helpers/until.ts';

const NODES = 3;

describe('three serve processes due for the same delivery slot', () => {
  let databaseUrl: string;
  let store: Store;
  let s3: TestS3;
  const nodes: Array<Awaited<ReturnType<typeof startHadir>>> = [];

  beforeAll(async () => {
    databaseUrl = await createTestDatabaseUrl('postgres');
    store = await openTestStore(databaseUrl);
    s3 = await startS3Server(['partner']);
    await seedCampaign(store, systemClock, {
      id: 'c',
      fields: [{ key: 'nama', type: 'TEXT' }],
      respondents: Array.from({ length: 200 }, (_, n) => ({
        id: `r${n}`,
        submittedAt: '2026-11-01T00:00:00Z',
        answers: { nama: `Tamu ${n}` },
      })),
    });
    const key = await createTestKey(store, systemClock, [{ campaignId: 'c', fields: ['nama'] }]);
    // Set up an hour ago: this hour's slot is due the moment a node looks.
    const added = await runHadirInProcess(
      exportsAdd(key.id, s3.endpoint, [
        '--to',
        's3://partner/nodes',
        '--every',
        '1h',
        '--format',
        'csv,parquet',
      ]),
      {
        databaseUrl,
        clock: new ManualClock(Date.now() - HOUR_MS),
        env: PARTNER_ENV,
      },
    );
    expect(added.status, added.stderr).toBe(0);
  }, 60_000);
  afterAll(async () => {
    for (const node of nodes) node.child.kill('SIGTERM');
    for (const node of nodes) await exitOf(node.child);
    await s3?.close();
    await store?.close();
  });

  it('runs it on exactly one of them', async () => {
    const slot = slotAt({ every: '1h' }, Date.now());
    // Started together: each looks for due runs as it begins to listen.
    nodes.push(
      ...(await Promise.all(
        Array.from({ length: NODES }, () =>
          startHadir(['serve', '--port', '0', '--json'], {
            databaseUrl,
            env: { LOG_LEVEL: 'info', METRICS_PORT: '0' },
            ready: /"metricsUrl":"(http:\/\/[^"]+)"/,
          }),
        ),
      )),
    );
    const manifest = `nodes/${runName(slot)}/manifest.json`;
    await until(async () => (await s3.keys('partner', manifest)).length === 1, 'the manifest');
    const delivered = () =>
      nodes.map((node) => node.output().split('delivered to a bucket').length - 1);
    await until(() => delivered().some((lines) => lines > 0), 'the log line of the run');
    const runs = await store.db.selectFrom('export_runs').selectAll().execute();
    expect(runs.map((run) => [Number(run.run_at), run.state, run.attempts])).toEqual([
      [slot, 'done', 1],
    ]);
    // One node says it delivered; the others, nothing.
    expect(delivered().sort()).toEqual([0, 0, 1]);
    expect(await s3.keys('partner', 'nodes/')).toEqual(
      ['c.csv', 'c.parquet', 'manifest.json'].map((name) => `nodes/${runName(slot)}/${name}`),
    );
    // And so say the metrics: one node ran it, and each sees it fresh.
    const scrapes = await Promise.all(
      nodes.map(async (node) => (await fetch(node.match[1] as string)).text()),
    );
    const counted = scrapes.filter((text) =>
      text.includes('hadir_export_runs_total{outcome="delivered"} 1'),
    );
    expect(counted).toHaveLength(1);
    for (const text of scrapes) {
      expect(text).toMatch(/^hadir_exports 1$/m);
      const age = Number(/^hadir_export_last_delivered_age_seconds (\S+)$/m.exec(text)?.[1]);
      expect(age).toBeLessThan(60);
    }
    const audited = await store.db
      .selectFrom('audit_log')
      .select('details')
      .where('action', '=', 'export.delivered')
      .execute();
    expect(audited).toHaveLength(1);
  });
});
