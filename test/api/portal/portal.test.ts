// Signing in to the portal: passwords, e-mailed codes, trusted devices and their throttles.
import { hash } from '@node-rs/argon2';
import { describe, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.ts';
import { MINUTE, PASSWORD, usePortalAccounts } from '../../helpers/portal-accounts.ts';
import { CODE_SENT } from '../../helpers/portal-client.ts';
import type { TestSmtpServer } from '../../helpers/smtp.ts';
import { ENGINES } from '../../helpers/stores.ts';

describe.each(ENGINES)('portal sign-in on %s', (engine) => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  const { request, newAccount, signIn } = usePortalAccounts(engine, (world) => {
    ({ t, smtp } = world);
  });

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
});
