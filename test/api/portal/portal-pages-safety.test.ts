import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../../src/accounts/accounts.service.ts';
import type { TestApp } from '../../helpers/app.ts';
import { type PageResponse, pageBrowser } from '../../helpers/page-browser.ts';
import { PORTAL_PASSWORD } from '../../helpers/portal-client.ts';
import { resetLinkIn, startMailingApp, type TestSmtpServer } from '../../helpers/smtp.ts';
import { PAGE_ENGINES } from '../../helpers/stores.ts';

const PORTAL = '/developer/portal';
const NEW_PASSWORD = 'nasi-uduk-betawi-sore';

describe.each(PAGE_ENGINES)('the portal pages against strangers and odd input, on %s', (engine) => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let accounts = 0;

  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ t, smtp, close } = await startMailingApp(engine));
  });
  afterAll(() => close());

  async function newAccount() {
    accounts += 1;
    const email = `safe${accounts}@example.test`;
    await createAccount(t.store, t.clock, {
      email,
      password: PORTAL_PASSWORD,
      mustChangePassword: false,
    });
    return email;
  }

  /** The holder's browser through password and code; the code page is returned on the way. */
  async function signIn(browser: ReturnType<typeof pageBrowser>, email: string) {
    const form = await browser.get(`${PORTAL}/sign-in`);
    const before = smtp.messages.filter((mail) => mail.to.includes(email)).length;
    const codePage = await browser.post(`${PORTAL}/sign-in`, {
      _csrf: form.csrf as string,
      email,
      password: PORTAL_PASSWORD,
    });
    expect(codePage.status).toBe(200);
    const code = await smtp.codeFor(email, before);
    return { codePage, code };
  }

  /** The code page sent back with the mailed code, as the holder's browser does. */
  function enterCode(
    browser: ReturnType<typeof pageBrowser>,
    email: string,
    codePage: PageResponse,
    code: string,
  ) {
    return browser.post(`${PORTAL}/sign-in/code`, {
      _csrf: codePage.csrf as string,
      email,
      challenge: codePage.field('challenge') as string,
      code,
    });
  }

  it('lets the holder in every time while a stranger sends 50 wrong codes', async () => {
    const email = await newAccount();
    const holder = pageBrowser(t.app);
    const stranger = pageBrowser(t.app, { address: '127.0.0.2' });
    let wrongCodes = 0;
    for (let round = 0; round < 10; round++) {
      const { codePage, code } = await signIn(holder, email);
      const strangerForm = await stranger.get(`${PORTAL}/sign-in`);
      for (let n = 0; n < 5; n++) {
        const wrong = String((Number(code) + 1 + n) % 1_000_000).padStart(6, '0');
        const tried = await stranger.post(`${PORTAL}/sign-in/code`, {
          _csrf: strangerForm.csrf as string,
          email,
          code: wrong,
        });
        expect(tried.status).toBe(401);
        wrongCodes += 1;
      }
      const done = await holder.post(`${PORTAL}/sign-in/code`, {
        _csrf: codePage.csrf as string,
        email,
        challenge: codePage.field('challenge') as string,
        code,
      });
      expect(done.status).toBe(303);
      expect(done.headers.location).toBe(PORTAL);
      const signOut = await holder.get(`${PORTAL}/keys`);
      await holder.post(`${PORTAL}/sign-out`, { _csrf: signOut.csrf as string });
      t.clock.advance(3 * 60_000);
    }
    expect(wrongCodes).toBe(50);
    const account = await t.store.db
      .selectFrom('accounts')
      .select('locked_at')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    expect(account.locked_at).toBeNull();
  });

  it('sends a new code on request and keeps a mistyped code in the form', async () => {
    const email = await newAccount();
    const browser = pageBrowser(t.app);
    const { codePage, code } = await signIn(browser, email);
    const challenge = codePage.field('challenge') as string;
    const wrong = await browser.post(`${PORTAL}/sign-in/code`, {
      _csrf: codePage.csrf as string,
      email,
      challenge,
      code: '12 34 5',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.field('code')).toBe('12 34 5');
    const before = smtp.messages.filter((mail) => mail.to.includes(email)).length;
    const resent = await browser.post(`${PORTAL}/sign-in/code/resend`, {
      _csrf: wrong.csrf as string,
      email,
      challenge,
    });
    expect(resent.status).toBe(200);
    // The same code again, while it lives: the first mail is still good.
    expect(await smtp.codeFor(email, before)).toBe(code);
    const done = await browser.post(`${PORTAL}/sign-in/code`, {
      _csrf: resent.csrf as string,
      email,
      challenge,
      code,
    });
    expect(done.status).toBe(303);
  });

  it('says why a 429 came, in words, with Retry-After', async () => {
    const email = await newAccount();
    const stranger = pageBrowser(t.app, { address: '127.0.0.3' });
    const form = await stranger.get(`${PORTAL}/sign-in`);
    let last = form;
    for (let n = 0; n < 11; n++) {
      last = await stranger.post(
        `${PORTAL}/sign-in`,
        { _csrf: form.csrf as string, email, password: 'not-the-password' },
        { 'accept-language': 'en' },
      );
    }
    expect(last.status).toBe(429);
    expect(last.headers['retry-after']).toBe('900');
    expect(last.body).toContain(
      'Too many wrong passwords for this address from this network. Try again in 15 minutes',
    );
    // The holder, elsewhere, is not held up.
    const holder = pageBrowser(t.app);
    const { codePage } = await signIn(holder, email);
    expect(codePage.body).toContain('name="challenge"');
  });

  it('finishes a reset from the mail’s link, asking for the new password twice', async () => {
    const email = await newAccount();
    const browser = pageBrowser(t.app);
    const form = await browser.get(`${PORTAL}/forgot-password`);
    const before = smtp.messages.filter((mail) => mail.to.includes(email)).length;
    await browser.post(`${PORTAL}/forgot-password`, { _csrf: form.csrf as string, email });
    await smtp.codeFor(email, before);
    const link = resetLinkIn(smtp.messages.filter((mail) => mail.to.includes(email)).at(-1));
    const token = new URL(link as string).searchParams.get('token') as string;
    const page = await browser.get(`${PORTAL}/reset-password?token=${token}`, {
      'accept-language': 'en',
    });
    expect(page.status).toBe(200);
    const differ = await browser.post(
      `${PORTAL}/reset-password/link`,
      {
        _csrf: page.csrf as string,
        token,
        newPassword: NEW_PASSWORD,
        newPasswordAgain: `${NEW_PASSWORD}!`,
      },
      { 'accept-language': 'en' },
    );
    expect(differ.status).toBe(400);
    expect(differ.body).toContain('The two new passwords differ');
    const done = await browser.post(`${PORTAL}/reset-password/link`, {
      _csrf: differ.csrf as string,
      token,
      newPassword: NEW_PASSWORD,
      newPasswordAgain: NEW_PASSWORD,
    });
    expect(done.status).toBe(303);
    expect(done.headers.location).toBe(`${PORTAL}/sign-in?done=reset`);
    expect((await browser.get(`${PORTAL}/reset-password?token=${token}`)).status).toBe(410);
  });

  it('binds form tokens to the session, and refuses another site’s Origin', async () => {
    const email = await newAccount();
    const browser = pageBrowser(t.app);
    const { codePage, code } = await signIn(browser, email);
    await enterCode(browser, email, codePage, code);
    const devices = await browser.get(`${PORTAL}/devices`);
    const firstSessionToken = devices.csrf as string;
    // A token from before sign-in does not serve the session...
    const revoke = (csrf: string, headers: Record<string, string> = {}) =>
      browser.post(`${PORTAL}/devices/none/revoke`, { _csrf: csrf }, headers);
    expect((await revoke(codePage.csrf as string)).status).toBe(403);
    // ...one of this session does (here: a device that does not exist)...
    expect((await revoke(firstSessionToken)).status).toBe(404);
    expect((await revoke(firstSessionToken, { origin: 'http://localhost' })).status).toBe(404);
    // ...but not when another site sent the form, nor once the session has ended.
    expect((await revoke(firstSessionToken, { origin: 'https://evil.example' })).status).toBe(403);
    expect(
      (await revoke(firstSessionToken, { referer: 'https://evil.example/forms' })).status,
    ).toBe(403);
    await browser.post(`${PORTAL}/sign-out`, { _csrf: firstSessionToken });
    const again = await signIn(browser, email);
    await browser.post(`${PORTAL}/sign-in/code`, {
      _csrf: again.codePage.csrf as string,
      email,
      challenge: again.codePage.field('challenge') as string,
      code: again.code,
    });
    expect((await revoke(firstSessionToken)).status).toBe(403);
  });

  it('rotates the session cookie when the password changes, and signs out after wrong tries', async () => {
    const email = await newAccount();
    const browser = pageBrowser(t.app);
    const { codePage, code } = await signIn(browser, email);
    await enterCode(browser, email, codePage, code);
    const before = browser.jar.get('hadir_session');
    const page = await browser.get(`${PORTAL}/password`);
    const changed = await browser.post(`${PORTAL}/password`, {
      _csrf: page.csrf as string,
      currentPassword: PORTAL_PASSWORD,
      newPassword: NEW_PASSWORD,
      newPasswordAgain: NEW_PASSWORD,
    });
    expect(changed.headers.location).toBe(`${PORTAL}/password?done=changed`);
    const after = browser.jar.get('hadir_session');
    expect(after).toMatch(/^hadir_ses_/);
    expect(after).not.toBe(before);
    expect((await browser.get(`${PORTAL}/password?done=changed`)).status).toBe(200);
    for (let n = 0; n < 5; n++) {
      const form = await browser.get(`${PORTAL}/password`);
      const wrong = await browser.post(`${PORTAL}/password`, {
        _csrf: form.csrf as string,
        currentPassword: 'not-my-password',
        newPassword: 'another-long-password',
        newPasswordAgain: 'another-long-password',
      });
      if (n < 4) expect(wrong.status).toBe(401);
      else expect(wrong.headers.location).toBe(`${PORTAL}/sign-in?done=ended`);
    }
    expect((await browser.get(`${PORTAL}/keys`)).headers.location).toBe(`${PORTAL}/sign-in`);
  });

  it('answers odd requests with a 400 page that says what is wrong', async () => {
    const browser = pageBrowser(t.app);
    const form = await browser.get(`${PORTAL}/sign-in`);
    const csrf = encodeURIComponent(form.csrf as string);
    const post = (payload: string, contentType = 'application/x-www-form-urlencoded') =>
      t.app.inject({
        method: 'POST',
        url: `${PORTAL}/sign-in`,
        remoteAddress: '127.0.0.1',
        headers: {
          'content-type': contentType,
          'accept-language': 'en',
          cookie: [...browser.jar].map(([name, value]) => `${name}=${value}`).join('; '),
        },
        payload,
      });
    const twice = await post(`_csrf=${csrf}&email=a%40b.c&email=d%40e.f&password=x`);
    expect(twice.statusCode).toBe(400);
    expect(twice.body).toContain('The field “email” was sent more than once');
    const nul = await post(`_csrf=${csrf}&email=a%00%40b.c&password=x`);
    expect(nul.statusCode).toBe(400);
    expect(nul.body).toContain('a control character');
    const json = await post(JSON.stringify({ email: { a: 1 }, password: 2 }), 'application/json');
    expect(json.statusCode).toBe(415);
    expect(json.body).toContain('application/x-www-form-urlencoded');
    const back = await browser.get(`${PORTAL}/language?to=en&back=${PORTAL}/keys%00x`);
    expect(back.status).toBe(400);
    const latin = await browser.get(`${PORTAL}/language?to=en&back=${PORTAL}/k%C3%A9ys`);
    expect(latin.status).toBe(303);
    expect(latin.headers.location).toBe(PORTAL);
  });

  it('shows a 404 page with a heading and the way back', async () => {
    const page = await pageBrowser(t.app).get(`${PORTAL}/nothing/here`, {
      'accept-language': 'en',
    });
    expect(page.status).toBe(404);
    expect(page.body).toContain('<h1>Page not found</h1>');
    expect(page.body).toContain(`<a href="${PORTAL}">Go to the sign-in page</a>`);
  });

  it('never takes the address on the get-started page from a request header', async () => {
    const email = await newAccount();
    const browser = pageBrowser(t.app, { headers: { 'x-forwarded-host': 'evil.example' } });
    const { codePage, code } = await signIn(browser, email);
    await enterCode(browser, email, codePage, code);
    const start = await browser.get(`${PORTAL}/start`, { host: 'evil.example' });
    expect(start.status).toBe(200);
    expect(start.body).not.toContain('evil.example');
    expect(start.body).toContain('http://127.0.0.1:3000/developer/v1/campaigns');
    expect(start.body).toContain('npx hadir-sync --base-url http://127.0.0.1:3000');
    expect(start.body).toContain('new HadirClient');
  });
});
