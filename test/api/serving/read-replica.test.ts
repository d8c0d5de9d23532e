import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../../src/db/connect.ts';
import { migrateToLatest } from '../../../src/db/migrate.ts';
import { Metrics } from '../../../src/http/metrics.ts';
import { buildApp } from '../../../src/serving/app.ts';
import { assembleServices, type Services } from '../../../src/serving/services.ts';
import { logCapture, TEST_SECRETS } from '../../helpers/app.ts';
import { ManualClock } from '../../helpers/clock.ts';
import { createTestKey, importRespondents, seedCampaign } from '../../helpers/factories.ts';
import { type PostgresCluster, startPostgresCluster } from '../../helpers/postgres-cluster.ts';
import { until } from '../../helpers/until.ts';

const PAGE = '/developer/v1/campaigns/c/respondents';
const MAX_LAG_MS = 800;

type Answer = { status: number; name: string | undefined; fromReplica: boolean };

// A primary of its own and its streaming replica: the shared cluster has no standby.
describe('DATABASE_READ_URL: a streaming replica whose replay is paused', () => {
  const clock = new ManualClock();
  const metrics = new Metrics();
  let primaryCluster: PostgresCluster;
  let standby: PostgresCluster;
  let primary: Store;
  let replica: Store;
  let keys: string[];
  let services: Services;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let logs: ReturnType<typeof logCapture>;

  const onStandby = async (statement: string) => {
    const client = new pg.Client({ connectionString: standby.url('hadir') });
    await client.connect();
    try {
      return (await client.query(statement)).rows[0];
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    primaryCluster = await startPostgresCluster();
    const admin = new pg.Client({ connectionString: primaryCluster.url('postgres') });
    await admin.connect();
    await admin.query('CREATE DATABASE hadir');
    await admin.end();
    primary = openStore(primaryCluster.url('hadir'));
    await migrateToLatest(primary);
    await seedCampaign(primary, clock, {
      id: 'c',
      fields: [{ key: 'nama', type: 'TEXT' }],
      respondents: [{ id: 'r1', submittedAt: '2026-03-01T10:00:00Z', answers: { nama: 'Ayu' } }],
    });
    keys = [];
    for (let n = 0; n < 3; n++) {
      keys.push(
        (
          await createTestKey(primary, clock, [{ campaignId: 'c', fields: ['nama'] }], {
            email: `replica${n}@example.test`,
          })
        ).key,
      );
    }
    standby = await startPostgresCluster({ standbyOf: primaryCluster.port });
    replica = openStore(standby.url('hadir'));
    logs = logCapture();
    services = await assembleServices({
      metrics,
      store: primary,
      readStore: replica,
      replica: { maxLagMs: MAX_LAG_MS },
      clock,
      logger: logs.logger,
      accessLogger: logs.logger,
      secrets: TEST_SECRETS,
      mailer: { send: async () => {}, close: () => {} },
      portal: {
        publicUrl: () => 'http://127.0.0.1:3000',
        sessionIdleMs: 60_000,
        sessionAbsoluteMs: 60_000,
        addressAttemptsPerMinute: 100,
      },
      config: { rateLimitPerMinute: 100_000, anonymousRateLimitPerMinute: 100 },
    });
    app = await buildApp(services);
  }, 90_000);
  afterAll(async () => {
    await app?.close().catch(() => {});
    await services?.close();
    await primary?.close();
    await replica?.close();
    await standby?.stop();
    await primaryCluster?.stop();
  });

  const readsFrom = async (store: 'primary' | 'replica') =>
    (await metrics.dataReads.get()).values.find((value) => value.labels.store === store)?.value ??
    0;

  const read = async (key: string): Promise<Answer> => {
    const response = await app.inject({ url: PAGE, headers: { authorization: `Bearer ${key}` } });
    const line = logs.logs.filter((entry) => entry.msg === 'data access').at(-1);
    return {
      status: response.statusCode,
      name: response.json().data?.[0]?.fields?.nama,
      fromReplica: line?.readFrom === 'replica',
    };
  };

  it('reads from the replica while it keeps up', async () => {
    await until(async () => (await read(keys[0] as string)).fromReplica, 'a read from the replica');
    const before = await readsFrom('replica');
    const answer = await read(keys[0] as string);
    expect(answer).toEqual({ status: 200, name: 'Ayu', fromReplica: true });
    expect(await readsFrom('replica')).toBe(before + 1);
  });

  it('never answers a key older than it has seen, and leaves a replica too far behind', async () => {
    await onStandby('SELECT pg_wal_replay_pause()');
    await importRespondents(primary, clock, 'c', [
      { id: 'r1', submittedAt: '2026-03-02T10:00:00Z', answers: { nama: 'Ayu Lestari' } },
    ]);
    // Every key, over and over, until the replica has been behind for longer than allowed.
    const seen = new Map<string, Answer[]>(keys.map((key) => [key, []]));
    const started = Date.now();
    while (Date.now() - started < MAX_LAG_MS * 2.5) {
      for (const key of keys) seen.get(key)?.push(await read(key));
    }
    let stale = 0;
    for (const answers of seen.values()) {
      const first = answers.findIndex((answer) => answer.name === 'Ayu Lestari');
      // Once a key has read the new name, no answer after gives the old one.
      if (first >= 0) stale += answers.slice(first).filter((a) => a.name !== 'Ayu Lestari').length;
    }
    expect(stale).toBe(0);
    // Past the lag it may have, the replica answers nobody: every key reads the new name.
    const primaryReads = await readsFrom('primary');
    for (const key of keys) {
      expect(await read(key)).toEqual({ status: 200, name: 'Ayu Lestari', fromReplica: false });
    }
    // And the metrics say so: the replica's lag past the bound, each read on the primary.
    expect(await readsFrom('primary')).toBe(primaryReads + keys.length);
    const [lag] =
      (await metrics.registry.getSingleMetric('hadir_replica_lag_seconds')?.get())?.values ?? [];
    expect(lag?.value).toBeGreaterThan(MAX_LAG_MS / 1000);
  });

  it('reads from the replica again once it has caught up', async () => {
    await onStandby('SELECT pg_wal_replay_resume()');
    await until(
      async () => (await read(keys[1] as string)).fromReplica,
      'the replica to serve again',
    );
    for (const key of keys) {
      await until(async () => (await read(key)).fromReplica, 'each key back on the replica');
      expect(await read(key)).toEqual({ status: 200, name: 'Ayu Lestari', fromReplica: true });
    }
  });

  it("writes a key's last use to the primary, the standby only replaying", async () => {
    // Closing writes the keys' last uses still pending (see KeyUsage).
    await app.close();
    await services.close();
    const used = await primary.db
      .selectFrom('api_keys')
      .select('last_used_at')
      .where('last_used_at', 'is not', null)
      .execute();
    expect(used).toHaveLength(keys.length);
    expect((await onStandby('SELECT pg_is_in_recovery() AS recovering')).recovering).toBe(true);
  });
});
