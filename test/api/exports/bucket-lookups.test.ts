import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dnsResolver } from '../../../src/outbound/resolver.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { exportWorld } from '../../helpers/export-world.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';
import { startNameServer } from '../../helpers/name-server.ts';
import { S3_CREDENTIALS, startS3Server, type TestS3 } from '../../helpers/s3-server.ts';

describe("a holder's bucket whose name server never answers", () => {
  let t: TestApp;
  let s3: TestS3;
  let names: Awaited<ReturnType<typeof startNameServer>>;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    s3 = await startS3Server(['partner']);
    names = await startNameServer({ 'healthy.bucket.test': '127.0.0.1' }, ['silent.bucket.test']);
    await seedCampaign(t.store, t.clock, {
      id: 'c',
      fields: [{ key: 'menu', type: 'TEXT' }],
      respondents: [{ id: 'r1', submittedAt: '2026-11-01T00:00:00Z', answers: { menu: 'Sate' } }],
    });
  });
  afterAll(async () => {
    await names?.close();
    await s3?.close();
    await t?.close();
  });

  it("holds no other holder's delivery: the healthy one runs in its normal time beside four", async () => {
    const port = new URL(s3.endpoint).port;
    // A silent name is given up after two tries of a second each, a run after three such lookups.
    const resolve = dnsResolver({ servers: [names.server], tryMs: 1_000 });
    const holderOf = () => createTestKey(t.store, t.clock, [{ campaignId: 'c', fields: ['menu'] }]);
    const holders = [await holderOf(), await holderOf()];
    const deliveryOf = async (holder: (typeof holders)[number], host: string, prefix: string) => {
      const world = exportWorld(t.store, t.clock, s3, resolve);
      world.settings.actor = holder.account.id;
      const added = await world.add({
        keyId: holder.id,
        to: `s3://partner/${prefix}`,
        endpoint: `http://${host}:${port}`,
        credentials: S3_CREDENTIALS,
        schedule: { every: '1h' },
        formats: ['csv'],
      });
      return { world, id: added.id };
    };
    const silent = [
      await deliveryOf(holders[0] as (typeof holders)[number], 'silent.bucket.test', 's1'),
      await deliveryOf(holders[0] as (typeof holders)[number], 'silent.bucket.test', 's2'),
      await deliveryOf(holders[0] as (typeof holders)[number], 'silent.bucket.test', 's3'),
      await deliveryOf(holders[1] as (typeof holders)[number], 'silent.bucket.test', 's4'),
    ];
    const healthy = await deliveryOf(
      holders[1] as (typeof holders)[number],
      'healthy.bucket.test',
      'ok',
    );
    // More lookups hang than libuv has threads for getaddrinfo (4): none may hold the others.
    let silentEnded = 0;
    const hanging = silent.map(({ world, id }) =>
      world
        .worker()
        .runNow(id)
        .then(
          () => 'delivered',
          (error: Error) => error.message,
        )
        .finally(() => {
          silentEnded += 1;
        }),
    );
    await new Promise((settle) => setTimeout(settle, 50));
    const result = await healthy.world.worker().runNow(healthy.id);
    expect(result.manifest.files).toHaveLength(1);
    // Its normal time, whatever the machine: done before any silent one reached its deadlines
    // (three lookups of two one-second tries each), which it would have waited for if held.
    expect(silentEnded).toBe(0);
    expect((await s3.keys('partner', 'ok/')).some((key) => key.endsWith('manifest.json'))).toBe(
      true,
    );
    // The silent ones end at their own deadlines, as failed lookups.
    for (const outcome of await Promise.all(hanging))
      expect(outcome).toMatch(/silent\.bucket\.test|queryA|ETIMEOUT/);
  }, 30_000);
});
