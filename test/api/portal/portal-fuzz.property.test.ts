import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../../src/accounts/accounts.service.ts';
import type { TestApp } from '../../helpers/app.ts';
import { pageBrowser } from '../../helpers/page-browser.ts';
import { PORTAL_PASSWORD, portalClient } from '../../helpers/portal-client.ts';
import { startMailingApp, type TestSmtpServer } from '../../helpers/smtp.ts';
import { ENGINES } from '../../helpers/stores.ts';

const PORTAL = '/developer/portal';
const AUTH = '/developer/auth';

/** Every route a browser or a program can send to, with a path parameter where it has one. */
const PAGE_POSTS = [
  '/sign-in',
  '/sign-in/code',
  '/sign-in/code/resend',
  '/forgot-password',
  '/reset-password',
  '/reset-password/link',
  '/password',
  '/devices/:id/revoke',
  '/keys/:id/reveal',
  '/keys/:id/rotate',
  '/keys/:id/webhooks',
  '/keys/:id/webhooks/ep_fuzz/rotate',
  '/keys/:id/webhooks/ep_fuzz/test',
  '/keys/:id/webhooks/ep_fuzz/remove',
  '/keys/:id/webhooks/ep_fuzz/redeliver',
  '/sign-out',
];
const PAGE_GETS = [
  '/sign-in',
  '/language',
  '/reset-password',
  '/keys',
  '/keys/:id',
  '/keys/:id/webhooks/ep_fuzz',
  '/devices',
  '/password',
  '/start',
];
const API_POSTS = [
  '/login',
  '/verify-otp',
  '/forgot-password',
  '/reset-password',
  '/change-password',
  '/step-up',
  '/keys/:id/reveal',
  '/keys/:id/rotate',
];

const FIELDS = [
  'email',
  'password',
  'code',
  'challenge',
  'token',
  'newPassword',
  'newPasswordAgain',
  'currentPassword',
  'overlapHours',
  'confirmed',
  'remember',
  'to',
  'back',
  'deviceToken',
  'deviceLabel',
  'url',
  'event-webhook-test',
  'delivery',
  'sinceHours',
];

/** Text as hostile clients send it: control characters, NUL, non-Latin-1, long runs. */
const hostileText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('\u0000', 'a\u0000b@c.d', '\u00e9\u4e2d\ud83d\ude00', '%00', '\r\n', '..//'),
  fc.string({
    unit: fc.constantFrom('\u0000', '\u001f', '\u007f', '\u0085', 'é', '中'),
    maxLength: 8,
  }),
);
/** A form field list, where a name may come twice. */
const formFields = fc.array(fc.tuple(fc.constantFrom(...FIELDS), hostileText), { maxLength: 8 });
/** A JSON value where the API expects strings, numbers or booleans. */
const jsonValue = fc.oneof(
  hostileText,
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(hostileText, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), hostileText, { maxKeys: 3 }),
);
const jsonBody = fc.dictionary(fc.constantFrom(...FIELDS), jsonValue, { maxKeys: 6 });

describe.each(ENGINES)('no portal input yields a 5xx, on %s', (engine) => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let session: string;
  let cookie: string;
  let csrf: string;

  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ t, smtp, close } = await startMailingApp(engine));
    await createAccount(t.store, t.clock, {
      email: 'fuzz@example.test',
      password: PORTAL_PASSWORD,
      mustChangePassword: false,
    });
    const client = portalClient(t, smtp);
    session = (await client.signIn('fuzz@example.test')).session.token;
    // A browser with the same session, so forms reach their handlers past the CSRF check.
    const browser = pageBrowser(t.app);
    browser.jar.set('hadir_session', session);
    csrf = (await browser.get(`${PORTAL}/keys`)).csrf as string;
    cookie = [...browser.jar].map(([name, value]) => `${name}=${value}`).join('; ');
  });
  afterAll(() => close());

  const withId = (route: string, id: string) => route.replace(':id', encodeURIComponent(id));

  it('answers random forms, duplicates and control characters on every page with 4xx or less', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PAGE_POSTS),
        hostileText,
        formFields,
        fc.boolean(),
        fc.constantFrom(
          'application/x-www-form-urlencoded',
          'application/json',
          'text/plain',
          'multipart/form-data',
        ),
        async (route, id, fields, withToken, contentType) => {
          const form = new URLSearchParams(withToken ? [['_csrf', csrf], ...fields] : fields);
          const payload =
            contentType === 'application/json'
              ? JSON.stringify(Object.fromEntries(fields))
              : form.toString();
          const response = await t.app.inject({
            method: 'POST',
            url: `${PORTAL}${withId(route, id)}`,
            remoteAddress: '127.0.0.1',
            headers: { 'content-type': contentType, cookie },
            payload,
          });
          expect(response.statusCode, `${route} ${payload}`).toBeLessThan(500);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('answers random queries on every page with 4xx or less', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PAGE_GETS),
        hostileText,
        formFields,
        async (route, id, fields) => {
          const response = await t.app.inject({
            method: 'GET',
            url: `${PORTAL}${withId(route, id)}?${new URLSearchParams(fields).toString()}`,
            remoteAddress: '127.0.0.1',
            headers: { cookie },
          });
          expect(response.statusCode, `${route} ${JSON.stringify(fields)}`).toBeLessThan(500);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('answers random JSON on every account API route with the envelope and 4xx or less', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...API_POSTS),
        hostileText,
        jsonBody,
        async (route, id, body) => {
          const response = await t.app.inject({
            method: 'POST',
            url: `${AUTH}${withId(route, id)}`,
            remoteAddress: '192.0.2.99',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${session}` },
            payload: JSON.stringify(body),
          });
          expect(response.statusCode, `${route} ${JSON.stringify(body)}`).toBeLessThan(500);
          if (response.statusCode >= 400) {
            expect(JSON.parse(response.body)).toEqual({
              error: { code: expect.any(String), message: expect.any(String) },
            });
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
