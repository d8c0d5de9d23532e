/** A portal on one engine with an SMTP server, and the calls its account tests make. */
import { afterAll, beforeAll, expect } from 'vitest';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { createSmtpMailer } from '../../src/mail/mailer.ts';
import { startTestApp, type TestApp } from './app.ts';
import { seedCampaign } from './factories.ts';
import { CODE_SENT } from './portal-client.ts';
import { startSmtpServer, type TestSmtpServer } from './smtp.ts';
import type { ENGINES } from './stores.ts';

export const AUTH = '/developer/auth';
export const PASSWORD = 'kopi-tubruk-pagi-hari';
export const MINUTE = 60_000;

/**
 * Starts the portal before the enclosing describe's tests and closes it after them; `set` is
 * given the app and the SMTP server once they run.
 */
export function usePortalAccounts(
  engine: (typeof ENGINES)[number],
  set: (world: { t: TestApp; smtp: TestSmtpServer }) => void,
) {
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
    set({ t, smtp });
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

  return { request, newAccount, signIn, stepUp };
}
