import { describe, expect, it } from 'vitest';
import { importDocument } from '../../../src/import/import.service.ts';
import { startTestApp } from '../../helpers/app.ts';
import { createTestKey } from '../../helpers/factories.ts';
import { ENGINES } from '../../helpers/stores.ts';

const campaign = {
  id: 'c',
  slug: 'c',
  title: 'Reuni 🎉 angkatan',
  fields: [{ key: 'nama', label: 'Nama', type: 'TEXT' }],
};
const respondent = {
  campaignId: 'c',
  submittedAt: '2026-11-01T00:00:00Z',
  attendanceStatus: 'YES',
};

describe.each(ENGINES)('text the import accepts, on %s', (engine) => {
  it('refuses a NUL or an unpaired surrogate as the other engine does, and writes nothing', async () => {
    const t = await startTestApp(engine);
    try {
      const attempt = async (nama: string) =>
        importDocument(t.store, t.clock, {
          campaigns: [campaign],
          respondents: [{ ...respondent, id: 'r1', answers: { nama } }],
        });
      await expect(attempt('Ayu\u0000')).rejects.toThrow(
        "respondents[0] (id r1): answer 'nama' holds a NUL character (U+0000)",
      );
      await expect(attempt('Ayu \ud800')).rejects.toThrow(
        "respondents[0] (id r1): answer 'nama' is not valid Unicode",
      );
      const campaigns = await t.store.db.selectFrom('campaigns').select('id').execute();
      expect(campaigns).toEqual([]);

      // Text outside the Basic Multilingual Plane is fine, and comes back as it went in.
      await attempt('Ayu 👩🏽‍💻 Lestari');
      const { key } = await createTestKey(t.store, t.clock, [
        { campaignId: 'c', fields: ['nama'] },
      ]);
      const page = await t.get('/developer/v1/campaigns/c/respondents', key);
      expect(page.body.data[0].fields).toEqual({ nama: 'Ayu 👩🏽‍💻 Lestari' });
      expect((await t.get('/developer/v1/campaigns', key)).body.data[0].title).toBe(campaign.title);
    } finally {
      await t.close();
    }
  });
});
