import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../../src/accounts/accounts.service.ts';
import { API_PATHS } from '../../helpers/api-paths.ts';
import { startTestApp, TEST_SECRETS, type TestApp } from '../../helpers/app.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';
import { sendRaw } from '../../helpers/raw-http.ts';
import { ENGINES } from '../../helpers/stores.ts';

const PASSWORD = 'correct horse battery staple';
const NEVER_SERVED = {
  ipAddress: '198.51.100.77',
  token: 'tok-7c1e93',
  guestToken: 'guest-5d28aa',
};

/** Pieces a hostile path or query is made of: the service's own words, and trouble. */
const piece = fc.oneof(
  fc.constantFrom(
    'developer',
    'v1',
    'auth',
    'campaigns',
    'c',
    'other',
    'summary',
    'respondents',
    'devices',
    'keys',
    'reveal',
    'rotate',
    'login',
    'verify-otp',
    'me',
    'step-up',
    'openapi.json',
    'docs',
    'llms.txt',
    'skill.zip',
    'healthz',
    'readyz',
    '..',
    '.',
    '%00',
    '%2F',
    '%E0%A4%A',
    '%ff',
    '%',
    '~',
    '*',
    "'",
    '"',
    '<script>',
    'Infinity',
    '-1',
    '1e3',
    '0x10',
    '9'.repeat(30),
  ),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.string({ minLength: 100, maxLength: 300 }),
);
const anyPath = fc
  .array(piece, { minLength: 0, maxLength: 6 })
  .chain((parts) =>
    fc
      .constantFrom('/developer/v1/', '/developer/auth/', '/', '/developer/')
      .map(
        (prefix) => prefix + parts.map((part) => encodeURI(part).replaceAll('?', '%3F')).join('/'),
      ),
  );
/** The service's routes, with an id from the store, a missing one, or trouble in its place. */
const routePath = fc
  .tuple(
    fc.constantFrom(
      ...API_PATHS,
      '/developer/v1/openapi.json',
      '/developer/v1/docs',
      '/developer/v1/llms.txt',
      '/healthz',
      '/readyz',
    ),
    fc.oneof(
      fc.constantFrom('c', 'other', 'missing'),
      piece.map((part) => encodeURIComponent(part)),
    ),
  )
  .map(([route, id]) => route.replace('{id}', id));
const path = fc.oneof({ weight: 4, arbitrary: routePath }, { weight: 1, arbitrary: anyPath });
const queryValue = fc.oneof(
  piece.map((part) => encodeURIComponent(part)),
  fc.constantFrom('1', '2', '200', '201', '0', '-1', '2026-11-01T00:00:00Z', 'yesterday', ''),
);
const query = fc
  .array(
    fc.tuple(
      fc.constantFrom('page', 'limit', 'since', 'cursor', 'x', 'page[]', 'limit', '__proto__'),
      queryValue,
    ),
    { maxLength: 4 },
  )
  .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}` : ''));

describe.each(ENGINES)('random requests on %s', (engine) => {
  let t: TestApp;
  let key: string;
  let session: string;
  /** Every text an answer must never hold. */
  let secrets: string[];
  const mail: string[] = [];

  beforeAll(async () => {
    t = await startTestApp(engine, {
      mailer: {
        send: async (message) => {
          mail.push(message.subject);
        },
        close: () => {},
      },
    });
    await seedCampaign(t.store, t.clock, {
      id: 'c',
      fields: [{ key: 'nama', type: 'TEXT' }],
      respondents: [
        {
          id: 'r1',
          submittedAt: '2026-11-01T00:00:00Z',
          answers: { nama: 'Ayu' },
          ...NEVER_SERVED,
        },
      ],
    });
    await seedCampaign(t.store, t.clock, { id: 'other' });
    key = (await createTestKey(t.store, t.clock, [{ campaignId: 'c', fields: ['nama'] }])).key;
    await createAccount(t.store, t.clock, {
      email: 'holder@example.test',
      password: PASSWORD,
      mustChangePassword: false,
    });
    await t.app.inject({
      method: 'POST',
      url: '/developer/auth/login',
      payload: { email: 'holder@example.test', password: PASSWORD },
    });
    const code = /(\d{6})/.exec(mail.at(-1) ?? '')?.[1];
    session = (
      await t.app.inject({
        method: 'POST',
        url: '/developer/auth/verify-otp',
        payload: { email: 'holder@example.test', code },
      })
    ).json().session.token;
    const hashes = await t.store.db.selectFrom('accounts').select('password_hash').execute();
    secrets = [
      key,
      session,
      PASSWORD,
      ...Object.values(NEVER_SERVED),
      ...hashes.flatMap((row) => (row.password_hash ? [row.password_hash] : [])),
      TEST_SECRETS.codeHmacKey.toString('hex'),
      TEST_SECRETS.keySealKey.toString('hex'),
    ];
  });
  afterAll(() => t.close());

  /** Made once the key and session exist (see beforeAll). */
  const headers = () =>
    fc.record(
      {
        authorization: fc.oneof(
          { weight: 3, arbitrary: fc.constant(`Bearer ${key}`) },
          { weight: 3, arbitrary: fc.constant(`Bearer ${session}`) },
          {
            weight: 1,
            arbitrary: fc.constantFrom(
              'Bearer',
              'Bearer hadir_sk_',
              `Bearer hadir_ses_${'0'.repeat(64)}`,
              'Basic x',
            ),
          },
          { weight: 1, arbitrary: fc.string({ maxLength: 80 }).map((text) => `Bearer ${text}`) },
        ),
        'if-none-match': fc.oneof(fc.constant('*'), fc.string({ maxLength: 40 })),
        'content-type': fc.constantFrom(
          'application/json',
          'text/plain',
          'application/x-www-form-urlencoded',
          'application/json; charset=latin1',
        ),
        'x-forwarded-proto': fc.constantFrom('http', 'https'),
        accept: fc.constantFrom('text/html', 'application/json', '*/*'),
      },
      { requiredKeys: ['authorization'] },
    );
  const body = fc.oneof(
    fc.constant(undefined),
    fc.json({ maxDepth: 2 }),
    fc
      .record(
        {
          email: fc.oneof(fc.constant('holder@example.test'), fc.string({ maxLength: 40 })),
          password: fc.oneof(fc.constant(PASSWORD), fc.string({ maxLength: 40 })),
          code: fc.oneof(fc.stringMatching(/^\d{6}$/), fc.string({ maxLength: 8 })),
          rememberDevice: fc.anything({ maxDepth: 1 }),
          deviceToken: fc.string({ maxLength: 80 }),
          overlapHours: fc.anything({ maxDepth: 1 }),
        },
        { requiredKeys: [] },
      )
      .map((record) => JSON.stringify(record)),
    fc.string({ maxLength: 200 }),
  );

  it('answers every request without a 5xx, in the envelope when it fails, and never with a secret', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          'GET',
          'GET',
          'GET',
          'POST',
          'POST',
          'DELETE',
          'PUT',
          'HEAD',
          'OPTIONS',
          'PATCH',
        ),
        path,
        query,
        headers(),
        body,
        async (method, target, search, extra, payload) => {
          const response = await t.app.inject({
            method: method as 'GET',
            url: target + search,
            headers: extra,
            ...(payload !== undefined && method !== 'GET' && method !== 'HEAD' ? { payload } : {}),
          });
          const where = `${method} ${target}${search} -> ${response.statusCode} ${response.body.slice(0, 200)}`;
          expect(response.statusCode, where).toBeLessThan(500);
          expect(response.headers['x-request-id'], where).toBeDefined();
          expect(response.headers['x-content-type-options'], where).toBe('nosniff');
          if (response.statusCode >= 400 && method !== 'HEAD') {
            const parsed = JSON.parse(response.body);
            expect(Object.keys(parsed), where).toEqual(['error']);
            expect(Object.keys(parsed.error).sort(), where).toEqual(['code', 'message']);
          }
          for (const secret of secrets) expect(response.body, where).not.toContain(secret);
          expect(response.body, where).not.toMatch(/\n\s+at /);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('answers random bytes on the wire in the envelope, or not at all', async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (t.app.server.address() as AddressInfo).port;
    const line = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 60 }),
      fc
        .tuple(fc.constantFrom('GET', 'POST', 'G\0T', 'GET GET'), path, query)
        .map(([method, target, search]) => `${method} ${target}${search} HTTP/1.1`),
    );
    const headerLine = fc.oneof(
      fc.constantFrom(
        'Host: x',
        'Transfer-Encoding: chunked',
        'Content-Length: 3',
        'Content-Length: -1',
      ),
      fc.string({ unit: 'binary', maxLength: 40 }),
    );
    await fc.assert(
      fc.asyncProperty(line, fc.array(headerLine, { maxLength: 4 }), async (requestLine, lines) => {
        const bytes = Buffer.from(
          `${requestLine}\r\n${[...lines, 'Connection: close'].join('\r\n')}\r\n\r\n`,
          'latin1',
        );
        const answers = await sendRaw(port, bytes, { quietMs: 150 });
        for (const answer of answers) {
          expect(answer.status).toBeLessThan(500);
          expect(answer.headers['x-request-id']).toBeDefined();
          if (answer.status >= 400 && answer.body !== '') {
            expect(Object.keys(JSON.parse(answer.body))).toEqual(['error']);
          }
          for (const secret of secrets) expect(answer.body).not.toContain(secret);
        }
      }),
      { numRuns: 60 },
    );
  });
});
