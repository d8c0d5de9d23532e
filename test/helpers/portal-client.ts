import { expect } from 'vitest';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import type { TestApp } from './app.ts';
import type { TestSmtpServer } from './smtp.ts';

export const PORTAL_PASSWORD = 'kopi-tubruk-pagi-hari';

/** What login answers once the password is proven: a code is mailed, a challenge handed over. */
export const CODE_SENT = {
  status: 'code_sent',
  challenge: expect.stringMatching(/^hadir_chl_[0-9a-f]{64}$/),
};

/** The portal account API driven as a holder's program would, through inject. */
export function portalClient(t: TestApp, smtp: TestSmtpServer) {
  let accounts = 0;

  async function request(
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    options: { body?: unknown; token?: string; ip?: string; headers?: Record<string, string> } = {},
  ) {
    const response = await t.app.inject({
      method,
      url: `/developer/auth${url}`,
      remoteAddress: options.ip ?? '192.0.2.10',
      headers: {
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      ...(options.body !== undefined ? { payload: JSON.stringify(options.body) } : {}),
    });
    return {
      status: response.statusCode,
      headers: response.headers,
      body: JSON.parse(response.body || 'null'),
    };
  }

  const mailsTo = (email: string) => smtp.messages.filter((message) => message.to.includes(email));

  return {
    request,
    mailsTo,

    async newAccount(prefix = 'holder'): Promise<string> {
      accounts += 1;
      const email = `${prefix}${accounts}@example.test`;
      await createAccount(t.store, t.clock, {
        email,
        password: PORTAL_PASSWORD,
        mustChangePassword: false,
      });
      return email;
    },

    /** password → e-mailed code → session */
    async signIn(email: string, password = PORTAL_PASSWORD, rememberDevice = false) {
      const before = mailsTo(email).length;
      const login = await request('POST', '/login', { body: { email, password } });
      expect(login.body).toEqual(CODE_SENT);
      const code = await smtp.codeFor(email, before);
      const verified = await request('POST', '/verify-otp', {
        body: { email, code, challenge: login.body.challenge, rememberDevice },
      });
      expect(verified.status).toBe(200);
      return verified.body as {
        session: { token: string };
        trustedDevice?: { token: string };
      };
    },
  };
}
