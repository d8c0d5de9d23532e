import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaignService } from '../../../src/campaigns/campaigns.service.ts';
import { createRespondentPages } from '../../../src/campaigns/pages/respondent-pages.ts';
import { ResponseCache } from '../../../src/http/response-cache.ts';
import { importDocument } from '../../../src/import/import.service.ts';
import { replaceKeyScope, verifyKey } from '../../../src/keys/keys.service.ts';
import { Speedups } from '../../../src/speedups.ts';
import { startTestApp, TEST_SECRETS, type TestApp } from '../../helpers/app.ts';
import { createTestKey, importRespondents, seedCampaign } from '../../helpers/factories.ts';
import { ENGINES } from '../../helpers/stores.ts';

const BASE = '/developer/v1';
const FIELDS = [
  { key: 'menu', type: 'RADIO' as const },
  { key: 'kota', type: 'SELECT' as const },
  { key: 'alergi', type: 'CHECKBOX' as const },
  { key: 'nama', type: 'TEXT' as const },
];

describe.each(ENGINES)('campaigns and summary on %s', (engine) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(engine);
    await seedCampaign(t.store, t.clock, {
      id: 'gala',
      title: 'Gala Dinner',
      eventDate: '2026-12-31T19:00:00+07:00',
      location: 'Surabaya',
      fields: FIELDS,
      respondents: [
        {
          id: 'g1',
          submittedAt: '2026-11-01T00:00:00Z',
          attendanceStatus: 'YES',
          answers: { menu: 'Ikan', kota: 'Malang', alergi: ['Susu'], nama: 'A' },
        },
        {
          id: 'g2',
          submittedAt: '2026-11-01T00:01:00Z',
          attendanceStatus: 'YES',
          answers: { menu: 'Ikan', kota: ' ' },
        },
        {
          id: 'g3',
          submittedAt: '2026-11-01T00:02:00Z',
          attendanceStatus: 'NO',
          answers: { menu: 'Ayam' },
        },
        { id: 'g4', submittedAt: '2026-11-01T00:03:00Z', attendanceStatus: 'MAYBE', answers: {} },
      ],
    });
    await seedCampaign(t.store, t.clock, { id: 'bare' });
  });
  afterAll(() => t.close());

  it('lists only the campaigns in scope, with exactly the spec fields', async () => {
    const { key } = await createTestKey(t.store, t.clock, [
      { campaignId: 'gala', fields: [] },
      { campaignId: 'bare', fields: [] },
    ]);
    const response = await t.get(`${BASE}/campaigns`, key);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: [
        {
          id: 'bare',
          slug: 'bare',
          title: 'Campaign bare',
          eventDate: null,
          location: null,
          responseCount: 0,
        },
        {
          id: 'gala',
          slug: 'gala',
          title: 'Gala Dinner',
          eventDate: '2026-12-31T12:00:00.000Z',
          location: 'Surabaya',
          responseCount: 4,
        },
      ],
    });
  });

  it('answers a key without campaigns with an empty list, not an error', async () => {
    const { key } = await createTestKey(t.store, t.clock, []);
    expect(await t.get(`${BASE}/campaigns`, key)).toMatchObject({
      status: 200,
      body: { data: [] },
    });
  });

  it('counts totals whatever the allow-list, and breaks down only allow-listed single-choice fields', async () => {
    const { key } = await createTestKey(t.store, t.clock, [
      { campaignId: 'gala', fields: ['menu', 'kota', 'alergi', 'nama'] },
    ]);
    const response = await t.get(`${BASE}/campaigns/gala/summary`, key);
    expect(response.body).toEqual({
      campaign: { id: 'gala', slug: 'gala', title: 'Gala Dinner' },
      totals: { responses: 4, attending: 2, notAttending: 1, maybe: 1 },
      // Blank answers are not counted; CHECKBOX and TEXT fields have no breakdown.
      breakdowns: { menu: { Ayam: 1, Ikan: 2 }, kota: { Malang: 1 } },
    });
  });

  it('answers breakdowns {} when no allow-listed field is single-choice', async () => {
    const { key } = await createTestKey(t.store, t.clock, [
      { campaignId: 'gala', fields: ['nama', 'alergi'] },
    ]);
    const response = await t.get(`${BASE}/campaigns/gala/summary`, key);
    expect(response.body.breakdowns).toEqual({});
    expect(response.body.totals.responses).toBe(4);
  });

  it('answers list requests of a key made at one moment from one read, and later ones afresh', async () => {
    const { key, id } = await createTestKey(t.store, t.clock, [{ campaignId: 'gala', fields: [] }]);
    const verified = await verifyKey(t.store, { bearer: key }, t.clock.now());
    if (verified.kind !== 'valid') throw new Error(`the test key is ${verified.kind}`);
    const pages = createRespondentPages(t.store, {
      cursorKey: TEST_SECRETS.cursorKey,
      speedups: Speedups.ALL_ON,
    });
    const service = createCampaignService(t.store, {
      cache: new ResponseCache(0),
      pages,
      speedups: Speedups.ALL_ON,
    });
    const [first, second] = await Promise.all([
      service.listCampaigns(verified.key),
      service.listCampaigns(verified.key),
    ]);
    // One read, so one serialisation: the very same response.
    expect(second).toBe(first);
    await replaceKeyScope(t.store, t.clock, id, [
      { campaignId: 'gala', fields: [] },
      { campaignId: 'bare', fields: [] },
    ]);
    const later = await service.listCampaigns(verified.key);
    expect(JSON.parse(later.body.toString()).data.map((c: { id: string }) => c.id)).toEqual([
      'bare',
      'gala',
    ]);
  });

  it('follows a scope change on the next request', async () => {
    const { key, id } = await createTestKey(t.store, t.clock, [
      { campaignId: 'gala', fields: ['menu'] },
    ]);
    expect(
      Object.keys((await t.get(`${BASE}/campaigns/gala/summary`, key)).body.breakdowns),
    ).toEqual(['menu']);
    await replaceKeyScope(t.store, t.clock, id, [{ campaignId: 'gala', fields: ['kota'] }]);
    expect(
      Object.keys((await t.get(`${BASE}/campaigns/gala/summary`, key)).body.breakdowns),
    ).toEqual(['kota']);
    const rows = (await t.get(`${BASE}/campaigns/gala/respondents`, key)).body.data;
    expect(rows[0].fields).toEqual({ kota: 'Malang' });
    await replaceKeyScope(t.store, t.clock, id, []);
    expect((await t.get(`${BASE}/campaigns/gala/summary`, key)).status).toBe(403);
  });

  it('keeps totals and breakdowns right through edits, deletions and field type changes', async () => {
    await seedCampaign(t.store, t.clock, {
      id: 'live',
      fields: [{ key: 'menu', type: 'RADIO' }],
      respondents: [
        { id: 'l1', submittedAt: '2026-11-01T00:00:00Z', answers: { menu: 'Ikan' } },
        { id: 'l2', submittedAt: '2026-11-01T00:00:00Z', answers: { menu: 'Ikan' } },
      ],
    });
    const { key } = await createTestKey(t.store, t.clock, [
      { campaignId: 'live', fields: ['menu'] },
    ]);
    const summary = async () => (await t.get(`${BASE}/campaigns/live/summary`, key)).body;

    await importRespondents(t.store, t.clock, 'live', [
      {
        id: 'l1',
        submittedAt: '2026-11-02T00:00:00Z',
        attendanceStatus: 'NO',
        answers: { menu: 'Ayam' },
      },
    ]);
    expect(await summary()).toMatchObject({
      totals: { responses: 2, attending: 1, notAttending: 1, maybe: 0 },
      breakdowns: { menu: { Ayam: 1, Ikan: 1 } },
    });

    await importDocument(t.store, t.clock, { respondents: [{ id: 'l2', deleted: true }] });
    expect(await summary()).toMatchObject({
      totals: { responses: 1, attending: 0, notAttending: 1 },
      breakdowns: { menu: { Ayam: 1 } },
    });
    expect((await t.get(`${BASE}/campaigns/live/respondents`, key)).body.meta.total).toBe(1);

    await seedCampaign(t.store, t.clock, { id: 'live', fields: [{ key: 'menu', type: 'TEXT' }] });
    expect((await summary()).breakdowns).toEqual({});
    await seedCampaign(t.store, t.clock, { id: 'live', fields: [{ key: 'menu', type: 'SELECT' }] });
    expect((await summary()).breakdowns).toEqual({ menu: { Ayam: 1 } });
  });
});
