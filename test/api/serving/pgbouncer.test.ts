import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.ts';
import { openStore, type Store } from '../../../src/db/connect.ts';
import { migrateDatabase, migrateToLatest } from '../../../src/db/migrate.ts';
import { findKeyByHash } from '../../../src/keys/keys.repository.ts';
import { exitOf, runHadirInProcess, startHadir, TEST_SECRET_ENV } from '../../helpers/cli.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';
import { postBatch } from '../../helpers/ingest-batch.ts';
import { type PgBouncer, startPgBouncer } from '../../helpers/pgbouncer.ts';
import { TestReceiver } from '../../helpers/receiver.ts';
import { createEmptyPostgresUrl } from '../../helpers/stores.ts';
import { until } from '../../helpers/until.ts';

const CAMPAIGNS = ['satu', 'dua', 'tiga'];

describe('Hadir behind PgBouncer 1.18 in transaction mode', () => {
  let bouncer: PgBouncer;
  let direct: string;
  let pooled: string;
  let store: Store;
  let key: Awaited<ReturnType<typeof createTestKey>>;

  beforeAll(async () => {
    direct = await createEmptyPostgresUrl();
    bouncer = await startPgBouncer(direct);
    pooled = `${bouncer.pooled(direct)}?pgbouncer=true`;
    // The schema is made through the pooler, as the server's start makes it.
    await migrateDatabase(pooled);
    store = openStore(pooled);
    for (const id of CAMPAIGNS) {
      await seedCampaign(store, systemClock, {
        id,
        fields: [{ key: 'nama', type: 'TEXT' }],
        respondents: Array.from({ length: 30 }, (_, n) => ({
          id: `${id}-${n}`,
          submittedAt: new Date(Date.UTC(2026, 10, 1) + n * 1000).toISOString(),
          answers: { nama: `Tamu ${n}` },
        })),
      });
    }
    key = await createTestKey(
      store,
      systemClock,
      CAMPAIGNS.map((campaignId) => ({ campaignId, fields: ['nama'] })),
    );
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await bouncer?.stop();
  });

  it('serves, ingests and notifies with DATABASE_URL on the pooler, LISTEN on PostgreSQL itself', async () => {
    const receiver = await TestReceiver.start();
    const added = await runHadirInProcess(
      [
        'webhooks',
        'add',
        '--key',
        key.id,
        '--url',
        receiver.url,
        '--events',
        'respondents.changed',
      ],
      { databaseUrl: pooled, env: { WEBHOOKS_ALLOW_PRIVATE_NETWORKS: '1' } },
    );
    expect(added.status, added.stderr).toBe(0);
    const { token } = JSON.parse(
      (
        await runHadirInProcess(['ingest-tokens', 'create', '--name', 'relay', '--json'], {
          databaseUrl: pooled,
        })
      ).stdout,
    );
    const server = await startHadir(['serve', '--port', '0', '--json'], {
      databaseUrl: pooled,
      env: {
        ...TEST_SECRET_ENV,
        DATABASE_LISTEN_URL: direct,
        WEBHOOKS_ALLOW_PRIVATE_NETWORKS: '1',
      },
      ready: /"url":"(http:\/\/[^"]+)"/,
    });
    try {
      const base = server.match[1] as string;
      // Many requests at once over two server connections: each statement goes whole.
      const answers = await Promise.all(
        Array.from({ length: 90 }, (_, n) =>
          fetch(`${base}/developer/v1/campaigns/${CAMPAIGNS[n % 3]}/respondents?limit=10`, {
            headers: { authorization: `Bearer ${key.key}` },
          }),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
      const first = (await answers[0]?.json()) as { data: Array<{ id: string }> };
      expect(first.data.map((row) => row.id)).toHaveLength(10);

      const batch = await postBatch(base, token, 'through-the-pooler', [
        {
          type: 'respondent',
          id: 'satu-baru',
          campaignId: 'satu',
          submittedAt: '2026-11-20T00:00:00Z',
          attendanceStatus: 'YES',
          answers: { nama: 'Tamu Baru' },
        },
      ]);
      expect(batch.status, await batch.clone().text()).toBe(200);
      const read = await fetch(
        `${base}/developer/v1/campaigns/satu/respondents?since=2026-11-19T00:00:00Z`,
        {
          headers: { authorization: `Bearer ${key.key}` },
        },
      );
      expect(
        ((await read.json()) as { data: Array<{ id: string }> }).data.map((row) => row.id),
      ).toEqual(['satu-baru']);
      // The portal's sign-in reads the account and counts the attempt, through the pooler too.
      const refused = await fetch(`${base}/developer/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: key.account.email, password: 'not-the-password-at-all' }),
      });
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
        'invalid_credentials',
      );
      await until(
        () => receiver.events().some((event) => event.data.campaignId === 'satu'),
        `the notification of the batch:\n${server.output()}`,
      );
    } finally {
      server.child.kill('SIGTERM');
      await exitOf(server.child);
      await receiver.close();
    }
  }, 60_000);

  it('names ?pgbouncer=true when a start without it is refused', async () => {
    // serve's own store, whose session settings the pooler refuses.
    const named = openStore(bouncer.pooled(direct));
    await expect(migrateToLatest(named).finally(() => named.close())).rejects.toThrow(
      /^cannot use the database DATABASE_URL names \(.*\): a connection pooler refused a session setting \(unsupported startup parameter: statement_timeout\): behind PgBouncer in transaction mode, add \?pgbouncer=true to DATABASE_URL$/,
    );
  });

  it('would fail there without ?pgbouncer=true (the control)', async () => {
    const named = openStore(bouncer.pooled(direct));
    try {
      const reads = Array.from({ length: 200 }, (_, n) =>
        findKeyByHash(named, `${n}`.padStart(64, '0')),
      );
      const outcomes = await Promise.allSettled(reads);
      const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
      expect(refused.length).toBeGreaterThan(0);
      // statement_timeout as a startup parameter, or a statement prepared by name on another
      // server connection.
      expect(String((refused[0] as PromiseRejectedResult).reason)).toMatch(
        /unsupported startup parameter: statement_timeout|prepared statement/,
      );
    } finally {
      await named.close();
    }
  });
});
