import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/accounts/passwords.ts';
import { openStore } from '../../src/db/connect.ts';
import { exitOf, runHadir, runHadirInProcess, startHadir } from '../helpers/cli.ts';
import { DOCUMENT, writeJson } from '../helpers/operator-data.ts';
import { createTestDatabaseUrl, openTestStore } from '../helpers/stores.ts';
import { until } from '../helpers/until.ts';

describe('operator CLI errors', () => {
  it('runs on the Node.js 24 LTS that npm ci installs, and says so', async () => {
    const result = await runHadir(['--version'], { databaseUrl: 'sqlite::memory:' });
    expect(result.status).toBe(0);
    // The sources, or a build of them when one is current (see bin/hadir).
    expect(result.stdout).toMatch(
      /^hadir \d+\.\d+\.\d+ \(Node\.js v24\.\d+\.\d+, (TypeScript sources through tsx|compiled JavaScript from dist\/)\)\n$/,
    );
  });

  it('prints plain one-line errors on stderr with a non-zero exit', async () => {
    const databaseUrl = await createTestDatabaseUrl('sqlite');
    await (await openTestStore(databaseUrl)).close();
    const cases: Array<[string[], RegExp, number]> = [
      [['keys', 'frobnicate'], /unknown command 'keys frobnicate'/, 2],
      [['keys', 'list', '--bogus'], /unknown option --bogus/, 2],
      [['keys', 'create', '--account', 'a@example.com'], /give at least one --scope/, 1],
      [
        ['keys', 'create', '--account', 'nobody@example.com', '--scope', 'c=a', '--json'],
        /no account with e-mail nobody@example.com/,
        1,
      ],
      [['keys', 'revoke', 'no-such-key'], /no key with id no-such-key/, 1],
      [['keys', 'rotate', 'x', '--overlap', 'soon'], /--overlap takes a duration like 0, 30s/, 1],
      [
        ['accounts', 'create', '--email', 'a@example.com', '--password', 'kopi-tubruk-pagi'],
        /--password would leave the password in the process list.*--password-stdin/,
        1,
      ],
      [['import', '/no/such/file.json'], /cannot read \/no\/such\/file.json/, 1],
    ];
    for (const [args, message, status] of cases) {
      const result = await runHadirInProcess(
        [...args, '--json'].filter((arg, i, all) => all.indexOf(arg) === i),
        { databaseUrl },
      );
      expect(result.status, args.join(' ')).toBe(status);
      expect(result.stdout, args.join(' ')).toBe('');
      expect(result.stderr, args.join(' ')).toMatch(message);
    }
    const account = await runHadirInProcess(
      ['accounts', 'create', '--email', 'b@example.com', '--json'],
      {
        databaseUrl,
      },
    );
    expect(account.status).toBe(0);
    const scope = await runHadirInProcess(
      ['keys', 'create', '--account', 'b@example.com', '--scope', 'missing-campaign=a'],
      { databaseUrl },
    );
    expect(scope.status).toBe(1);
    expect(scope.stderr).toMatch(/campaign missing-campaign does not exist/);
  });

  it('seals a key for the portal without ever printing it', async () => {
    const databaseUrl = await createTestDatabaseUrl('sqlite');
    await runHadirInProcess(['import', writeJson(DOCUMENT)], { databaseUrl });
    await runHadirInProcess(['accounts', 'create', '--email', 'c@example.com'], { databaseUrl });
    const sealed = await runHadirInProcess(
      [
        'keys',
        'create',
        '--account',
        'c@example.com',
        '--scope',
        'kawinan=menu',
        '--reveal-in-portal',
        '--json',
      ],
      { databaseUrl },
    );
    expect(sealed.status).toBe(0);
    expect(sealed.stdout).not.toMatch(/hadir_sk_/);
    expect(JSON.parse(sealed.stdout)).toEqual({
      id: expect.any(String),
      expiresAt: expect.any(String),
      campaigns: [{ campaignId: 'kawinan', fields: ['menu'] }],
      revealInPortal: true,
    });
  });

  it('takes a chosen password on standard input only, and checks its rules', async () => {
    const databaseUrl = await createTestDatabaseUrl('sqlite');
    const short = await runHadirInProcess(
      ['accounts', 'create', '--email', 'e@example.com', '--password-stdin'],
      { databaseUrl, input: 'short\n' },
    );
    expect(short.status).toBe(1);
    expect(short.stderr).toMatch(/12 to 72 characters/);
    // The portal's policy: a common password is refused here as there.
    const common = await runHadirInProcess(
      ['accounts', 'create', '--email', 'e@example.com', '--password-stdin'],
      { databaseUrl, input: 'password1234\n' },
    );
    expect(common.status).toBe(1);
    expect(common.stderr).toMatch(/one of the most common passwords/);
    const chosen = await runHadirInProcess(
      ['accounts', 'create', '--email', 'e@example.com', '--password-stdin'],
      { databaseUrl, input: 'kopi-tubruk-pagi-hari\n' },
    );
    expect(chosen.status).toBe(0);
    expect(chosen.stdout).not.toContain('kopi-tubruk-pagi-hari');
    const store = openStore(databaseUrl);
    try {
      const account = await store.db
        .selectFrom('accounts')
        .select('password_hash')
        .where('email', '=', 'e@example.com')
        .executeTakeFirstOrThrow();
      expect(await verifyPassword(account.password_hash as string, 'kopi-tubruk-pagi-hari')).toBe(
        true,
      );
    } finally {
      await store.close();
    }
  });

  it('lists accounts, resets a password to a one-time one, shows a key, rotates with no overlap', async () => {
    const databaseUrl = await createTestDatabaseUrl('sqlite');
    const run = (...args: string[]) => runHadirInProcess(args, { databaseUrl });
    await run('import', writeJson(DOCUMENT));
    await run('accounts', 'create', '--email', 'f@example.com');
    await run('accounts', 'create', '--email', 'g@example.com');
    const created = await run(
      'keys',
      'create',
      '--account',
      'f@example.com',
      '--scope',
      'kawinan=menu',
      '--json',
    );
    const keyId = JSON.parse(created.stdout).id as string;

    const list = await run('accounts', 'list', '--json');
    expect(JSON.parse(list.stdout).accounts).toMatchObject([
      { email: 'f@example.com', status: 'active', liveKeys: 1, mustChangePassword: false },
      { email: 'g@example.com', status: 'active', liveKeys: 0 },
    ]);
    expect((await run('accounts', 'list')).stdout).toContain(
      'f@example.com  active  1 live key  created',
    );

    const reset = await run('accounts', 'reset-password', '--email', 'g@example.com', '--json');
    expect(reset.status).toBe(0);
    const { password } = JSON.parse(reset.stdout);
    expect(password).toMatch(/^\S{12,}$/);
    expect(JSON.parse((await run('accounts', 'list', '--json')).stdout).accounts[1]).toMatchObject({
      email: 'g@example.com',
      mustChangePassword: true,
    });

    const shown = await run('keys', 'show', keyId);
    expect(shown.status).toBe(0);
    expect(shown.stdout).toContain(`key ${keyId}`);
    expect(shown.stdout).toContain('account: f@example.com');
    expect(shown.stdout).toContain('reads: kawinan=menu');
    expect(shown.stdout).toContain('last used never');
    expect(shown.stdout).not.toMatch(/hadir_sk_/);
    expect((await run('keys', 'show', 'nope')).stderr).toContain('no key with id nope');

    const rotated = await run('keys', 'rotate', keyId, '--overlap', '0', '--json');
    expect(rotated.status).toBe(0);
    const old = JSON.parse((await run('keys', 'show', keyId, '--json')).stdout);
    expect(old.status).toBe('expired');
    expect(old.replacedById).toBe(JSON.parse(rotated.stdout).id);
  });

  it("checks a new key's fields against its campaigns and prints what it reads", async () => {
    const databaseUrl = await createTestDatabaseUrl('sqlite');
    await runHadirInProcess(['import', writeJson(DOCUMENT)], { databaseUrl });
    await runHadirInProcess(['accounts', 'create', '--email', 'd@example.com'], { databaseUrl });
    const create = (...extra: string[]) =>
      runHadirInProcess(['keys', 'create', '--account', 'd@example.com', ...extra], {
        databaseUrl,
      });
    const typo = await create('--scope', 'kawinan=menu,nmaa');
    expect(typo.status).toBe(1);
    expect(typo.stderr).toContain('campaign kawinan has no field nmaa (its fields: menu, nama)');
    expect(typo.stderr).toContain('--allow-unknown-fields');
    const created = await create('--scope', 'kawinan=menu,nama');
    expect(created.status).toBe(0);
    expect(created.stdout).toContain('reads: kawinan=menu,nama');
    // A value that is never kept cannot be allow-listed, even where unknown fields are allowed.
    for (const extra of [[], ['--allow-unknown-fields']]) {
      const secret = await create('--scope', 'kawinan=menu,ipAddress', ...extra);
      expect(secret.status).toBe(1);
      expect(secret.stderr).toContain('ipAddress is never stored or served');
    }
    const later = await create('--scope', 'kawinan=menu,hadiah', '--allow-unknown-fields');
    expect(later.status).toBe(0);
    expect(later.stdout).toContain('reads: kawinan=menu,hadiah');
    const keyId = /^key (\S+),/.exec(created.stdout)?.[1] as string;
    const rescoped = await runHadirInProcess(['keys', 'scope', keyId, '--scope', 'kawinan=mnu'], {
      databaseUrl,
    });
    expect(rescoped.status).toBe(1);
    expect(rescoped.stderr).toContain('campaign kawinan has no field mnu');
  });

  it('runs the demo: prints a working key and curl lines, serves, and stops cleanly', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'hadir-demo-'));
    const demo = await startHadir(['demo', '--port', '0'], {
      cwd,
      ready: /Stop with Ctrl\+C/,
      env: { LOG_LEVEL: 'info' },
    });
    try {
      const output = demo.output();
      const key = output.match(/hadir_sk_[0-9a-f]{64}/)?.[0];
      const base = output.match(/Listening on (\S+)/)?.[1];
      expect(key).toBeDefined();
      expect(output).toContain(`export HADIR_API_KEY=${key}`);
      expect(output).toContain(
        `curl -s -H "Authorization: Bearer $HADIR_API_KEY" ${base}/developer/v1/campaigns`,
      );
      expect(output.match(/hadir_sk_/g)).toHaveLength(1);
      const response = await fetch(
        `${base}/developer/v1/campaigns/pernikahan-rina-bayu/respondents?limit=5`,
        {
          headers: { authorization: `Bearer ${key}` },
        },
      );
      const body: any = await response.json();
      expect(response.status).toBe(200);
      expect(body.meta).toMatchObject({ limit: 5, page: 1 });
      expect(body.meta.total).toBeGreaterThan(100);
      for (const row of body.data) {
        for (const field of Object.keys(row.fields)) {
          expect(['nama', 'jumlah_tamu', 'sesi', 'menu', 'alergi']).toContain(field);
        }
      }
      const outside = await fetch(`${base}/developer/v1/campaigns/reuni-sma3-2006/summary`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(outside.status).toBe(403);
      expect(output).toContain(`Portal, in a browser: ${base}/developer/portal`);

      // A second demo on the busy port says so and leaves the running one and its data alone.
      const port = new URL(base as string).port;
      const second = await runHadir(['demo', '--port', port], { databaseUrl: 'unused', cwd });
      expect(second.status).not.toBe(0);
      expect(second.stderr).toContain(`port ${port} on 127.0.0.1 is in use`);
      expect(second.stderr).toContain('--port');
      expect(existsSync(join(cwd, 'data/demo.sqlite'))).toBe(true);
      const still = await fetch(`${base}/developer/v1/campaigns`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(still.status).toBe(200);
      // Its metrics are served on the port it printed.
      const metricsUrl = /Metrics \(Prometheus\): curl -s (\S+)/.exec(demo.output())?.[1];
      expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const scraped = await fetch(metricsUrl as string);
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toContain('hadir_http_requests_total');
      // One readable line per request, not JSON.
      await until(
        () => demo.output().includes('GET /developer/v1/campaigns → 200'),
        'a readable access line',
      );
      expect(demo.output()).not.toMatch(/^\{"level"/m);
    } finally {
      demo.child.kill('SIGINT');
      expect(await exitOf(demo.child)).toBe(0);
    }
  });
});
