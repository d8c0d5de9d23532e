import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';
import { ENGINES } from '../../helpers/stores.ts';

// Each store quotes ids itself when it sends a page (see respondentLine); ids that need escapes
// must still come out as JSON.stringify writes them, and cursors must still find their rows. The
// import no longer accepts such ids (see record-ids.ts), but a database filled before that rule
// may hold them, so they are written straight into the table here.
const IDS = ['plain', 'quote"d', 'tab\there', 'back\\slash', 'line\u2028sep', 'unit\u001fsep'];

describe.each(ENGINES)('respondent ids that need escaping on %s', (engine) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp(engine);
    await seedCampaign(t.store, t.clock, { id: 'c', fields: [{ key: 'meal', type: 'RADIO' }] });
    await t.store.db
      .insertInto('respondents')
      .values(
        IDS.map((id, n) => ({
          id,
          campaign_id: 'c',
          submitted_at: Date.parse(`2026-03-01T10:00:0${n}Z`),
          attendance_status: 'YES' as const,
          answers: '{"meal":"fish"}',
        })),
      )
      .execute();
    key = (await createTestKey(t.store, t.clock, [{ campaignId: 'c', fields: ['meal'] }])).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('serves every id byte for byte as JSON.stringify writes it, and pages past it by cursor', async () => {
    const whole = await t.get('/developer/v1/campaigns/c/respondents?limit=10', key);
    expect(whole.raw).toContain(`"id":${JSON.stringify('quote"d')}`);
    expect(whole.body.data.map((row: { id: string }) => row.id)).toEqual(IDS);

    const seen: string[] = [];
    let path: string | undefined = '/developer/v1/campaigns/c/respondents?limit=1';
    while (path) {
      const page = await t.get(path, key);
      expect(page.status).toBe(200);
      for (const row of page.body.data) {
        seen.push(row.id);
        expect(page.raw).toContain(`"id":${JSON.stringify(row.id)}`);
      }
      const cursor = page.body.meta.nextCursor;
      path = cursor ? `/developer/v1/campaigns/c/respondents?limit=1&cursor=${cursor}` : undefined;
    }
    expect(seen).toEqual(IDS);
  });
});
