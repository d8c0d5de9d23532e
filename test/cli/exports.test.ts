import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import type { Store } from '../../src/db/connect.ts';
import { issueKey } from '../../src/keys/keys.service.ts';
import { exitOf, HADIR_BIN, runHadirInProcess, TEST_SECRET_ENV } from '../helpers/cli.ts';
import { ManualClock } from '../helpers/clock.ts';
import { exportsAdd, PARTNER_ENV, sha256 } from '../helpers/export-world.ts';
import { seedCampaign } from '../helpers/factories.ts';
import { spawnOwned } from '../helpers/owned-processes.ts';
import { S3_CREDENTIALS, startS3Server, type TestS3 } from '../helpers/s3-server.ts';
import { createTestDatabaseUrl, openTestStore } from '../helpers/stores.ts';
import { until } from '../helpers/until.ts';

const GUESTS = 3_000;

describe('hadir exports', () => {
  let databaseUrl: string;
  let store: Store;
  let s3: TestS3;
  let keyId: string;
  const clock = new ManualClock(Date.parse('2026-11-27T01:00:00Z'));
  const hadir = (args: string[], env: Record<string, string> = PARTNER_ENV) =>
    runHadirInProcess(args, { databaseUrl, clock, env });
  const add = (extra: string[], env: Record<string, string> = PARTNER_ENV) =>
    hadir(exportsAdd(keyId, s3.endpoint, extra), env);

  beforeAll(async () => {
    databaseUrl = await createTestDatabaseUrl('sqlite');
    store = await openTestStore(databaseUrl);
    s3 = await startS3Server(['partner']);
    await seedCampaign(store, clock, {
      id: 'nikah',
      fields: [{ key: 'nama', type: 'TEXT' }],
      respondents: Array.from({ length: GUESTS }, (_, n) => ({
        id: `r${n}`,
        submittedAt: '2026-11-01T00:00:00Z',
        answers: { nama: `Tamu ${n}` },
      })),
    });
    await createAccount(store, clock, { email: 'bi@example.test', mustChangePassword: false });
    keyId = (
      await issueKey(store, clock, {
        accountEmail: 'bi@example.test',
        scopes: [{ campaignId: 'nikah', fields: ['nama'] }],
      })
    ).id;
  });
  afterAll(async () => {
    await store?.close();
    await s3?.close();
  });

  it('adds, lists, runs and removes a delivery; the credentials are never shown nor kept plain', async () => {
    const added = await add([
      '--to',
      's3://partner/hadir',
      '--every',
      '1d',
      '--at',
      '06:30',
      '--format',
      'parquet,csv',
      '--keep',
      '3',
      '--json',
    ]);
    expect(added.stderr).toBe('');
    expect(added.status).toBe(0);
    const view = JSON.parse(added.stdout);
    expect(view).toMatchObject({
      id: expect.stringMatching(/^exp_/),
      keyId,
      to: 's3://partner/hadir',
      every: '1d',
      at: '06:30',
      formats: ['csv', 'parquet'],
      keep: 3,
      // 08:00 in Jakarta now: the next 06:30 is tomorrow's.
      nextRunAt: '2026-11-27T23:30:00.000Z',
      lastRun: null,
    });
    const listed = await hadir(['exports', 'list', '--key', keyId]);
    expect(listed.stdout).toContain(`${view.id}  key ${keyId}  s3://partner/hadir`);
    expect(listed.stdout).toContain('every day at 06:30 Asia/Jakarta');
    const row = await store.db.selectFrom('exports').selectAll().executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(S3_CREDENTIALS.secretAccessKey);
    expect(listed.stdout + added.stdout).not.toContain(S3_CREDENTIALS.secretAccessKey);

    const ran = await hadir(['exports', 'run', view.id, '--json']);
    expect(ran.stderr).toBe('');
    const { manifest } = JSON.parse(ran.stdout);
    expect(manifest.run).toBe('2026-11-27T01-00-00Z');
    for (const file of manifest.files) {
      const body = await s3.read('partner', `hadir/${manifest.run}/${file.path}`);
      expect(sha256(body)).toBe(file.sha256);
      expect(file.rows).toBe(GUESTS);
    }
    const text = await hadir(['exports', 'list']);
    expect(text.stdout).toContain(
      `last run ${'2026-11-27T01:00:00.000Z'}: 2 files, ${2 * GUESTS} rows`,
    );
    expect((await hadir(['exports', 'remove', view.id])).stdout).toContain(`removed ${view.id}`);
    expect((await hadir(['exports', 'list'])).stdout.trim()).toBe('no deliveries');
    // What it wrote stays: the bucket is the partner's.
    expect(await s3.keys('partner', `hadir/${manifest.run}/manifest.json`)).toHaveLength(1);
  });

  it.each([
    [
      ['--to', 's3://partner/x', '--every', '1h', '--format', 'csv'],
      { PARTNER_KEY_ID: 'k' },
      /PARTNER_SECRET, which is not set/,
    ],
    [
      ['--to', 'https://partner/x', '--every', '1h', '--format', 'csv'],
      PARTNER_ENV,
      /is not s3:\/\/BUCKET\/PREFIX/,
    ],
    [
      ['--to', 's3://Partner_Bucket/x', '--every', '1h', '--format', 'csv'],
      PARTNER_ENV,
      /bucket name Partner_Bucket/,
    ],
    [
      ['--to', 's3://partner/../x', '--every', '1h', '--format', 'csv'],
      PARTNER_ENV,
      /none of them \. or \.\./,
    ],
    [
      ['--to', 's3://partner/x', '--every', '2h', '--format', 'csv'],
      PARTNER_ENV,
      /--every takes 1h or 1d/,
    ],
    [
      ['--to', 's3://partner/x', '--every', '1d', '--at', '25:00', '--format', 'csv'],
      PARTNER_ENV,
      /--at takes HH:MM/,
    ],
    [
      ['--to', 's3://partner/x', '--every', '1h', '--at', '06:00', '--format', 'csv'],
      PARTNER_ENV,
      /--at is for --every 1d/,
    ],
    [
      ['--to', 's3://partner/x', '--every', '1h', '--format', 'csv,json'],
      PARTNER_ENV,
      /unknown: json/,
    ],
    [
      ['--to', 's3://partner/x', '--every', '1h', '--format', 'csv', '--keep', '0'],
      PARTNER_ENV,
      /keep must be a whole number from 1 to 100/,
    ],
  ])('refuses %j in plain words, adding nothing', async (extra, env, message) => {
    const result = await add(extra, env);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^hadir exports add: /);
    expect(result.stderr).toMatch(message);
    expect((await hadir(['exports', 'list'])).stdout.trim()).toBe('no deliveries');
  });

  it('leaves no manifest when a run is killed midway, and the next run is whole (from /)', async () => {
    const added = await add([
      '--to',
      's3://partner/killed',
      '--every',
      '1h',
      '--format',
      'csv,xlsx,parquet',
      '--json',
    ]);
    const { id } = JSON.parse(added.stdout);
    const env = {
      ...process.env,
      ...TEST_SECRET_ENV,
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
    };
    const killed = spawnOwned(HADIR_BIN, ['exports', 'run', id], {
      cwd: '/',
      env,
      stdio: 'ignore',
    });
    try {
      // Killed once its first file is in the bucket: the others and the manifest are still to come.
      await until(async () => (await s3.keys('partner', 'killed/')).length > 0, 'the first file');
      killed.kill('SIGKILL');
      await exitOf(killed);
    } finally {
      killed.kill('SIGKILL');
    }
    const left = await s3.keys('partner', 'killed/');
    expect(left.length).toBeGreaterThan(0);
    expect(left.some((key) => key.endsWith('manifest.json'))).toBe(false);

    clock.advance(1_000);
    const next = await hadir(['exports', 'run', id, '--json']);
    expect(next.stderr).toBe('');
    const { manifest } = JSON.parse(next.stdout);
    expect(manifest.files.map((file: { path: string }) => file.path).sort()).toEqual([
      'nikah.csv',
      'nikah.parquet',
      'nikah.xlsx',
    ]);
    const complete = (await s3.keys('partner', 'killed/')).filter((key) =>
      key.endsWith('manifest.json'),
    );
    expect(complete).toEqual([`killed/${manifest.run}/manifest.json`]);
  });
});
