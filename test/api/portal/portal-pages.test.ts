import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../../src/accounts/accounts.service.ts';
import { KeyUsage } from '../../../src/keys/key-usage.ts';
import { issueKey } from '../../../src/keys/keys.service.ts';
import { createSmtpMailer } from '../../../src/mail/mailer.ts';
import { PORTAL_CSP } from '../../../src/portal-pages/portal-pages.ts';
import { logCapture, startTestApp, type TestApp } from '../../helpers/app.ts';
import { seedWeddingCampaign } from '../../helpers/factories.ts';
import { pageBrowser, signedInPages } from '../../helpers/page-browser.ts';
import { PORTAL_PASSWORD } from '../../helpers/portal-client.ts';
import { startSmtpServer, type TestSmtpServer } from '../../helpers/smtp.ts';
import { createTestStore, PAGE_ENGINES } from '../../helpers/stores.ts';

const PORTAL = '/developer/portal';

describe.each(PAGE_ENGINES)('the portal pages over HTTP on %s', (engine) => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let usage: KeyUsage;
  let accounts = 0;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    const { logger } = logCapture();
    const store = await createTestStore(engine);
    // Flushed by the test, not by its timer.
    usage = new KeyUsage(store.db, logger, 3_600_000);
    t = await startTestApp(store, {
      mailer: createSmtpMailer(smtp.url, 'Hadir <no-reply@hadir.test>'),
      rateLimitPerMinute: 3,
      keyUsage: usage,
    });
    await seedWeddingCampaign(t.store, t.clock);
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  async function signedIn() {
    accounts += 1;
    const session = await signedInPages(t, smtp, `pages${accounts}@example.test`);
    expect(session.signedIn.status).toBe(303);
    expect(session.signedIn.headers.location).toBe(PORTAL);
    return session;
  }

  it('sends the strict headers on every page', async () => {
    const browser = pageBrowser(t.app);
    for (const path of ['/sign-in', '/forgot-password', '/keys', '/nothing-here']) {
      const page = await browser.get(`${PORTAL}${path}`);
      expect(page.headers['content-security-policy']).toBe(PORTAL_CSP);
      expect(page.headers['referrer-policy']).toBe('same-origin');
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(page.headers['cross-origin-opener-policy']).toBe('same-origin');
      expect(page.headers['permissions-policy']).toContain('camera=()');
    }
    expect(PORTAL_CSP).toContain("frame-ancestors 'none'");
    expect(PORTAL_CSP).not.toContain('unsafe-inline');
  });

  it('refuses a form without its CSRF token, and changes nothing', async () => {
    const browser = pageBrowser(t.app);
    await browser.get(`${PORTAL}/sign-in`);
    const before = smtp.messages.length;
    const refused = await browser.post(`${PORTAL}/sign-in`, {
      email: 'pages-csrf@example.test',
      password: PORTAL_PASSWORD,
    });
    expect(refused.status).toBe(403);
    // A token from another browser's page does not fit this browser's secret.
    const other = await pageBrowser(t.app).get(`${PORTAL}/sign-in`);
    const forged = await browser.post(`${PORTAL}/sign-in`, {
      _csrf: other.csrf as string,
      email: 'pages-csrf@example.test',
      password: PORTAL_PASSWORD,
    });
    expect(forged.status).toBe(403);
    expect(smtp.messages.length).toBe(before);
  });

  it('holds the session in an HttpOnly, SameSite=Lax cookie the JSON API never reads', async () => {
    const { browser, signedIn: response } = await signedIn();
    const session = response.cookies.find((cookie) => cookie.name === 'hadir_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(session?.value).toMatch(/^hadir_ses_[0-9a-f]{64}$/);
    expect((await browser.get(`${PORTAL}/keys`)).status).toBe(200);
    const me = await browser.get('/developer/auth/me');
    expect(me.status).toBe(401);
    // Signing out ends the session itself, not only the cookie.
    const page = await browser.get(`${PORTAL}/keys`);
    const token = session?.value as string;
    expect((await browser.post(`${PORTAL}/sign-out`, { _csrf: page.csrf as string })).status).toBe(
      303,
    );
    const api = await t.app.inject({
      method: 'GET',
      url: '/developer/auth/me',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(api.statusCode).toBe(401);
    expect((await browser.get(`${PORTAL}/keys`)).headers.location).toBe(`${PORTAL}/sign-in`);
  });

  it('serves plain HTTP to this machine only', async () => {
    const remote = pageBrowser(t.app, { address: '192.0.2.7' });
    const page = await remote.get(`${PORTAL}/sign-in`);
    expect(page.status).toBe(403);
    expect(page.body).toContain('HTTPS');
  });

  it('counts each key’s requests per day and shows what was flushed', async () => {
    const { browser, email } = await signedIn();
    const key = await issueKey(t.store, t.clock, {
      accountEmail: email,
      scopes: [{ campaignId: 'nikah', fields: ['menu'] }],
    });
    const page = await t.get('/developer/v1/campaigns/nikah/respondents', key.key);
    expect(page.status).toBe(200);
    const etag = page.headers.etag as string;
    expect(
      (await t.get('/developer/v1/campaigns/nikah/respondents', key.key, { 'if-none-match': etag }))
        .status,
    ).toBe(304);
    expect((await t.get('/developer/v1/campaigns/nope/summary', key.key)).status).toBe(404);
    // The rest of the minute's budget, then one refused.
    let answered = 3;
    while ((await t.get('/developer/v1/campaigns', key.key)).status === 200) answered += 1;
    expect(answered).toBeLessThan(10);
    // Nothing is shown until a flush writes it.
    const keyPage = `${PORTAL}/keys/${key.id}`;
    expect((await browser.get(keyPage)).body).toContain('0 permintaan');
    await usage.flush();
    const keys = await browser.get(keyPage, { 'accept-language': 'en' });
    const answeredOk = answered - 2; // the 304 and the 404 were not answered with data
    expect(keys.body).toContain(`${answeredOk + 3} requests and 2 rows in 30 days`);
    // Newest day first, in plain words with the technical term beside them.
    expect(keys.body).toMatch(
      new RegExp(
        `<tbody><tr><th scope="row">[^<]+</th><td>${answeredOk}</td><td>1</td><td>1</td><td>1</td><td>2</td></tr>`,
      ),
    );
    expect(keys.body).toContain('Refused because of the rate limit');
    expect(keys.body).toContain('Answered from cache');
    // Each column is explained in words below the table, the failed requests among them.
    expect(keys.body).toContain(
      '<dt>Failed</dt><dd>requests that got no data: a key, campaign or question the key may not use, a mistyped request, or a fault on our side</dd>',
    );
    expect(keys.body).toContain(
      '<dt>Rows served</dt><dd>guests sent in all the answers of the day</dd>',
    );
    const stored = await t.store.db
      .selectFrom('key_usage_days')
      .selectAll()
      .where('key_id', '=', key.id)
      .execute();
    expect(
      stored.map((row) => ({ ...row, answered: Number(row.answered), rows: Number(row.rows) })),
    ).toMatchObject([{ answered: answeredOk, rows: 2 }]);
    // A second flush adds to the same day.
    await t.get('/developer/v1/campaigns/nikah/summary', key.key);
    t.clock.advance(61_000);
    await t.get('/developer/v1/campaigns/nikah/summary', key.key);
    await usage.flush();
    const after = await browser.get(keyPage, { 'accept-language': 'en' });
    expect(after.body).toContain(`${answeredOk + 5} requests and 2 rows in 30 days`);
  });
});

describe.each([
  ['in production', true],
  ['in development', false],
])('the portal pages behind an HTTPS proxy, %s', (_name, production) => {
  let t: TestApp;
  let smtp: TestSmtpServer;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp('sqlite', {
      mailer: createSmtpMailer(smtp.url, 'Hadir <no-reply@hadir.test>'),
      trustProxy: '127.0.0.1',
      requireForwardedHttps: production,
    });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('sets __Host- cookies with Secure, from any client address', async () => {
    const email = `proxied-${production}@example.test`;
    await createAccount(t.store, t.clock, {
      email,
      password: PORTAL_PASSWORD,
      mustChangePassword: false,
    });
    const browser = pageBrowser(t.app, {
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.4' },
    });
    const form = await browser.get(`${PORTAL}/sign-in`);
    expect(form.status).toBe(200);
    expect(form.cookies.map((cookie) => cookie.name)).toEqual(['__Host-hadir_csrf']);
    expect(form.cookies[0]).toMatchObject({ secure: true, httpOnly: true, path: '/' });
    const codePage = await browser.post(`${PORTAL}/sign-in`, {
      _csrf: form.csrf as string,
      email,
      password: PORTAL_PASSWORD,
    });
    const done = await browser.post(`${PORTAL}/sign-in/code`, {
      _csrf: codePage.csrf as string,
      email,
      challenge: codePage.field('challenge') as string,
      code: await smtp.codeFor(email),
      remember: '1',
    });
    expect(done.status).toBe(303);
    const byName = new Map(done.cookies.map((cookie) => [cookie.name, cookie]));
    for (const name of ['__Host-hadir_session', '__Host-hadir_device']) {
      expect(byName.get(name)).toMatchObject({
        secure: true,
        httpOnly: true,
        sameSite: 'Lax',
        path: '/',
      });
      expect(byName.get(name)).not.toHaveProperty('domain');
    }
    // The same request over plain HTTP is refused before it reaches the page.
    const plain = await pageBrowser(t.app, {
      headers: { 'x-forwarded-proto': 'http', 'x-forwarded-for': '198.51.100.4' },
    }).get(`${PORTAL}/sign-in`);
    expect(plain.status).toBe(403);
  });
});
