import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { DisclosureLog } from '../../src/disclosures/disclosure-log.ts';
import { DeliveryWorker } from '../../src/notifications/delivery-worker.ts';
import { webhookSealKey } from '../../src/notifications/signing.ts';
import { serverSecretsOf } from '../../src/secrets.ts';
import { runHadirInProcess } from '../helpers/cli.ts';
import { ManualClock } from '../helpers/clock.ts';
import { exportsAdd, PARTNER_ENV } from '../helpers/export-world.ts';
import { TestReceiver } from '../helpers/receiver.ts';
import { startS3Server, type TestS3 } from '../helpers/s3-server.ts';
import { openTestStore } from '../helpers/stores.ts';

/** The CLI with development secrets only: none in the environment, as on a developer's machine. */
const hadir = (folder: string, args: string[], env: Record<string, string> = {}) =>
  runHadirInProcess(args, {
    databaseUrl: `sqlite:${join(folder, 'hadir.sqlite')}`,
    env: {
      CODE_HMAC_SECRET: '',
      KEY_SEAL_SECRET: '',
      WEBHOOKS_ALLOW_PRIVATE_NETWORKS: '1',
      ...env,
    },
  });

describe('a restore keeps working with the development secrets it was sealed with', () => {
  let s3: TestS3;
  let receiver: TestReceiver;
  let root: string;
  let exportId: string;
  let endpointId: string;
  let endpointSecret: string;
  const backup = () => join(root, 'backups', 'hadir.sqlite');

  beforeAll(async () => {
    s3 = await startS3Server(['partner']);
    receiver = await TestReceiver.start();
    root = mkdtempSync(join(tmpdir(), 'hadir-restore-secrets-'));
    const first = join(root, 'first');
    mkdirSync(first, { mode: 0o700 });
    const document = join(root, 'import.json');
    writeFileSync(
      document,
      JSON.stringify({
        campaigns: [
          {
            id: 'c',
            slug: 'c',
            title: 'C',
            fields: [{ key: 'menu', label: 'Menu', type: 'TEXT' }],
          },
        ],
        respondents: [
          {
            id: 'r1',
            campaignId: 'c',
            submittedAt: '2026-11-01T00:00:00Z',
            attendanceStatus: 'YES',
            answers: { menu: 'Sate' },
          },
        ],
      }),
    );
    const imported = await hadir(first, ['import', document]);
    expect(imported.status, imported.stderr).toBe(0);
    expect((await hadir(first, ['accounts', 'create', '--email', 'p@example.test'])).status).toBe(
      0,
    );
    const key = JSON.parse(
      (
        await hadir(first, [
          'keys',
          'create',
          '--account',
          'p@example.test',
          '--scope',
          'c=menu',
          '--json',
        ])
      ).stdout,
    );
    const added = await hadir(
      first,
      [
        ...exportsAdd(key.id, s3.endpoint, [
          '--to',
          's3://partner/hadir',
          '--every',
          '1h',
          '--format',
          'csv',
        ]),
        '--json',
      ],
      PARTNER_ENV,
    );
    expect(added.stderr).toBe('');
    exportId = JSON.parse(added.stdout).id;
    const endpoint = JSON.parse(
      (await hadir(first, ['webhooks', 'add', '--key', key.id, '--url', receiver.url, '--json']))
        .stdout,
    );
    endpointId = endpoint.id;
    endpointSecret = endpoint.secret;
    mkdirSync(join(root, 'backups'), { mode: 0o700 });
    const taken = await hadir(first, ['backup', '--to', backup()]);
    expect(taken.status, taken.stderr).toBe(0);
    expect(taken.stdout).toContain(`${backup()}.secrets.json`);
  });
  afterAll(async () => {
    await receiver?.close();
    await s3?.close();
  });

  it('takes the secrets beside the backup, readable by its owner alone', () => {
    const kept = `${backup()}.secrets.json`;
    expect(statSync(kept).mode & 0o777).toBe(0o600);
    expect(readFileSync(kept, 'utf8')).toBe(
      readFileSync(join(root, 'first', 'secrets.json'), 'utf8'),
    );
  });

  it('restores onto a fresh folder that then delivers to a bucket and sends a notification', async () => {
    const fresh = join(root, 'fresh');
    const restored = await hadir(fresh, ['restore', '--from', backup()]);
    expect(restored.status, restored.stderr).toBe(0);
    expect(restored.stdout).toContain(
      `The development secrets it was sealed with are in place: ${join(fresh, 'secrets.json')}`,
    );

    const run = await hadir(fresh, ['exports', 'run', exportId]);
    expect(run.status, run.stderr).toBe(0);
    expect(
      (await s3.keys('partner', 'hadir/')).some((name) => name.endsWith('manifest.json')),
    ).toBe(true);

    expect((await hadir(fresh, ['webhooks', 'test', endpointId])).status).toBe(0);
    const config = loadConfig({ DATABASE_URL: `sqlite:${join(fresh, 'hadir.sqlite')}` });
    const store = await openTestStore(config.databaseUrl);
    try {
      const worker = new DeliveryWorker({
        store,
        clock: new ManualClock(Date.now() + 60_000),
        disclosures: new DisclosureLog(store),
        sealKey: webhookSealKey(serverSecretsOf(config).keySealKey),
        sender: {
          resolve: () => Promise.reject(new Error('no')),
          allowPrivateNetworks: true,
          timeoutMs: 5_000,
        },
      });
      await worker.runOnce();
    } finally {
      await store.close();
    }
    const [got] = receiver.received;
    expect(got).toBeDefined();
    const event = new Webhook(endpointSecret).verify(
      got?.body as string,
      got?.headers as Record<string, string>,
    );
    expect((event as { type: string }).type).toBe('webhook.test');
  });

  it('refuses to restore where other secrets would leave them sealed, naming the file to copy', async () => {
    const elsewhere = join(root, 'elsewhere');
    mkdirSync(elsewhere, { mode: 0o700 });
    const own = join(elsewhere, 'secrets.json');
    writeFileSync(
      own,
      JSON.stringify({
        codeHmacKey: randomBytes(32).toString('hex'),
        keySealKey: randomBytes(32).toString('hex'),
      }),
      { mode: 0o600 },
    );
    const refused = await hadir(elsewhere, ['restore', '--from', backup()]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`does not open with ${own}`);
    expect(refused.stderr).toContain(`Copy ${backup()}.secrets.json to ${own}`);
    expect(existsSync(join(elsewhere, 'hadir.sqlite'))).toBe(false);
  });
});
