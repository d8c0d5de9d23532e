import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAccountActive } from '../../../src/accounts/accounts.service.ts';
import { importDocument } from '../../../src/import/import.service.ts';
import { revokeKey, rotateKey } from '../../../src/keys/keys.service.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';
import { ENGINES } from '../../helpers/stores.ts';

const BASE = '/developer/v1';
const HOUR = 3_600_000;
const ROUTES = [
  `${BASE}/campaigns`,
  `${BASE}/campaigns/open/summary`,
  `${BASE}/campaigns/open/respondents`,
  `${BASE}/campaigns/open/removals`,
  `${BASE}/campaigns/open/changes`,
  `${BASE}/campaigns/open/fields`,
];
const CAMPAIGN_ROUTES = ['summary', 'respondents', 'removals', 'changes', 'fields'];

function expectError(
  response: { status: number; headers: Record<string, unknown>; body: any },
  status: number,
  code: string,
) {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(Object.keys(response.body)).toEqual(['error']);
  expect(Object.keys(response.body.error).sort()).toEqual(['code', 'message']);
  expect(response.body.error.code).toBe(code);
  expect(response.body.error.message.length).toBeGreaterThan(0);
}

describe.each(ENGINES)('security on %s', (engine) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(engine);
    for (const id of ['open', 'closed']) {
      await seedCampaign(t.store, t.clock, {
        id,
        respondents: [{ id: `${id}-1`, submittedAt: '2026-11-01T00:00:00Z' }],
      });
    }
  });
  afterAll(() => t.close());

  const freshKey = (expiresAt?: number) =>
    createTestKey(
      t.store,
      t.clock,
      [{ campaignId: 'open', fields: [] }],
      expiresAt ? { expiresAt } : {},
    );

  it('issues keys as hadir_sk_ plus 64 lowercase hex characters and stores only a hash', async () => {
    const { key, id } = await freshKey();
    expect(key).toMatch(/^hadir_sk_[0-9a-f]{64}$/);
    const row = await t.store.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(key.slice(9));
    expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  describe.each(ROUTES)('%s', (route) => {
    it('answers 200 with a valid key', async () => {
      const { key } = await freshKey();
      expect((await t.get(route, key)).status).toBe(200);
    });

    it.each([
      ['missing', undefined],
      ['malformed: wrong prefix', `sk_${'a'.repeat(64)}`],
      ['malformed: uppercase hex', `hadir_sk_${'A'.repeat(64)}`],
      ['malformed: too short', `hadir_sk_${'a'.repeat(63)}`],
      ['unknown', `hadir_sk_${'0'.repeat(64)}`],
    ])('rejects a %s key with 401', async (_name, key) => {
      expectError(await t.get(route, key), 401, 'unauthorized');
    });

    it('rejects a non-bearer authorization scheme with 401', async () => {
      const { key } = await freshKey();
      expectError(
        await t.get(route, undefined, { authorization: `Basic ${key}` }),
        401,
        'unauthorized',
      );
    });

    it('rejects a revoked key on the very next request', async () => {
      const { key, id } = await freshKey();
      expect((await t.get(route, key)).status).toBe(200);
      await revokeKey(t.store, t.clock, id);
      expectError(await t.get(route, key), 401, 'unauthorized');
    });

    it('rejects a key from the instant it expires', async () => {
      const { key } = await freshKey(t.clock.now() + HOUR);
      t.clock.advance(HOUR - 1);
      expect((await t.get(route, key)).status).toBe(200);
      t.clock.advance(1);
      expectError(await t.get(route, key), 401, 'unauthorized');
    });

    it('rejects the keys of a deactivated account until it is reactivated', async () => {
      const { key, account } = await freshKey();
      await setAccountActive(t.store, t.clock, account.email, false);
      expectError(await t.get(route, key), 401, 'unauthorized');
      await setAccountActive(t.store, t.clock, account.email, true);
      expect((await t.get(route, key)).status).toBe(200);
    });

    it('carries its own X-Request-Id; data may be kept only privately and revalidated, errors not at all', async () => {
      const { key } = await freshKey();
      const ok = await t.get(route, key);
      const denied = await t.get(route);
      expect(ok.headers['cache-control']).toBe('private, no-cache');
      expect(denied.headers['cache-control']).toBe('no-store');
      for (const response of [ok, denied]) {
        expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      }
      expect(ok.headers['x-request-id']).not.toBe(denied.headers['x-request-id']);
    });

    it.each(['POST', 'PUT', 'PATCH', 'DELETE'] as const)(
      'answers %s with 404 and changes nothing',
      async (method) => {
        const { key } = await freshKey();
        const before = await t.get(`${BASE}/campaigns/open/respondents`, key);
        const response = await t.app.inject({
          method,
          url: route,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          payload: '{}',
        });
        expect(response.statusCode).toBe(404);
        expect(JSON.parse(response.body).error.code).toBe('not_found');
        expect((await t.get(`${BASE}/campaigns/open/respondents`, key)).body).toEqual(before.body);
      },
    );
  });

  describe.each(CAMPAIGN_ROUTES)('campaign scope on %s', (endpoint) => {
    it('answers 403 for an existing campaign outside the scope', async () => {
      const { key } = await freshKey();
      expectError(await t.get(`${BASE}/campaigns/closed/${endpoint}`, key), 403, 'forbidden');
    });

    it('answers 404 for a campaign that does not exist', async () => {
      const { key } = await freshKey();
      expectError(await t.get(`${BASE}/campaigns/nope/${endpoint}`, key), 404, 'not_found');
    });

    it('answers 404 for a deleted campaign, even one in scope', async () => {
      const gone = `gone-${endpoint}`;
      await seedCampaign(t.store, t.clock, { id: gone });
      const { key } = await createTestKey(t.store, t.clock, [
        { campaignId: 'open', fields: [] },
        { campaignId: gone, fields: [] },
      ]);
      expect((await t.get(`${BASE}/campaigns/${gone}/${endpoint}`, key)).status).toBe(200);
      await importDocument(t.store, t.clock, { campaigns: [{ id: gone, deleted: true }] });
      expectError(await t.get(`${BASE}/campaigns/${gone}/${endpoint}`, key), 404, 'not_found');
      const listed = await t.get(`${BASE}/campaigns`, key);
      expect(listed.body.data.map((campaign: { id: string }) => campaign.id)).toEqual(['open']);
    });
  });

  it('answers an unknown route with the 404 envelope, without a key', async () => {
    const unknown = await t.get(`${BASE}/events`);
    expectError(unknown, 404, 'not_found');
    expect(unknown.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(unknown.headers['cache-control']).toBe('no-store');
    expectError(await t.get('/nothing/here'), 404, 'not_found');
  });

  describe('rotation', () => {
    it('gives the new key the same scope and keeps the old one valid through the overlap', async () => {
      const { key: oldKey, id } = await createTestKey(t.store, t.clock, [
        { campaignId: 'open', fields: ['x'] },
      ]);
      const rotated = await rotateKey(t.store, t.clock, id, 2 * HOUR);
      expect(rotated.key).toMatch(/^hadir_sk_[0-9a-f]{64}$/);
      expect(rotated.previousKeyValidUntil).toBe(new Date(t.clock.now() + 2 * HOUR).toISOString());
      expect((await t.get(`${BASE}/campaigns/open/respondents`, rotated.key)).status).toBe(200);
      expect((await t.get(`${BASE}/campaigns/closed/summary`, rotated.key)).status).toBe(403);
      t.clock.advance(2 * HOUR - 1);
      expect((await t.get(`${BASE}/campaigns`, oldKey)).status).toBe(200);
      t.clock.advance(1);
      expectError(await t.get(`${BASE}/campaigns`, oldKey), 401, 'unauthorized');
      expect((await t.get(`${BASE}/campaigns`, rotated.key)).status).toBe(200);
    });

    it('ends the old key at once with an overlap of 0', async () => {
      const { key: oldKey, id } = await freshKey();
      const rotated = await rotateKey(t.store, t.clock, id, 0);
      expectError(await t.get(`${BASE}/campaigns`, oldKey), 401, 'unauthorized');
      expect((await t.get(`${BASE}/campaigns`, rotated.key)).status).toBe(200);
    });

    it('never extends the old key past its own expiry', async () => {
      const { id } = await freshKey(t.clock.now() + HOUR);
      const rotated = await rotateKey(t.store, t.clock, id, 24 * HOUR);
      expect(rotated.previousKeyValidUntil).toBe(new Date(t.clock.now() + HOUR).toISOString());
    });

    it('refuses an overlap above 7 days and a second rotation of the same key', async () => {
      const { id } = await freshKey();
      await expect(rotateKey(t.store, t.clock, id, 7 * 24 * HOUR + 1)).rejects.toThrow(
        /0 to 7 days/,
      );
      await rotateKey(t.store, t.clock, id, HOUR);
      await expect(rotateKey(t.store, t.clock, id, HOUR)).rejects.toThrow(/already rotated/);
    });
  });
});
