import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import type { Store } from '../../src/db/connect.ts';
import { logCapture, TEST_SECRETS } from '../helpers/app.ts';
import { ManualClock } from '../helpers/clock.ts';
import { createTestKey, importRespondents, seedCampaign } from '../helpers/factories.ts';
import { createTestDatabaseUrl, openTestStore } from '../helpers/stores.ts';

describe('DATABASE_READ_URL: data reads from a replica', () => {
  const clock = new ManualClock();
  let primary: Store;
  let replica: Store;
  let key: string;

  beforeAll(async () => {
    const primaryUrl = await createTestDatabaseUrl('postgres');
    const seeding = await openTestStore(primaryUrl);
    await seedCampaign(seeding, clock, {
      id: 'c',
      respondents: [{ id: 'r1', submittedAt: '2026-03-01T10:00:00Z', answers: { nama: 'Ayu' } }],
    });
    key = (await createTestKey(seeding, clock, [{ campaignId: 'c', fields: ['nama'] }])).key;
    await seeding.close();
    // A snapshot of the primary stands in for a replica that has not caught up yet.
    const replicaUrl = primaryUrl.replace(/\/(\w+)$/, '/$1_replica');
    const admin = new pg.Client({ connectionString: primaryUrl.replace(/\/\w+$/, '/postgres') });
    await admin.connect();
    const name = new URL(primaryUrl).pathname.slice(1);
    await admin.query(`CREATE DATABASE ${name}_replica TEMPLATE ${name}`);
    await admin.end();
    primary = await openTestStore(primaryUrl);
    replica = await openTestStore(replicaUrl);
    await importRespondents(primary, clock, 'c', [
      { id: 'r1', submittedAt: '2026-03-02T10:00:00Z', answers: { nama: 'Ayu Lestari' } },
    ]);
  });
  afterAll(async () => {
    await primary?.close();
    await replica?.close();
  });

  it('serves campaign data from the replica while keys are checked against the primary', async () => {
    const app = await buildApp({
      store: primary,
      readStore: replica,
      clock,
      logger: logCapture().logger,
      secrets: TEST_SECRETS,
      mailer: { send: async () => {}, close: () => {} },
      portal: {
        publicUrl: () => 'http://127.0.0.1:3000',
        sessionIdleMs: 60_000,
        sessionAbsoluteMs: 60_000,
        addressAttemptsPerMinute: 100,
      },
      config: { rateLimitPerMinute: 100, anonymousRateLimitPerMinute: 100 },
    });
    try {
      const response = await app.inject({
        url: '/developer/v1/campaigns/c/respondents',
        headers: { authorization: `Bearer ${key}` },
      });
      expect(response.statusCode).toBe(200);
      expect(response.json().data[0].fields).toEqual({ nama: 'Ayu' });
    } finally {
      // Closing writes the keys' last uses still pending (see KeyUsage).
      await app.close();
    }
    // The key's last use is a write: it lands on the primary, never on the replica.
    const used = await primary.db.selectFrom('api_keys').select('last_used_at').executeTakeFirst();
    const untouched = await replica.db
      .selectFrom('api_keys')
      .select('last_used_at')
      .executeTakeFirst();
    expect(used?.last_used_at).toBe(clock.now());
    expect(untouched?.last_used_at).toBeNull();
  });
});
