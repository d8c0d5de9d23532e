import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../../src/accounts/accounts.service.ts';
import { issueKey } from '../../../src/keys/keys.service.ts';
import { addEndpoint } from '../../../src/notifications/endpoints.service.ts';
import { webhookSealKey } from '../../../src/notifications/signing.ts';
import { TEST_SECRETS, type TestApp } from '../../helpers/app.ts';
import { type Route, routesOf } from '../../helpers/app-routes.ts';
import { seedCampaign } from '../../helpers/factories.ts';
import { pageBrowser } from '../../helpers/page-browser.ts';
import { PORTAL_PASSWORD, portalClient } from '../../helpers/portal-client.ts';
import { startMailingApp, type TestSmtpServer } from '../../helpers/smtp.ts';
import { ENGINES } from '../../helpers/stores.ts';

/** Ends a session: the crawl keeps its own, and these are tried in their own tests. */
const LEFT_OUT = new Set(['/developer/auth/logout', '/developer/portal/sign-out']);

/** Text as hostile clients send it: NUL and control characters, lone surrogates, long runs. */
const hostile = fc.oneof(
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    'c\u0000',
    '\ud800',
    '\udfff-x',
    '%00',
    '..',
    "'; --",
    '0.5',
    '-1',
    '1e308',
    '1e20',
    '9007199254740993',
    'NaN',
    'Infinity',
    '',
    'x'.repeat(5_000),
  ),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
);
const FIELDS = [
  'email',
  'password',
  'code',
  'challenge',
  'token',
  'newPassword',
  'currentPassword',
  'overlapHours',
  'confirmed',
  'url',
  'delivery',
  'sinceHours',
  'deviceToken',
  'deviceLabel',
  'page',
  'limit',
  'since',
  'cursor',
  'to',
  'lang',
  'attendanceStatus',
  'answers[menu]',
  'answers[menu][contains]',
];

/** Percent-encodes every UTF-8 byte that is not unreserved (lone surrogates included). */
function encodePart(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9._~-]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

describe.each(ENGINES)('a crawl of every route with hostile input, on %s', (engine) => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let close: () => Promise<void>;
  let routes: Route[];
  let apiKey: string;
  let keyId: string;
  let endpointId: string;
  let session: string;
  let cookie: string;
  let csrf: string;

  beforeAll(async () => {
    ({ t, smtp, close } = await startMailingApp(engine));
    await seedCampaign(t.store, t.clock, {
      id: 'c',
      fields: [{ key: 'menu', type: 'RADIO' }],
      respondents: [{ id: 'r1', submittedAt: '2026-11-01T00:00:00Z', answers: { menu: 'Sate' } }],
    });
    await seedCampaign(t.store, t.clock, { id: 'other' });
    const email = `crawl-${engine}@example.test`;
    await createAccount(t.store, t.clock, {
      email,
      password: PORTAL_PASSWORD,
      mustChangePassword: false,
    });
    const issued = await issueKey(t.store, t.clock, {
      accountEmail: email,
      scopes: [{ campaignId: 'c', fields: ['menu'] }],
    });
    apiKey = issued.key;
    keyId = issued.id;
    endpointId = (
      await addEndpoint(
        {
          store: t.store,
          clock: t.clock,
          sealKey: webhookSealKey(TEST_SECRETS.keySealKey),
          allowPrivateNetworks: false,
          actor: 'operator',
        },
        { keyId, url: 'https://crawl.partner.example/in' },
      )
    ).endpoint.id;
    session = (await portalClient(t, smtp).signIn(email)).session.token;
    const browser = pageBrowser(t.app);
    browser.jar.set('hadir_session', session);
    csrf = (await browser.get('/developer/portal/keys')).csrf as string;
    cookie = [...browser.jar].map(([name, value]) => `${name}=${value}`).join('; ');
    await t.app.ready();
    routes = routesOf(t.app.printRoutes({ commonPrefix: false })).filter(
      (route) => !LEFT_OUT.has(route.path),
    );
  });
  afterAll(() => close());

  it('finds the routes it crawls', () => {
    expect(routes.map((route) => `${route.method} ${route.path}`)).toEqual(
      expect.arrayContaining([
        'GET /developer/v1/campaigns/:id/respondents',
        'POST /developer/auth/keys/:id/rotate',
        'POST /developer/portal/keys/:id/webhooks/:endpointId/redeliver',
      ]),
    );
  });

  it('answers a campaign id no import could write (a NUL byte) with 404 on every data route', async () => {
    for (const route of ['summary', 'respondents', 'removals', 'fields']) {
      for (const id of ['%00', 'c%00', 'a%00b']) {
        const answer = await t.get(`/developer/v1/campaigns/${id}/${route}`, apiKey);
        expect(answer.status, `${id} ${route}`).toBe(404);
        expect(answer.body.error.code).toBe('not_found');
      }
    }
  });

  it('answers a NUL in any filter value with the same 400, on respondents, summary and MCP', async () => {
    for (const route of ['respondents', 'summary']) {
      for (const query of [
        'answers[menu]=%00',
        'answers[menu][contains]=%00',
        'answers[menu]=a%00b',
      ]) {
        const answer = await t.get(`/developer/v1/campaigns/c/${route}?${query}`, apiKey);
        expect(answer.status, `${route}?${query}`).toBe(400);
        expect(answer.body.error.message).toBe(
          `query parameter '${decodeURIComponent(query.split('=')[0] as string)}' holds a NUL character, which no answer can hold`,
        );
      }
    }
    const tool = await t.app.inject({
      method: 'POST',
      url: '/developer/mcp',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      payload: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'list_respondents',
          arguments: { campaignId: 'c', answers: { menu: { equals: ['a\u0000b'] } } },
        },
      },
    });
    expect(tool.statusCode).toBe(200);
    const result = tool.json().result;
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toContain('holds a NUL character, which no answer can hold');
  });

  it('takes a fractional, huge or wordy "send again" period as a day', async () => {
    for (const sinceHours of ['0.5', '1e20', '1e308', '-3', 'x', '9007199254740993']) {
      const answer = await t.app.inject({
        method: 'POST',
        url: `/developer/portal/keys/${keyId}/webhooks/${endpointId}/redeliver`,
        remoteAddress: '127.0.0.1',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: csrf, sinceHours }).toString(),
      });
      expect(answer.statusCode, sinceHours).toBe(303);
    }
  });

  it('answers every route, whatever its ids, query and body, without a 5xx', async () => {
    const real: Record<string, readonly string[]> = {
      id: ['c', 'other', 'missing'],
      endpointId: [],
      change: ['test', 'disable', 'enable', 'remove'],
    };
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 10_000 }),
        fc.array(fc.oneof(hostile, fc.constant('real')), { minLength: 3, maxLength: 3 }),
        // Mostly no query: one that is not the route's own is refused before anything else.
        fc.oneof(
          { weight: 3, arbitrary: fc.constant([] as Array<[string, string]>) },
          {
            weight: 1,
            arbitrary: fc.array(fc.tuple(fc.constantFrom(...FIELDS), hostile), { maxLength: 3 }),
          },
        ),
        fc.array(fc.tuple(fc.constantFrom(...FIELDS), hostile), { maxLength: 6 }),
        fc.boolean().map((coin) => coin && Math.random() < 0.3),
        async (pick, params, query, body, asJson) => {
          const route = routes[pick % routes.length] as Route;
          let n = 0;
          const url = route.path.replace(/:(\w+)/g, (_, name: string) => {
            const value = params[n++] ?? 'real';
            if (value !== 'real') return encodePart(value);
            if (name === 'id' && route.path.includes('/keys/')) return keyId;
            if (name === 'endpointId') return endpointId;
            const options = real[name] ?? ['x'];
            return options[pick % options.length] as string;
          });
          const search = new URLSearchParams(query).toString();
          const portal = url.startsWith('/developer/portal');
          const fields = portal ? [['_csrf', csrf], ...body] : body;
          const headers: Record<string, string> = url.startsWith('/developer/v1')
            ? { authorization: `Bearer ${apiKey}` }
            : url.startsWith('/developer/auth')
              ? { authorization: `Bearer ${session}` }
              : { cookie };
          const payload =
            route.method === 'GET'
              ? undefined
              : asJson || !portal
                ? JSON.stringify(Object.fromEntries(fields))
                : new URLSearchParams(fields).toString();
          const response = await t.app.inject({
            method: route.method as 'GET',
            url: `${url}${search ? `?${search}` : ''}`,
            remoteAddress: '127.0.0.1',
            headers: {
              ...headers,
              ...(payload === undefined
                ? {}
                : {
                    'content-type':
                      asJson || !portal ? 'application/json' : 'application/x-www-form-urlencoded',
                  }),
            },
            ...(payload === undefined ? {} : { payload }),
          });
          expect(
            response.statusCode,
            `${route.method} ${url}?${search} ${payload ?? ''}`.slice(0, 400),
          ).toBeLessThan(500);
        },
      ),
      { numRuns: 1_000 },
    );
  }, 120_000);
});
