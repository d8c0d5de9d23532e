import { describe, expect, it } from 'vitest';
import { createAccount, setAccountActive } from '../../../src/accounts/accounts.service.ts';
import { openStore } from '../../../src/db/connect.ts';
import { migrateToLatest } from '../../../src/db/migrate.ts';
import { issueKey } from '../../../src/keys/keys.service.ts';
import { startTestApp, TEST_SECRETS, type TestApp } from '../../helpers/app.ts';
import { runHadirInProcess } from '../../helpers/cli.ts';
import { AUTH, MINUTE, PASSWORD, usePortalAccounts } from '../../helpers/portal-accounts.ts';
import { CODE_SENT } from '../../helpers/portal-client.ts';
import type { TestSmtpServer } from '../../helpers/smtp.ts';
import { createTestDatabaseUrl, ENGINES } from '../../helpers/stores.ts';

describe.each(ENGINES)('portal sessions on %s', (engine) => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  const { request, newAccount, signIn, stepUp } = usePortalAccounts(engine, (world) => {
    ({ t, smtp } = world);
  });

  it('guards key reveal and rotation with a step-up code, and reveals a sealed key once', async () => {
    const email = await newAccount();
    const issued = await issueKey(t.store, t.clock, {
      accountEmail: email,
      scopes: [{ campaignId: 'c', fields: ['menu'] }],
      sealFor: TEST_SECRETS.keySealKey,
    });
    const sealed = await t.store.db
      .selectFrom('api_keys')
      .select('sealed_key')
      .where('id', '=', issued.id)
      .executeTakeFirstOrThrow();
    expect(sealed.sealed_key).not.toContain(issued.key.slice(9));
    const { session } = await signIn(email);
    const token = session.token;

    const keys = await request('GET', '/keys', { token });
    expect(keys.body.data).toEqual([
      {
        id: issued.id,
        name: expect.any(String),
        hint: issued.key.slice(-4),
        status: 'active',
        createdAt: expect.any(String),
        expiresAt: issued.expiresAt,
        lastUsedAt: null,
        campaigns: [{ id: 'c', fields: ['menu'] }],
      },
    ]);
    expect((await request('POST', `/keys/${issued.id}/reveal`, { token })).body.error.code).toBe(
      'step_up_required',
    );
    expect(
      (await request('POST', `/keys/${issued.id}/rotate`, { token, body: {} })).body.error.code,
    ).toBe('step_up_required');

    const elevated = await stepUp(token, email);
    expect(elevated.body).toEqual({
      status: 'verified',
      validUntil: new Date(t.clock.now() + 10 * MINUTE).toISOString(),
    });
    expect((await request('GET', '/me', { token })).body.stepUpValidUntil).toBe(
      elevated.body.validUntil,
    );
    const stepUpMail = smtp.messages.filter((message) => message.to.includes(email)).at(-1);
    expect(stepUpMail?.subject).toMatch(/^Kode verifikasi Hadir: \d{6}$/);

    const revealed = await request('POST', `/keys/${issued.id}/reveal`, { token });
    expect(revealed.body).toEqual({ key: issued.key });
    expect((await request('POST', `/keys/${issued.id}/reveal`, { token })).body.error.code).toBe(
      'already_revealed',
    );
    const wiped = await t.store.db
      .selectFrom('api_keys')
      .select('sealed_key')
      .where('id', '=', issued.id)
      .executeTakeFirstOrThrow();
    expect(wiped.sealed_key).toBeNull();

    const data = (key: string) => t.get('/developer/v1/campaigns/c/respondents', key);
    expect((await data(issued.key)).status).toBe(200);
    const rotated = await request('POST', `/keys/${issued.id}/rotate`, {
      token,
      body: { overlapHours: 1 },
    });
    expect(rotated.body).toEqual({
      id: expect.any(String),
      key: expect.stringMatching(/^hadir_sk_[0-9a-f]{64}$/),
      previousKeyValidUntil: new Date(t.clock.now() + 60 * MINUTE).toISOString(),
    });
    expect((await data(rotated.body.key)).body.data[0].fields).toEqual({ menu: 'Sate' });
    expect((await data(issued.key)).status).toBe(200);
    t.clock.advance(60 * MINUTE);
    expect((await data(issued.key)).status).toBe(401);
    expect((await data(rotated.body.key)).status).toBe(200);
  });

  it("ends the step-up after 10 minutes and answers 404 for another account's key", async () => {
    const email = await newAccount();
    const stranger = await newAccount();
    const theirs = await issueKey(t.store, t.clock, { accountEmail: stranger, scopes: [] });
    const { session } = await signIn(email);
    await stepUp(session.token, email);
    expect(
      (await request('POST', `/keys/${theirs.id}/rotate`, { token: session.token, body: {} }))
        .status,
    ).toBe(404);
    t.clock.advance(10 * MINUTE);
    expect(
      (await request('POST', `/keys/${theirs.id}/reveal`, { token: session.token })).body.error
        .code,
    ).toBe('step_up_required');
  });

  it('holds every call but me and change-password until a required password change', async () => {
    const email = await newAccount({ mustChangePassword: true });
    const { session: other } = await signIn(email);
    const { trustedDevice } = await signIn(email, { rememberDevice: true });
    const { session } = await signIn(email);
    const token = session.token;
    expect((await request('GET', '/me', { token })).body.mustChangePassword).toBe(true);
    for (const [method, url] of [
      ['GET', '/devices'],
      ['GET', '/keys'],
      ['POST', '/step-up'],
    ] as const) {
      const held = await request(method, url, { token });
      expect(held.status).toBe(403);
      expect(held.body.error.code).toBe('password_change_required');
    }
    const change = (currentPassword: string, newPassword: string) =>
      request('POST', '/change-password', { token, body: { currentPassword, newPassword } });
    expect((await change(PASSWORD, 'short')).body.error).toEqual({
      code: 'invalid_parameter',
      message: expect.stringContaining('12 to 72'),
    });
    expect((await change(PASSWORD, 'x'.repeat(73))).status).toBe(400);
    expect((await change(PASSWORD, PASSWORD)).body.error.message).toContain('differ');
    expect((await change(PASSWORD, 'password1234')).body.error.message).toContain('common');
    expect((await change('wrong-current-password', 'a-new-long-passphrase')).body.error.code).toBe(
      'invalid_credentials',
    );
    // 12 code points after NFKC, though more UTF-16 units: accepted.
    const mails = smtp.messages.filter((message) => message.to.includes(email)).length;
    const changed = await change(PASSWORD, 'kopi☕susu😀gula');
    expect(changed.body).toEqual({
      status: 'password_changed',
      session: { token: expect.stringMatching(/^hadir_ses_/), expiresAt: session.expiresAt },
    });
    // The session goes on under a new token; the old one is refused.
    expect((await request('GET', '/me', { token })).status).toBe(401);
    const rotated = changed.body.session.token as string;
    expect(rotated).not.toBe(token);
    expect((await request('GET', '/me', { token: rotated })).body.mustChangePassword).toBe(false);
    expect((await request('GET', '/devices', { token: rotated })).body.data).toEqual([]);
    await expect
      .poll(() => smtp.messages.filter((message) => message.to.includes(email)).length)
      .toBe(mails + 1);
    expect(smtp.messages.at(-1)?.raw).toMatch(/password of your Hadir account was just changed/);
    expect((await request('GET', '/me', { token: other.token })).status).toBe(401);
    const withDevice = await request('POST', '/login', {
      body: { email, password: 'kopi☕susu😀gula', deviceToken: trustedDevice?.token },
    });
    expect(withDevice.body).toEqual(CODE_SENT);
  });

  it('ends sessions after 30 idle minutes, after 12 hours, and when the account is deactivated', async () => {
    const email = await newAccount();
    const { session } = await signIn(email);
    t.clock.advance(29 * MINUTE);
    expect((await request('GET', '/me', { token: session.token })).status).toBe(200);
    t.clock.advance(30 * MINUTE);
    expect((await request('GET', '/me', { token: session.token })).status).toBe(401);

    const { session: busy } = await signIn(email);
    for (let hour = 0; hour < 12; hour++) {
      t.clock.advance(25 * MINUTE);
      await request('GET', '/me', { token: busy.token });
      t.clock.advance(25 * MINUTE);
    }
    const late = await request('GET', '/me', { token: busy.token });
    expect(late.status).toBe(401);
    expect(late.body.error.code).toBe('unauthorized');

    const { session: live } = await signIn(email);
    await setAccountActive(t.store, t.clock, email, false);
    expect((await request('GET', '/me', { token: live.token })).status).toBe(401);
    expect(
      (await request('POST', '/login', { body: { email, password: PASSWORD } })).body.error.code,
    ).toBe('invalid_credentials');
  });

  it('keeps at most 10 sessions per account, ending the oldest', async () => {
    const email = await newAccount();
    const first = await signIn(email, { rememberDevice: true });
    const tokens = [first.session.token];
    for (let n = 0; n < 10; n++) {
      t.clock.advance(1000);
      const login = await request('POST', '/login', {
        body: { email, password: PASSWORD, deviceToken: first.trustedDevice?.token },
      });
      tokens.push(login.body.session.token);
    }
    expect((await request('GET', '/me', { token: tokens[0] })).status).toBe(401);
    expect((await request('GET', '/me', { token: tokens[1] })).status).toBe(200);
  });

  it.each([
    ['/login', { email: 'a@example.test' }, "field 'password' is required"],
    ['/login', { email: 'a@example.test', password: 'x', extra: 1 }, "unknown field 'extra'"],
    ['/verify-otp', { email: 'a@example.test', code: '12345' }, "field 'code'"],
    ['/verify-otp', { email: 'a@example.test', code: 'abcdef' }, "field 'code'"],
  ])('rejects a bad body for %s with 400 naming the field', async (url, body, message) => {
    const response = await request('POST', url, { body });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_parameter');
    expect(response.body.error.message).toContain(message);
  });

  it('rejects a body that is not JSON, and one over 4 KiB', async () => {
    const broken = await request('POST', '/login', { raw: '{"email": ' });
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('invalid_parameter');
    const large = await request('POST', '/login', {
      body: { email: 'a@example.test', password: 'x'.repeat(5000) },
    });
    expect(large.status).toBe(413);
    expect(large.body.error.code).toBe('payload_too_large');
  });

  it('answers protected calls without a valid session with 401', async () => {
    for (const token of [undefined, 'hadir_ses_nope', `hadir_ses_${'0'.repeat(64)}`]) {
      const response = await request('GET', '/me', token ? { token } : {});
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('unauthorized');
    }
  });

  it('writes security events to the audit log with address and device, never a secret', async () => {
    const email = await newAccount();
    const { session, trustedDevice } = await signIn(email, {
      rememberDevice: true,
      deviceLabel: 'Safari on macOS',
    });
    await request('POST', '/login', { body: { email, password: 'wrong-password!' } });
    const rows = await t.store.db.selectFrom('audit_log').selectAll().orderBy('id').execute();
    const account = await t.store.db
      .selectFrom('accounts')
      .select('id')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    const mine = rows.filter((row) => row.actor === account.id);
    expect(mine.map((row) => row.action)).toEqual([
      'code.sent',
      'login',
      'device.trusted',
      'login.failed',
    ]);
    expect(JSON.parse(mine[2]?.details ?? '{}')).toMatchObject({
      address: '192.0.2.10',
      deviceLabel: 'Safari on macOS',
    });
    const everything = JSON.stringify(rows);
    for (const secret of [session.token, trustedDevice?.token ?? '', PASSWORD])
      expect(everything).not.toContain(secret);
  });
});

// Twenty sign-ins, each hashing a password with argon2id: slow by design, so given room.
describe('account lock after 20 unredeemed sign-in codes', { timeout: 90_000 }, () => {
  it('is reached only with the password, says so without Retry-After, and the CLI lifts it', async () => {
    const databaseUrl = await createTestDatabaseUrl('sqlite');
    const store = openStore(databaseUrl);
    await migrateToLatest(store);
    const mail: string[] = [];
    const t = await startTestApp(store, {
      mailer: {
        send: async (message) => {
          mail.push(message.subject);
        },
        close: () => {},
      },
    });
    try {
      await createAccount(t.store, t.clock, {
        email: 'lock@example.test',
        password: PASSWORD,
        mustChangePassword: false,
      });
      const post = async (path: string, payload: object) => {
        const response = await t.app.inject({
          method: 'POST',
          url: `${AUTH}${path}`,
          remoteAddress: '203.0.113.9',
          payload,
        });
        return { status: response.statusCode, headers: response.headers, body: response.json() };
      };
      // Strangers without the password: wrong passwords and codes, more than the 20 that lock
      // (each wrong password costs an argon2id verification: 30 of each make the point).
      for (let round = 0; round < 3; round++) {
        for (let n = 0; n < 10; n++) {
          await post('/login', { email: 'lock@example.test', password: 'wrong-password!' });
          await post('/verify-otp', { email: 'lock@example.test', code: '000000' });
        }
        t.clock.advance(15 * MINUTE);
      }
      // Someone with the password but not the mailbox: 20 codes sent, none redeemed.
      for (let n = 0; n < 20; n++) {
        const sent = await post('/login', { email: 'lock@example.test', password: PASSWORD });
        expect(sent.status).toBe(200);
        if (n % 5 === 4) t.clock.advance(10 * MINUTE);
      }
      const locked = await post('/login', { email: 'lock@example.test', password: PASSWORD });
      expect(locked.status).toBe(403);
      expect(locked.body.error.code).toBe('account_locked');
      expect(locked.body.error.message).toContain('an operator must unlock it');
      expect(locked.headers['retry-after']).toBeUndefined();
      // Without the password, nothing tells the lock apart from any wrong password.
      const guess = await post('/login', {
        email: 'lock@example.test',
        password: 'wrong-password!',
      });
      expect(guess.status).toBe(401);
      expect(mail).toHaveLength(20);

      const unlocked = await runHadirInProcess(
        ['accounts', 'unlock', '--email', 'lock@example.test', '--json'],
        { databaseUrl },
      );
      expect(JSON.parse(unlocked.stdout)).toMatchObject({
        email: 'lock@example.test',
        unlocked: true,
      });
      const after = await post('/login', { email: 'lock@example.test', password: PASSWORD });
      expect(after.status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('portal address throttle', () => {
  it('answers 429 after 20 login attempts a minute from one address', async () => {
    const t = await startTestApp('sqlite', { addressAttemptsPerMinute: 20 });
    try {
      // A new address each time, so only the client address's budget is spent.
      let attempt = 0;
      const login = () =>
        t.app.inject({
          method: 'POST',
          url: `${AUTH}/login`,
          remoteAddress: '203.0.113.7',
          payload: { email: `x${attempt++}@example.test`, password: 'whatever-password' },
        });
      for (let n = 0; n < 20; n++) expect((await login()).statusCode).toBe(401);
      const limited = await login();
      expect(limited.statusCode).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBe(60);
      t.clock.advance(MINUTE);
      expect((await login()).statusCode).toBe(401);
    } finally {
      await t.close();
    }
  });
});
