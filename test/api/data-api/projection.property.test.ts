import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';
import { ENGINES } from '../../helpers/stores.ts';

const BASE = '/developer/v1';
const SECRETS = ['ipAddress', 'token', 'guestToken'];
const FIELD_KEYS = ['nama', 'menu', 'alergi', 'umur', 'hadir', 'kota', 'catatan', ...SECRETS];

const scalar = fc.oneof(
  fc.string(),
  fc.constantFrom('', ' ', '\t\n', '   '),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const answer = fc.oneof(scalar, fc.array(scalar, { maxLength: 4 }));
const answers = fc.dictionary(fc.constantFrom(...FIELD_KEYS), answer, {
  maxKeys: FIELD_KEYS.length,
});
// No allow-list may name a never-served key (the CLI refuses one); answers still hold them.
const allowList = fc.subarray(FIELD_KEYS.filter((key) => !SECRETS.includes(key)));
const respondents = fc.array(
  fc.record({
    answers,
    attendanceStatus: fc.constantFrom('YES' as const, 'NO' as const, 'MAYBE' as const),
    minute: fc.integer({ min: 0, max: 5 }),
  }),
  { minLength: 1, maxLength: 8 },
);

/** The served form of an answer, written independently of the service: the test's oracle. */
function expectedValue(value: unknown): string | string[] | undefined {
  const text = (item: unknown) =>
    typeof item === 'string'
      ? item.trim()
        ? item
        : undefined
      : item == null
        ? undefined
        : String(item);
  if (Array.isArray(value)) {
    const items = value.map(text).filter((item): item is string => item !== undefined);
    return items.length ? items : undefined;
  }
  return text(value);
}

describe.each(ENGINES)('allow-list projection properties on %s', (engine) => {
  let t: TestApp;
  let run = 0;

  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  afterAll(() => t.close());

  it('never serves a key outside the allow-list, a null or blank value, or a secret', async () => {
    await fc.assert(
      fc.asyncProperty(allowList, respondents, async (fields, rows) => {
        run += 1;
        const campaignId = `p${run}`;
        await seedCampaign(t.store, t.clock, {
          id: campaignId,
          fields: [{ key: 'menu', type: 'RADIO' }],
          respondents: rows.map((row, index) => ({
            id: `${campaignId}-${index}`,
            submittedAt: new Date(Date.UTC(2026, 10, 1, 0, row.minute)).toISOString(),
            attendanceStatus: row.attendanceStatus,
            answers: row.answers,
            ipAddress: '192.0.2.1',
            token: 'tkn-secret',
            guestToken: 'guest-secret',
          })),
        });
        const { key } = await createTestKey(t.store, t.clock, [{ campaignId, fields }]);
        const response = await t.get(`${BASE}/campaigns/${campaignId}/respondents?limit=200`, key);
        expect(response.status).toBe(200);
        expect(response.body.data).toHaveLength(rows.length);
        for (const secret of [...SECRETS, '192.0.2.1', 'tkn-secret', 'guest-secret']) {
          expect(response.raw).not.toContain(secret);
        }
        for (const row of response.body.data) {
          const source = rows[Number(row.id.split('-')[1])];
          const expected = Object.fromEntries(
            fields
              .filter((field) => !SECRETS.includes(field))
              .map((field) => [field, expectedValue(source?.answers[field])])
              .filter(([, value]) => value !== undefined),
          );
          expect(row.fields).toEqual(expected);
          expect(['YES', 'NO', 'MAYBE']).toContain(row.attendanceStatus);
          for (const [fieldKey, value] of Object.entries(row.fields)) {
            expect(fields).toContain(fieldKey);
            expect(SECRETS).not.toContain(fieldKey);
            if (Array.isArray(value)) {
              expect(value.length).toBeGreaterThan(0);
              for (const item of value)
                expect(typeof item === 'string' && item.trim() !== '').toBe(true);
            } else {
              expect(typeof value === 'string' && value.trim() !== '').toBe(true);
            }
          }
        }
        const summary = await t.get(`${BASE}/campaigns/${campaignId}/summary`, key);
        expect(Object.keys(summary.body.breakdowns)).toEqual(
          fields.includes('menu') ? ['menu'] : [],
        );
        expect(summary.body.totals.responses).toBe(rows.length);
      }),
      { numRuns: 40 },
    );
  });
});
