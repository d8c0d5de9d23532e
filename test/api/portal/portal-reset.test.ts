import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSmtpMailer } from '../../../src/mail/mailer.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { CODE_SENT, PORTAL_PASSWORD, portalClient } from '../../helpers/portal-client.ts';
import { startSmtpServer, type TestSmtpServer } from '../../helpers/smtp.ts';
import { ENGINES } from '../../helpers/stores.ts';

const NEW_PASSWORD = 'nasi-uduk-betawi-sore';

describe.each(ENGINES)('sign-out and a forgotten password on %s', (engine) => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let client: ReturnType<typeof portalClient>;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp(engine, {
      mailer: createSmtpMailer(smtp.url, 'Hadir <no-reply@hadir.test>'),
    });
    client = portalClient(t, smtp);
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('signs out: the session token is refused from then on', async () => {
    const email = await client.newAccount();
    const { session } = await client.signIn(email);
    const out = await client.request('POST', '/logout', { token: session.token });
    expect(out).toMatchObject({ status: 200, body: { status: 'signed_out' } });
    const me = await client.request('GET', '/me', { token: session.token });
    expect(me.status).toBe(401);
    expect((await client.request('POST', '/logout', { token: session.token })).status).toBe(401);
  });

  it('answers a reset request the same for a real and an unknown address', async () => {
    const email = await client.newAccount();
    const real = await client.request('POST', '/forgot-password', { body: { email } });
    const unknown = await client.request('POST', '/forgot-password', {
      body: { email: 'nobody@example.test' },
    });
    expect(real).toMatchObject({ status: 200, body: { status: 'code_sent' } });
    expect(unknown.status).toBe(real.status);
    expect(unknown.body).toEqual(real.body);
    await smtp.codeFor(email);
    expect(client.mailsTo('nobody@example.test')).toEqual([]);
  });

  it('resets the password with the code, ends every session and device, and sends a notice', async () => {
    const email = await client.newAccount();
    const { session, trustedDevice } = await client.signIn(email, PORTAL_PASSWORD, true);
    const before = client.mailsTo(email).length;
    await client.request('POST', '/forgot-password', { body: { email } });
    const code = await smtp.codeFor(email, before);
    expect(client.mailsTo(email).at(-1)?.subject).toMatch(/^Kode atur ulang kata sandi Hadir: /);

    // A refused password leaves the code unspent.
    const weak = await client.request('POST', '/reset-password', {
      body: { email, code, newPassword: 'short' },
    });
    expect(weak.status).toBe(400);
    expect(weak.body.error.message).toMatch(/12 to 72 characters/);
    const wrong = await client.request('POST', '/reset-password', {
      body: { email, code: code === '000000' ? '111111' : '000000', newPassword: NEW_PASSWORD },
    });
    expect(wrong).toMatchObject({ status: 401, body: { error: { code: 'invalid_code' } } });

    const reset = await client.request('POST', '/reset-password', {
      body: { email, code, newPassword: NEW_PASSWORD },
    });
    expect(reset).toMatchObject({ status: 200, body: { status: 'password_reset' } });
    expect((await client.request('GET', '/me', { token: session.token })).status).toBe(401);
    expect(client.mailsTo(email).at(-1)?.subject).toMatch(/password was reset/);

    // The code is spent; the old password and the trusted device no longer sign in.
    const again = await client.request('POST', '/reset-password', {
      body: { email, code, newPassword: `${NEW_PASSWORD}-2` },
    });
    expect(again.status).toBe(401);
    const oldPassword = await client.request('POST', '/login', {
      body: { email, password: PORTAL_PASSWORD, deviceToken: trustedDevice?.token },
    });
    expect(oldPassword.status).toBe(401);
    const withDevice = await client.request('POST', '/login', {
      body: { email, password: NEW_PASSWORD, deviceToken: trustedDevice?.token },
    });
    expect(withDevice.body).toEqual(CODE_SENT);
  });

  it('lifts a sign-in lock: the code proves the mailbox', async () => {
    const email = await client.newAccount();
    // Sign-in codes asked for after the right password and never redeemed lock the account.
    let login = await client.request('POST', '/login', {
      body: { email, password: PORTAL_PASSWORD },
    });
    for (let sent = 0; login.status === 200 && sent < 50; sent += 1) {
      t.clock.advance(11 * 60_000);
      login = await client.request('POST', '/login', {
        body: { email, password: PORTAL_PASSWORD },
      });
    }
    expect(login.body.error.code).toBe('account_locked');
    const before = client.mailsTo(email).length;
    await client.request('POST', '/forgot-password', { body: { email } });
    const code = await smtp.codeFor(email, before);
    const reset = await client.request('POST', '/reset-password', {
      body: { email, code, newPassword: NEW_PASSWORD },
    });
    expect(reset.status).toBe(200);
    await client.signIn(email, NEW_PASSWORD);
  });

  it('refuses malformed bodies with the envelope', async () => {
    const response = await client.request('POST', '/reset-password', {
      body: { email: 'a@example.test', code: '12', newPassword: NEW_PASSWORD },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_parameter');
  });
});
