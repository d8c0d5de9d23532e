import type { FastifyInstance } from 'fastify';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import type { Clock } from '../../src/clock.ts';
import type { Store } from '../../src/db/connect.ts';
import { issueKey } from '../../src/keys/keys.service.ts';
import { PORTAL_PATH } from '../../src/portal-pages/layout.ts';
import type { TestApp } from './app.ts';
import { PORTAL_PASSWORD, portalClient } from './portal-client.ts';
import type { TestSmtpServer } from './smtp.ts';

export interface PageResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  /** The body's bytes, for a file. */
  raw: Buffer;
  /** The CSRF token of the page's first form, when it has one. */
  csrf?: string;
  /** The value of the page's first field of this name. */
  field(name: string): string | undefined;
  cookies: Array<{ name: string; value: string; [attribute: string]: unknown }>;
}

/**
 * A browser in miniature over inject: it keeps cookies, follows nothing by itself, and posts
 * forms as a browser would (urlencoded). Enough to test the portal pages' HTTP contract.
 */
export function pageBrowser(
  app: FastifyInstance,
  options: { address?: string; headers?: Record<string, string> } = {},
) {
  const jar = new Map<string, string>();

  async function go(
    method: 'GET' | 'POST',
    url: string,
    form?: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<PageResponse> {
    const response = await app.inject({
      method,
      url,
      remoteAddress: options.address ?? '127.0.0.1',
      headers: {
        ...options.headers,
        ...(jar.size > 0
          ? { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; ') }
          : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...headers,
      },
      ...(form ? { payload: new URLSearchParams(form).toString() } : {}),
    });
    const cookies = response.cookies as PageResponse['cookies'];
    for (const cookie of cookies) {
      const expired =
        cookie.maxAge === 0 ||
        (cookie.expires instanceof Date && cookie.expires.getTime() <= Date.now());
      if (expired || cookie.value === '') jar.delete(cookie.name);
      else jar.set(cookie.name, cookie.value);
    }
    const csrf = /name="_csrf" value="([^"]+)"/.exec(response.body)?.[1];
    return {
      status: response.statusCode,
      headers: response.headers,
      body: response.body,
      raw: response.rawPayload,
      cookies,
      ...(csrf ? { csrf } : {}),
      field: (name) => new RegExp(`name="${name}"[^>]*? value="([^"]*)"`).exec(response.body)?.[1],
    };
  }

  return {
    jar,
    get: (url: string, headers?: Record<string, string>) => go('GET', url, undefined, headers),
    post: (url: string, form: Record<string, string>, headers?: Record<string, string>) =>
      go('POST', url, form, headers),
  };
}

/**
 * A new account signed in through the pages, as a person does: password, then the e-mailed code.
 * The app must send mail to `smtp`.
 */
export async function signedInPages(
  t: { app: FastifyInstance; store: Store; clock: Clock },
  smtp: TestSmtpServer,
  email: string,
) {
  await createAccount(t.store, t.clock, {
    email,
    password: PORTAL_PASSWORD,
    mustChangePassword: false,
  });
  return signInPages(t, smtp, email);
}

/** Signs an existing account (password PORTAL_PASSWORD) in through the pages. */
export async function signInPages(
  t: { app: FastifyInstance },
  smtp: TestSmtpServer,
  email: string,
) {
  const browser = pageBrowser(t.app);
  const form = await browser.get(`${PORTAL_PATH}/sign-in`);
  const codePage = await browser.post(`${PORTAL_PATH}/sign-in`, {
    _csrf: form.csrf as string,
    email,
    password: PORTAL_PASSWORD,
  });
  if (codePage.status !== 200) throw new Error(`sign-in answered ${codePage.status}`);
  const code = await smtp.codeFor(email);
  const done = await browser.post(`${PORTAL_PATH}/sign-in/code`, {
    _csrf: codePage.csrf as string,
    email,
    challenge: codePage.field('challenge') as string,
    code: `${code.slice(0, 3)} ${code.slice(3)}`,
  });
  return { browser, email, signedIn: done };
}

/**
 * A holder with a key reading the wedding campaign's menu, signed in (through the account API)
 * with a page browser in English, on the key's page.
 */
export async function keyPageHolder(t: TestApp, smtp: TestSmtpServer, name: string) {
  const email = `${name}@example.test`;
  await createAccount(t.store, t.clock, {
    email,
    password: PORTAL_PASSWORD,
    mustChangePassword: false,
  });
  const key = await issueKey(t.store, t.clock, {
    accountEmail: email,
    scopes: [{ campaignId: 'nikah', fields: ['menu'] }],
  });
  const { session } = await portalClient(t, smtp).signIn(email);
  const browser = pageBrowser(t.app, { headers: { 'accept-language': 'en' } });
  browser.jar.set('hadir_session', session.token);
  const page = await browser.get(`${PORTAL_PATH}/keys/${key.id}`);
  return { email, keyId: key.id, browser, csrf: page.csrf as string, page };
}
