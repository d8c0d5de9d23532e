import { hash } from '@node-rs/argon2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, setAccountActive } from '../../../src/accounts/accounts.service.ts';
import { openStore } from '../../../src/db/connect.ts';
import { migrateToLatest } from '../../../src/db/migrate.ts';
import { issueKey } from '../../../src/keys/keys.service.ts';
import { createSmtpMailer } from '../../../src/mail/mailer.ts';
import { startTestApp, TEST_SECRETS, type TestApp } from '../../helpers/app.ts';
import { runHadirInProcess } from '../../helpers/cli.ts';
import { seedCampaign } from '../../helpers/factories.ts';
import { CODE_SENT } from '../../helpers/portal-client.ts';
import { startSmtpServer, type TestSmtpServer } from '../../helpers/smtp.ts';
import { createTestDatabaseUrl, ENGINES } from '../../helpers/stores.ts';

const AUTH = '/developer/auth';
const PASSWORD = 'kopi-tubruk-pagi-hari';
const MINUTE = 60_000;

describe.each(ENGINES)('portal accounts on %s', (engine) => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let accounts = 0;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp(engine, {
      mailer: createSmtpMailer(smtp.url, 'Hadir <no-reply@hadir.test>'),
    });
    await seedCampaign(t.store, t.clock, {
      id: 'c',
      respondents: [{ id: 'r1', submittedAt: '2026-11-01T00:00:00Z', answers: { menu: 'Sate' } }],
    });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  async function request(
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    options: {
      body?: unknown;
      token?: string;
      ip?: string;
      raw?: string;
      contentType?: string;
    } = {},
  ) {
    const response = await t.app.inject({
      method,
      url: `${AUTH}${url}`,
      remoteAddress: options.ip ?? '192.0.2.10',
      headers: {
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(options.body !== undefined || options.raw !== undefined
          ? { 'content-type': options.contentType ?? 'application/json' }
          : {}),
        'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0',
      },
      ...(options.raw !== undefined
        ? { payload: options.raw }
        : options.body !== undefined
          ? { payload: JSON.stringify(options.body) }
          : {}),
    });
    return {
      status: response.statusCode,
      headers: response.headers,
      body: JSON.parse(response.body || 'null'),
      raw: response.body,
    };
  }

  async function newAccount(options: { mustChangePassword?: boolean } = {}) {
    accounts += 1;
    const email = `mitra${accounts}@example.test`;
    await createAccount(t.store, t.clock, {
      email,
      password: PASSWORD,
      mustChangePassword: options.mustChangePassword ?? false,
    });
    return email;
  }

  /** password → e-mailed code → session */
  async function signIn(
    email: string,
    extra: { rememberDevice?: boolean; deviceLabel?: string } = {},
  ) {
    const before = smtp.messages.filter((message) => message.to.includes(email)).length;
    const login = await request('POST', '/login', { body: { email, password: PASSWORD } });
    expect(login.body).toEqual(CODE_SENT);
    const code = await smtp.codeFor(email, before);
    const verified = await request('POST', '/verify-otp', {
      body: { email, code, challenge: login.body.challenge, ...extra },
    });
    expect(verified.status).toBe(200);
    return verified.body as {
      session: { token: string; expiresAt: string };
      trustedDevice?: { id: string; token: string; label: string; expiresAt: string };
    };
  }

  async function stepUp(token: string, email: string) {
    const before = smtp.messages.filter((message) => message.to.includes(email)).length;
    expect((await request('POST', '/step-up', { token })).body).toEqual({ status: 'code_sent' });
    const code = await smtp.codeFor(email, before);
    return request('POST', '/step-up', { token, body: { code } });
  }

  it('signs in with password and an e-mailed code, then answers me', async () => {
    const email = await newAccount();
    const { session } = await signIn(email);
    const mail = smtp.messages.filter((message) => message.to.includes(email)).at(-1);
    expect(mail?.subject).toMatch(/^Kode masuk Hadir: \d{6}$/);
    expect(mail?.raw).toMatch(/Your Hadir sign-in code is \d{6}/);
    expect(session.token).toMatch(/^hadir_ses_[0-9a-f]{64}$/);
    expect(Date.parse(session.expiresAt)).toBe(t.clock.now() + 12 * 60 * MINUTE);
    const me = await request('GET', '/me', { token: session.token });
    expect(me.body).toEqual({
      id: expect.any(String),
      email,
      mustChangePassword: false,
      stepUpValidUntil: null,
    });
  });

  it('rehashes a password made with older parameters at the next login', async () => {
    const email = await newAccount();
    const weak = await hash(PASSWORD, {
      algorithm: 2,
      memoryCost: 4096,
      timeCost: 1,
      parallelism: 1,
    });
    await t.store.db
      .updateTable('accounts')
      .set({ password_hash: weak })
      .where('email', '=', email)
      .execute();
    expect((await request('POST', '/login', { body: { email, password: PASSWORD } })).body).toEqual(
      CODE_SENT,
    );
    const row = await t.store.db
      .selectFrom('accounts')
      .select('password_hash')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('answers a wrong password and an unknown e-mail identically', async () => {
    const email = await newAccount();
    const wrong = await request('POST', '/login', {
      body: { email, password: 'not-the-password' },
    });
    const unknown = await request('POST', '/login', {
      body: { email: 'nobody@example.test', password: 'not-the-password' },
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.raw).toBe(unknown.raw);
    expect(wrong.body.error.code).toBe('invalid_credentials');
  });

  it('trusts a device for 30 days: its token skips the code until it is revoked', async () => {
    const email = await newAccount();
    const { session, trustedDevice } = await signIn(email, {
      rememberDevice: true,
      deviceLabel: 'Firefox on Linux',
    });
    expect(trustedDevice).toMatchObject({
      label: 'Firefox on Linux',
      token: expect.stringMatching(/^hadir_dev_[0-9a-f]{64}$/),
    });
    expect(Date.parse(trustedDevice?.expiresAt ?? '')).toBe(t.clock.now() + 30 * 24 * 60 * MINUTE);
    const mails = smtp.messages.length;
    const again = await request('POST', '/login', {
      body: { email, password: PASSWORD, deviceToken: trustedDevice?.token },
    });
    expect(again.body).toEqual({
      status: 'authenticated',
      session: { token: expect.stringMatching(/^hadir_ses_/), expiresAt: expect.any(String) },
    });
    expect(smtp.messages.length).toBe(mails);

    const devices = await request('GET', '/devices', { token: session.token });
    expect(devices.body.data).toEqual([
      {
        id: trustedDevice?.id,
        label: 'Firefox on Linux',
        createdAt: expect.any(String),
        lastUsedAt: expect.any(String),
        expiresAt: trustedDevice?.expiresAt,
      },
    ]);
    expect(devices.raw).not.toContain(trustedDevice?.token);

    expect(
      (await request('DELETE', `/devices/${trustedDevice?.id}`, { token: session.token })).body,
    ).toEqual({ status: 'revoked' });
    expect(
      (await request('DELETE', `/devices/${trustedDevice?.id}`, { token: session.token })).status,
    ).toBe(404);
    const afterRevoke = await request('POST', '/login', {
      body: { email, password: PASSWORD, deviceToken: trustedDevice?.token },
    });
    expect(afterRevoke.body).toEqual(CODE_SENT);
  });

  it('never lets a device token skip the password, and ignores a foreign or expired one', async () => {
    const owner = await newAccount();
    const other = await newAccount();
    const { trustedDevice } = await signIn(owner, { rememberDevice: true });
    const noPassword = await request('POST', '/login', {
      body: { email: owner, password: 'wrong-password!', deviceToken: trustedDevice?.token },
    });
    expect(noPassword.status).toBe(401);
    const foreign = await request('POST', '/login', {
      body: { email: other, password: PASSWORD, deviceToken: trustedDevice?.token },
    });
    expect(foreign.body).toEqual(CODE_SENT);
    t.clock.advance(30 * 24 * 60 * MINUTE);
    const expired = await request('POST', '/login', {
      body: { email: owner, password: PASSWORD, deviceToken: trustedDevice?.token },
    });
    expect(expired.body).toEqual(CODE_SENT);
  });

  it('refuses a used code, an expired code, a replaced code and the sixth try', async () => {
    const email = await newAccount();
    await request('POST', '/login', { body: { email, password: PASSWORD } });
    const first = await smtp.codeFor(email);
    expect((await request('POST', '/verify-otp', { body: { email, code: first } })).status).toBe(
      200,
    );
    const reused = await request('POST', '/verify-otp', { body: { email, code: first } });
    expect(reused.status).toBe(401);
    expect(reused.body.error.code).toBe('invalid_code');

    let count = smtp.messages.filter((message) => message.to.includes(email)).length;
    await request('POST', '/login', { body: { email, password: PASSWORD } });
    const old = await smtp.codeFor(email, count);
    count += 1;
    await request('POST', '/login', { body: { email, password: PASSWORD } });
    const replacement = await smtp.codeFor(email, count);
    count += 1;
    if (old !== replacement)
      expect((await request('POST', '/verify-otp', { body: { email, code: old } })).status).toBe(
        401,
      );

    t.clock.advance(10 * MINUTE);
    expect(
      (await request('POST', '/verify-otp', { body: { email, code: replacement } })).status,
    ).toBe(401);

    await request('POST', '/login', { body: { email, password: PASSWORD } });
    const right = await smtp.codeFor(email, count);
    const wrong = right === '000000' ? '000001' : '000000';
    for (let n = 0; n < 5; n++)
      expect((await request('POST', '/verify-otp', { body: { email, code: wrong } })).status).toBe(
        401,
      );
    expect((await request('POST', '/verify-otp', { body: { email, code: right } })).status).toBe(
      401,
    );
  });

  it('limits codes to five per ten minutes per account and purpose, with Retry-After', async () => {
    const email = await newAccount();
    for (let n = 0; n < 5; n++)
      expect(
        (await request('POST', '/login', { body: { email, password: PASSWORD } })).status,
      ).toBe(200);
    const sixth = await request('POST', '/login', { body: { email, password: PASSWORD } });
    expect(sixth.status).toBe(429);
    expect(sixth.body.error.code).toBe('rate_limited');
    expect(Number(sixth.headers['retry-after'])).toBe(600);
    t.clock.advance(10 * MINUTE);
    expect((await request('POST', '/login', { body: { email, password: PASSWORD } })).status).toBe(
      200,
    );
  });

  it("lets a stranger's wrong codes lock nothing: the owner signs in right after them", async () => {
    const email = await newAccount();
    // No code is pending: these count against nothing.
    for (let n = 0; n < 60; n++) {
      const guess = await request('POST', '/verify-otp', {
        body: { email, code: String(n).padStart(6, '0') },
        ip: `198.51.100.${n % 50}`,
      });
      expect(guess.status).toBe(401);
      expect(guess.body.error.code).toBe('invalid_code');
    }
    const { session } = await signIn(email);
    expect(session.token).toMatch(/^hadir_ses_/);
  });

  it('lets a stranger burn only the pending code; the owner gets a new one at once', async () => {
    const email = await newAccount();
    let count = smtp.messages.filter((message) => message.to.includes(email)).length;
    await request('POST', '/login', { body: { email, password: PASSWORD } });
    const burned = await smtp.codeFor(email, count);
    count += 1;
    const wrong = burned === '000000' ? '000001' : '000000';
    for (let n = 0; n < 5; n++) {
      await request('POST', '/verify-otp', { body: { email, code: wrong }, ip: '203.0.113.66' });
    }
    expect((await request('POST', '/verify-otp', { body: { email, code: burned } })).status).toBe(
      401,
    );
    await request('POST', '/login', { body: { email, password: PASSWORD } });
    const fresh = await smtp.codeFor(email, count);
    expect((await request('POST', '/verify-otp', { body: { email, code: fresh } })).status).toBe(
      200,
    );
  });

  it('throttles failed passwords per address string and network, alike for a real and an unknown address', async () => {
    const email = await newAccount();
    const unknown = `nobody-${email}`;
    const answers = async (address: string) => {
      const seen: string[] = [];
      for (let n = 0; n < 12; n++) {
        const response = await request('POST', '/login', {
          body: { email: address, password: 'wrong-password!' },
        });
        seen.push(`${response.status} ${response.headers['retry-after'] ?? '-'} ${response.raw}`);
      }
      for (let n = 0; n < 3; n++) {
        const response = await request('POST', '/verify-otp', {
          body: { email: address, code: '123456' },
        });
        seen.push(`${response.status} ${response.headers['retry-after'] ?? '-'} ${response.raw}`);
      }
      return seen;
    };
    const real = await answers(email);
    expect(await answers(unknown)).toEqual(real);
    expect(real.slice(0, 10).every((line) => line.startsWith('401 -'))).toBe(true);
    expect(real[10]).toMatch(/^429 900 .*rate_limited/);

    // Throttled before hashing: even the right password waits out the window on that network...
    const throttled = await request('POST', '/login', { body: { email, password: PASSWORD } });
    expect(throttled.status).toBe(429);
    // ...but the holder on another network is not delayed by what was tried elsewhere.
    const elsewhere = await request('POST', '/login', {
      body: { email, password: PASSWORD },
      ip: '203.0.113.40',
    });
    expect(elsewhere.body).toEqual(CODE_SENT);
    t.clock.advance(15 * MINUTE);
    expect((await request('POST', '/login', { body: { email, password: PASSWORD } })).status).toBe(
      200,
    );
  });

  it("keeps a trusted device's sign-in open while strangers exhaust the address's budget", async () => {
    const email = await newAccount();
    const { trustedDevice } = await signIn(email, { rememberDevice: true });
    for (let n = 0; n < 11; n++) {
      await request('POST', '/login', { body: { email, password: 'wrong-password!' } });
    }
    expect((await request('POST', '/login', { body: { email, password: PASSWORD } })).status).toBe(
      429,
    );
    const withDevice = await request('POST', '/login', {
      body: { email, password: PASSWORD, deviceToken: trustedDevice?.token },
    });
    expect(withDevice.status).toBe(200);
    expect(withDevice.body.status).toBe('authenticated');
    t.clock.advance(15 * MINUTE);
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
      // Strangers without the password: wrong passwords and codes, as many as they like.
      for (let round = 0; round < 30; round++) {
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
