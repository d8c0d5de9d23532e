import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/db/connect.ts';
import { DisclosureLog } from '../../src/disclosures/disclosure-log.ts';
import { importDocument } from '../../src/import/import.service.ts';
import { DeliveryWorker } from '../../src/notifications/delivery-worker.ts';
import { webhookSealKey } from '../../src/notifications/signing.ts';
import { runHadirInProcess, TEST_SECRET_ENV } from '../helpers/cli.ts';
import { ManualClock } from '../helpers/clock.ts';
import { createTestKey, seedCampaign } from '../helpers/factories.ts';
import { TestReceiver } from '../helpers/receiver.ts';
import { createTestDatabaseUrl, openTestStore } from '../helpers/stores.ts';

describe('hadir webhooks', () => {
  let databaseUrl: string;
  let store: Store;
  let keyId: string;
  let receiver: TestReceiver;
  const clock = new ManualClock(Date.now());
  const hadir = (args: string[], env: Record<string, string> = {}) =>
    runHadirInProcess(args, { databaseUrl, clock, env });

  beforeAll(async () => {
    databaseUrl = await createTestDatabaseUrl('sqlite');
    store = await openTestStore(databaseUrl);
    receiver = await TestReceiver.start();
    await seedCampaign(store, clock, {
      id: 'nikah',
      respondents: [{ id: 'r1', submittedAt: '2026-11-01T00:00:00Z' }],
    });
    keyId = (await createTestKey(store, clock, [{ campaignId: 'nikah', fields: [] }])).id;
  });
  afterAll(async () => {
    await receiver.close();
    await store.close();
  });

  it('adds an endpoint and prints its id and secret once; the secret verifies what it is sent', async () => {
    const added = await hadir(
      [
        'webhooks',
        'add',
        '--key',
        keyId,
        '--url',
        receiver.url,
        '--events',
        'respondents.changed',
        '--json',
      ],
      { WEBHOOKS_ALLOW_PRIVATE_NETWORKS: '1' },
    );
    expect(added.stderr).toBe('');
    expect(added.status).toBe(0);
    const { id, secret } = JSON.parse(added.stdout);
    expect(id).toMatch(/^ep_/);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    // Never again: not in the listing, not in the database.
    const listed = await hadir(['webhooks', 'list', '--key', keyId]);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).not.toContain(secret.slice(6));
    const row = await store.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(secret.slice(6));

    await importDocument(store, clock, {
      respondents: [
        {
          id: 'r2',
          campaignId: 'nikah',
          submittedAt: '2026-11-02T00:00:00Z',
          attendanceStatus: 'NO',
          answers: {},
        },
      ],
    });
    const worker = new DeliveryWorker({
      store,
      clock,
      disclosures: new DisclosureLog(store),
      sealKey: webhookSealKey(Buffer.from(TEST_SECRET_ENV.KEY_SEAL_SECRET, 'hex')),
      sender: {
        resolve: () => Promise.reject(new Error('no')),
        allowPrivateNetworks: true,
        timeoutMs: 2_000,
      },
    });
    expect(await worker.runOnce()).toBe(1);
    const [got] = receiver.received;
    if (!got) throw new Error('nothing received');
    expect(
      new Webhook(secret).verify(got.body, got.headers as Record<string, string>),
    ).toMatchObject({
      type: 'respondents.changed',
      data: { campaignId: 'nikah', changed: 1, removed: 0 },
    });

    const rotated = await hadir(['webhooks', 'rotate-secret', id]);
    expect(rotated.status).toBe(0);
    expect(rotated.stdout).toMatch(/^whsec_/m);
    expect((await hadir(['webhooks', 'disable', id])).stdout).toContain(`disabled ${id}`);
    expect((await hadir(['webhooks', 'list', '--json'])).stdout).toContain('"status":"disabled"');
    expect((await hadir(['webhooks', 'enable', id])).status).toBe(0);
    const log = await hadir(['webhooks', 'deliveries', id]);
    expect(log.stdout).toMatch(/respondents\.changed\s+delivered\s+1 tries\s+HTTP 204/);
    expect((await hadir(['webhooks', 'remove', id])).status).toBe(0);
    expect((await hadir(['webhooks', 'list'])).stdout.trim()).toBe('no endpoints');
  });

  it.each([
    [
      ['webhooks', 'add', '--key', 'nope', '--url', 'https://partner.example/in'],
      /no key with id nope/,
    ],
    [['webhooks', 'add', '--url', 'https://partner.example/in'], /--key/],
    [
      ['webhooks', 'add', '--key', 'KEY', '--url', 'http://partner.example/in'],
      /must start with https:\/\//,
    ],
    [['webhooks', 'add', '--key', 'KEY', '--url', 'https://10.0.0.8/in'], /not a public address/],
    [
      [
        'webhooks',
        'add',
        '--key',
        'KEY',
        '--url',
        'https://partner.example/in',
        '--events',
        'respondents.chnged',
      ],
      /unknown event type respondents\.chnged/,
    ],
    [['webhooks', 'disable', 'ep_missing'], /no endpoint with id ep_missing/],
    [['webhooks', 'redeliver', 'ep_missing'], /either --delivery/],
  ])('refuses %j with a plain message', async (args, message) => {
    const result = await hadir(args.map((arg) => (arg === 'KEY' ? keyId : arg)));
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });

  it('names the key it was given when that key is a rotation’s successor', async () => {
    const rotated = await hadir(['keys', 'rotate', keyId, '--overlap', '0', '--json']);
    expect(rotated.status).toBe(0);
    const successor = JSON.parse(rotated.stdout).id as string;
    const added = await hadir([
      'webhooks',
      'add',
      '--key',
      successor,
      '--url',
      'https://hooks.partner.example/in',
    ]);
    expect(added.stderr).toBe('');
    expect(added.stdout.split('\n')[0]).toMatch(
      new RegExp(
        `^endpoint ep_\\S+ for key ${successor} \\(and the other keys of its rotations, first ${keyId}\\)$`,
      ),
    );
  });

  it('refuses WEBHOOKS_ALLOW_PRIVATE_NETWORKS in production', async () => {
    const result = await hadir(['webhooks', 'list'], {
      NODE_ENV: 'production',
      WEBHOOKS_ALLOW_PRIVATE_NETWORKS: '1',
    });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(
      /WEBHOOKS_ALLOW_PRIVATE_NETWORKS is for development and tests only/,
    );
  });
});
