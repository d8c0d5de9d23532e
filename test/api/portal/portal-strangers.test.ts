import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_WRONG_RESET_CODES } from '../../../src/portal/lockout.ts';
import { RESET_MAILS_PER_DAY, RESET_MAILS_PER_HOUR } from '../../../src/portal/one-time-codes.ts';
import type { TestApp } from '../../helpers/app.ts';
import { CODE_SENT, PORTAL_PASSWORD, portalClient } from '../../helpers/portal-client.ts';
import { resetLinkIn, startMailingApp, type TestSmtpServer } from '../../helpers/smtp.ts';
import { ENGINES } from '../../helpers/stores.ts';

const MINUTE = 60_000;
const HOLDER_IP = '192.0.2.10';
const STRANGER_IP = '203.0.113.66';
const NEW_PASSWORD = 'nasi-uduk-betawi-sore';

describe.each(ENGINES)('a stranger who knows only an address, on %s', (engine) => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let client: ReturnType<typeof portalClient>;

  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ t, smtp, close } = await startMailingApp(engine));
    client = portalClient(t, smtp);
  });
  afterAll(() => close());

  const stranger = (url: string, body: unknown) =>
    client.request('POST', url, { body, ip: STRANGER_IP });

  it('cannot make the holder’s sign-in fail, nor lock the account, in 50 tries', async () => {
    const email = await client.newAccount();
    let strangerCodes = 0;
    for (let round = 0; round < 10; round++) {
      // The holder proves the password and receives a code and a challenge...
      const before = client.mailsTo(email).length;
      const login = await client.request('POST', '/login', {
        body: { email, password: PORTAL_PASSWORD },
        ip: HOLDER_IP,
      });
      expect(login.body).toEqual(CODE_SENT);
      const code = await smtp.codeFor(email, before);
      // ...while the stranger sends wrong codes, wrong passwords and reset requests.
      for (let n = 0; n < 5; n++) {
        const wrong = String((Number(code) + 1 + n) % 1_000_000).padStart(6, '0');
        const tried = await stranger('/verify-otp', { email, code: wrong });
        expect(tried.status).toBe(401);
        strangerCodes += 1;
      }
      await stranger('/login', { email, password: 'not-the-password' });
      // Even the right code without the challenge cannot end the holder's sign-in for them:
      // the tries without a challenge are a budget of their own, spent by now.
      expect((await stranger('/verify-otp', { email, code })).status).toBe(401);
      const verified = await client.request('POST', '/verify-otp', {
        body: { email, code, challenge: login.body.challenge },
        ip: HOLDER_IP,
      });
      expect(verified.status).toBe(200);
      t.clock.advance(3 * MINUTE);
    }
    expect(strangerCodes).toBe(50);
    const account = await t.store.db
      .selectFrom('accounts')
      .select(['locked_at', 'unredeemed_login_codes'])
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    expect(account.locked_at).toBeNull();
    expect(Number(account.unredeemed_login_codes)).toBe(0);
  });

  it('keeps a client without the challenge to three tries of its own', async () => {
    const email = await client.newAccount();
    const before = client.mailsTo(email).length;
    const login = await client.request('POST', '/login', {
      body: { email, password: PORTAL_PASSWORD },
    });
    const code = await smtp.codeFor(email, before);
    const open = (body: object) => client.request('POST', '/verify-otp', { body });
    // A client of the account API that does not pass the challenge on still signs in.
    expect((await open({ email, code: '000000' === code ? '000001' : '000000' })).status).toBe(401);
    expect((await open({ email, code })).status).toBe(200);

    const again = client.mailsTo(email).length;
    const second = await client.request('POST', '/login', {
      body: { email, password: PORTAL_PASSWORD },
    });
    const next = await smtp.codeFor(email, again);
    const wrong = next === '111111' ? '222222' : '111111';
    for (let n = 0; n < 3; n++) expect((await open({ email, code: wrong })).status).toBe(401);
    expect((await open({ email, code: next })).status).toBe(401);
    expect(
      (
        await client.request('POST', '/verify-otp', {
          body: { email, code: next, challenge: second.body.challenge },
        })
      ).status,
    ).toBe(200);
    expect(login.body.challenge).not.toBe(second.body.challenge);
  });

  it('cannot void a reset code already sent: the same code is mailed again, and bounded', async () => {
    const email = await client.newAccount();
    const forgot = () => stranger('/forgot-password', { email });
    expect((await forgot()).body).toEqual({ status: 'code_sent' });
    const first = await smtp.codeFor(email);
    for (let n = 0; n < 10; n++) expect((await forgot()).body).toEqual({ status: 'code_sent' });
    await expect.poll(() => client.mailsTo(email).length).toBe(RESET_MAILS_PER_HOUR);
    expect(client.mailsTo(email).every((mail) => mail.subject.endsWith(first))).toBe(true);

    // The holder finishes with the code of any of those mails.
    const reset = await client.request('POST', '/reset-password', {
      body: { email, code: first, newPassword: NEW_PASSWORD },
    });
    expect(reset.body).toEqual({ status: 'password_reset' });

    // A day holds RESET_MAILS_PER_DAY mails, however often the address is asked for.
    const resetMails = () => client.mailsTo(email).filter((mail) => /\d{6}$/.test(mail.subject));
    t.clock.advance(60 * MINUTE);
    for (let n = 0; n < 5; n++) await forgot();
    await expect.poll(() => resetMails().length).toBe(RESET_MAILS_PER_DAY);
    for (let hour = 2; hour <= 4; hour++) {
      t.clock.advance(60 * MINUTE);
      for (let n = 0; n < 5; n++) await forgot();
    }
    await t.app.inject({ method: 'GET', url: '/developer/portal/sign-in' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(resetMails()).toHaveLength(RESET_MAILS_PER_DAY);
  });

  it('cannot guess reset codes for long, nor stop the holder finishing with the link', async () => {
    const email = await client.newAccount();
    const before = client.mailsTo(email).length;
    await client.request('POST', '/forgot-password', { body: { email } });
    const code = await smtp.codeFor(email, before);
    const link = resetLinkIn(client.mailsTo(email).at(-1));
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:3000\/developer\/portal\/reset-password\?token=/);

    const statuses: number[] = [];
    for (let n = 0; n < MAX_WRONG_RESET_CODES + 2; n++) {
      const wrong = String((Number(code) + 1 + n) % 1_000_000).padStart(6, '0');
      const tried = await stranger('/reset-password', {
        email,
        code: wrong,
        newPassword: 'a-strangers-password',
      });
      statuses.push(tried.status);
      if (tried.status === 429) {
        expect(Number(tried.headers['retry-after'])).toBeGreaterThan(3600);
        expect(tried.body.error.message).toMatch(/wrong reset codes.*link in the e-mail/);
      }
    }
    expect(statuses.slice(0, MAX_WRONG_RESET_CODES).every((status) => status === 401)).toBe(true);
    expect(statuses.slice(MAX_WRONG_RESET_CODES)).toEqual([429, 429]);
    // The right code is refused too now, for a day: but the link in the holder's mail works.
    const withCode = await client.request('POST', '/reset-password', {
      body: { email, code, newPassword: NEW_PASSWORD },
    });
    expect(withCode.status).toBe(429);
    const token = new URL(link as string).searchParams.get('token') as string;
    const page = await t.app.inject({
      method: 'GET',
      url: `/developer/portal/reset-password?token=${token}`,
      remoteAddress: '127.0.0.1',
    });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('name="token"');
  });

  it('ends a session, never the account, after five wrong current passwords', async () => {
    const email = await client.newAccount();
    const { session } = await client.signIn(email);
    const change = () =>
      client.request('POST', '/change-password', {
        token: session.token,
        body: { currentPassword: 'not-my-password', newPassword: NEW_PASSWORD },
      });
    for (let n = 0; n < 4; n++)
      expect((await change()).body.error.code).toBe('invalid_credentials');
    const fifth = await change();
    expect(fifth.status).toBe(401);
    expect(fifth.body.error.message).toMatch(/session has ended; sign in again/);
    expect((await client.request('GET', '/me', { token: session.token })).status).toBe(401);
    // Sign-in is untouched: the holder is back at once, with a fresh budget.
    const { session: again } = await client.signIn(email);
    const right = await client.request('POST', '/change-password', {
      token: again.token,
      body: { currentPassword: PORTAL_PASSWORD, newPassword: NEW_PASSWORD },
    });
    expect(right.body.status).toBe('password_changed');
  });

  it('voids a pending reset code when the password is changed', async () => {
    const email = await client.newAccount();
    const before = client.mailsTo(email).length;
    await client.request('POST', '/forgot-password', { body: { email } });
    const code = await smtp.codeFor(email, before);
    const { session } = await client.signIn(email);
    await client.request('POST', '/change-password', {
      token: session.token,
      body: { currentPassword: PORTAL_PASSWORD, newPassword: NEW_PASSWORD },
    });
    const reset = await client.request('POST', '/reset-password', {
      body: { email, code, newPassword: 'a-third-long-password' },
    });
    expect(reset.body.error.code).toBe('invalid_code');
  });
});
