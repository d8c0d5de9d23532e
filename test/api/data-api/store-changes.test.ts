import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAccountActive } from '../../../src/accounts/accounts.service.ts';
import type { Store } from '../../../src/db/connect.ts';
import { revokeKey } from '../../../src/keys/keys.service.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { ManualClock } from '../../helpers/clock.ts';
import { createTestKey, importRespondents, seedCampaign } from '../../helpers/factories.ts';
import { createTestDatabaseUrl, ENGINES, openTestStore } from '../../helpers/stores.ts';

const PAGE = '/developer/v1/campaigns/c/respondents';

// The key and campaign a request reads are remembered while the store is unchanged (on SQLite,
// by its change stamp). Each write below comes from another connection, as the CLI or another
// instance would make it, or from the serving connection itself; the next request must see it.
describe.each(ENGINES)('a change to the store decides the next request on %s', (engine) => {
  let t: TestApp;
  let other: Store;
  const clock = new ManualClock();
  const scope = [{ campaignId: 'c', fields: ['meal'] }];

  beforeAll(async () => {
    const url = await createTestDatabaseUrl(engine);
    t = await startTestApp(await openTestStore(url), { clock });
    other = await openTestStore(url);
    await seedCampaign(other, clock, {
      id: 'c',
      fields: [{ key: 'meal', type: 'RADIO' }],
      respondents: [{ id: 'r1', submittedAt: '2026-03-01T10:00:00Z', answers: { meal: 'fish' } }],
    });
  });
  afterAll(async () => {
    await t?.close();
    await other?.close();
  });

  async function servedTwice(key: string) {
    for (let i = 0; i < 2; i++) expect((await t.get(PAGE, key)).status).toBe(200);
  }

  it('a key revoked through another connection is refused at once', async () => {
    const issued = await createTestKey(other, clock, scope);
    await servedTwice(issued.key);
    await revokeKey(other, clock, issued.id);
    const refused = await t.get(PAGE, issued.key);
    expect(refused.status).toBe(401);
    expect(refused.body.error.message).toMatch(/revoked/);
  });

  it('a key revoked through the serving connection is refused at once', async () => {
    const issued = await createTestKey(other, clock, scope);
    await servedTwice(issued.key);
    await revokeKey(t.store, clock, issued.id);
    expect((await t.get(PAGE, issued.key)).status).toBe(401);
  });

  it("a deactivated account's key is refused at once", async () => {
    const issued = await createTestKey(other, clock, scope);
    await servedTwice(issued.key);
    await setAccountActive(other, clock, issued.account.email, false);
    const refused = await t.get(PAGE, issued.key);
    expect(refused.status).toBe(401);
    expect(refused.body.error.message).toMatch(/deactivated/);
  });

  it('an edited row is served by the next request', async () => {
    const issued = await createTestKey(other, clock, scope);
    await servedTwice(issued.key);
    expect((await t.get(PAGE, issued.key)).body.data[0].fields).toEqual({ meal: 'fish' });
    await importRespondents(other, clock, 'c', [
      { id: 'r1', submittedAt: '2026-03-02T10:00:00Z', answers: { meal: 'beef' } },
    ]);
    const page = await t.get(PAGE, issued.key);
    expect(page.body.data[0]).toMatchObject({
      id: 'r1',
      submittedAt: '2026-03-02T10:00:00.000Z',
      fields: { meal: 'beef' },
    });
  });

  it('a new response and a new answer count show in the next list and summary', async () => {
    const issued = await createTestKey(other, clock, scope);
    const list = async () => (await t.get('/developer/v1/campaigns', issued.key)).body.data[0];
    const summary = async () => (await t.get('/developer/v1/campaigns/c/summary', issued.key)).body;
    const [listed, summed] = [await list(), await summary()];
    expect(await list()).toEqual(listed);
    expect(await summary()).toEqual(summed);
    await importRespondents(other, clock, 'c', [
      { id: `r-${issued.id}`, submittedAt: '2026-03-03T10:00:00Z', answers: { meal: 'soup' } },
    ]);
    expect((await list()).responseCount).toBe(listed.responseCount + 1);
    const after = await summary();
    expect(after.totals.responses).toBe(summed.totals.responses + 1);
    expect(after.breakdowns.meal.soup).toBe(1);
  });
});
