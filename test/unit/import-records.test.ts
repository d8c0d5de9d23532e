import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { importDocument } from '../../src/import/import.service.ts';
import { ManualClock } from '../helpers/clock.ts';

const campaign = { id: 'c', slug: 'c', title: 'C', eventDate: null, location: null, fields: [] };
const respondent = {
  id: 'r',
  campaignId: 'c',
  submittedAt: '2026-11-01T00:00:00Z',
  attendanceStatus: 'YES',
};

let store: Store;
const clock = new ManualClock();
beforeAll(async () => {
  store = openStore('sqlite::memory:');
  await migrateToLatest(store);
});
afterAll(() => store.close());

const importing = (document: unknown) => importDocument(store, clock, document);
const storedAnswers = async (id: string) => {
  const row = await store.db
    .selectFrom('respondents')
    .select('answers')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return String(row.answers);
};
const rejection = async (document: unknown): Promise<string> => {
  try {
    await importing(document);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the import was not rejected');
};

describe("the import's record checks", () => {
  it('stores answers as served: blanks dropped, numbers and booleans as strings', async () => {
    await importing({
      campaigns: [campaign],
      respondents: [
        {
          ...respondent,
          id: 'normalized',
          answers: {
            a: 'x',
            b: '  ',
            c: null,
            d: 3,
            e: false,
            f: ['', 'y', 2, null],
            g: [],
            h: [' '],
          },
        },
      ],
    });
    expect(JSON.parse(await storedAnswers('normalized'))).toEqual({
      a: 'x',
      d: '3',
      e: 'false',
      f: ['y', '2'],
    });
  });

  it('keeps a key named __proto__ as plain data', async () => {
    const raw = JSON.parse(
      '{"campaigns":[{"id":"c","slug":"c","title":"C"}],"respondents":[{"id":"proto","campaignId":"c","submittedAt":"2026-11-01T00:00:00Z","attendanceStatus":"YES","answers":{"__proto__":"x"}}]}',
    );
    await importing(raw);
    expect(await storedAnswers('proto')).toBe('{"__proto__":"x"}');
  });

  it('accepts ids of 1 to 128 URL-safe characters', async () => {
    const id = `A-z_0.9~${'x'.repeat(120)}`;
    const counts = await importing({
      campaigns: [{ ...campaign, id }],
      respondents: [{ ...respondent, id, campaignId: id }],
    });
    expect(counts.respondents.upserted).toBe(1);
    expect(await storedAnswers(id)).toBe('{}');
  });

  it('reads { id, deleted: true } as a deletion without other fields', async () => {
    await importing({
      campaigns: [{ ...campaign, id: 'gone' }],
      respondents: [{ ...respondent, id: 'leaving', campaignId: 'gone' }],
    });
    const counts = await importing({
      campaigns: [{ id: 'gone', deleted: true }],
      respondents: [{ id: 'leaving', deleted: true }],
    });
    expect(counts).toMatchObject({
      campaigns: { upserted: 0, deleted: 1 },
      respondents: { upserted: 0, deleted: 1 },
    });
  });

  it('drops ipAddress, token and guestToken, as properties or answers, and counts them', async () => {
    const counts = await importing({
      campaigns: [campaign],
      respondents: [
        {
          ...respondent,
          id: 'secretive',
          ipAddress: '198.51.100.7',
          token: 'tok-secret',
          guestToken: null,
          answers: { menu: 'Sate', guestToken: 'guest-secret', token: '' },
        },
        { ...respondent, id: 'secretive2', ipAddress: '198.51.100.8' },
      ],
    });
    expect(counts.dropped).toEqual({ ipAddress: 2, token: 2, guestToken: 1 });
    const rows = await store.db.selectFrom('respondents').selectAll().execute();
    expect(JSON.stringify(rows)).not.toMatch(/198\.51|tok-secret|guest-secret/);
    expect(JSON.parse(await storedAnswers('secretive'))).toEqual({ menu: 'Sate' });
  });

  it.each([
    [{ campaigns: {} }, 'campaigns: must be an array'],
    [
      { campaigns: [{ ...campaign, id: '' }] },
      'campaigns[0]: \'id\' must be 1 to 128 characters from A-Z, a-z, 0-9 and . _ ~ -, got ""',
    ],
    [
      { campaigns: [{ ...campaign, id: 'a/b' }] },
      `campaigns[0]: 'id' must be 1 to 128 characters from A-Z, a-z, 0-9 and . _ ~ -, got "a/b"`,
    ],
    [
      { respondents: [{ ...respondent, id: 'r'.repeat(129) }] },
      `respondents[0]: 'id' must be 1 to 128 characters`,
    ],
    [
      { respondents: [{ ...respondent, id: 'caf\u00e9' }] },
      `respondents[0]: 'id' must be 1 to 128 characters from A-Z, a-z, 0-9 and . _ ~ -, got "café"`,
    ],
    [
      { respondents: [{ ...respondent, campaignId: 'c?x=1' }] },
      `respondents[0] (id r): 'campaignId' must be 1 to 128 characters`,
    ],
    [
      { campaigns: [{ ...campaign, eventDate: '12/12/2026' }] },
      "campaigns[0] (id c): 'eventDate' must be an ISO-8601 date-time",
    ],
    [
      { campaigns: [{ ...campaign, fields: [{ key: 'k', label: 'K', type: 'SLIDER' }] }] },
      "campaigns[0] (id c) fields[0]: 'type' must be one of TEXT",
    ],
    [
      {
        campaigns: [
          {
            ...campaign,
            fields: [
              { key: 'k', type: 'TEXT' },
              { key: 'k', type: 'RADIO' },
            ],
          },
        ],
      },
      "field key 'k' appears twice",
    ],
    [
      { campaigns: [campaign, campaign] },
      'campaigns[1] (id c): id also used by campaigns[0] (id c)',
    ],
    [
      { campaigns: [{ ...campaign, colour: 'red' }] },
      "campaigns[0] (id c): unknown property 'colour'",
    ],
    [
      { respondents: [{ ...respondent, answers: [] }] },
      "respondents[0] (id r): 'answers' must be an object",
    ],
    [
      { respondents: [{ ...respondent, answers: { q: [['nested']] } }] },
      "respondents[0] (id r): answer 'q' must be a string",
    ],
    [
      { respondents: [{ ...respondent, ipAddress: 7 }] },
      "respondents[0] (id r): 'ipAddress' must be a string or null",
    ],
    [
      { respondents: [{ ...respondent, deleted: 'yes' }] },
      "respondents[0] (id r): 'deleted' must be true or false",
    ],
    [[], 'document: must be a JSON object'],
    [
      { campaigns: [{ ...campaign, title: 'Gala\u0000' }] },
      "campaigns[0] (id c): 'title' holds a NUL character (U+0000), which cannot be stored",
    ],
    [
      { campaigns: [{ ...campaign, location: 'Bogor \ud800' }] },
      "campaigns[0] (id c): 'location' is not valid Unicode (it holds an unpaired surrogate)",
    ],
    [
      { campaigns: [{ ...campaign, fields: [{ key: 'a,b', label: 'A', type: 'TEXT' }] }] },
      "campaigns[0] (id c) fields[0]: 'key' must be 1 to 128 characters without commas",
    ],
    [
      { campaigns: [{ ...campaign, fields: [{ key: 'k', label: '\udc00', type: 'TEXT' }] }] },
      "campaigns[0] (id c) fields[0]: 'label' is not valid Unicode",
    ],
    [
      { respondents: [{ ...respondent, answers: { nama: 'Ayu\u0000' } }] },
      "respondents[0] (id r): answer 'nama' holds a NUL character",
    ],
    [
      { respondents: [{ ...respondent, answers: { alergi: ['ok', '\ud83d'] } }] },
      "respondents[0] (id r): answer 'alergi' is not valid Unicode",
    ],
    [
      { respondents: [{ ...respondent, answers: { 'na\u0000ma': 'Ayu' } }] },
      'respondents[0] (id r): answer key "na\\u0000ma" holds a NUL character',
    ],
  ])('rejects %j naming the record, writing nothing', async (document, message) => {
    const before = await store.db.selectFrom('respondents').select('id').execute();
    expect(await rejection(document)).toContain(message);
    expect(await store.db.selectFrom('respondents').select('id').execute()).toEqual(before);
  });

  it('reports every bad record, up to twenty, in one message', async () => {
    const respondents = Array.from({ length: 25 }, (_, i) => ({
      ...respondent,
      id: `r${i}`,
      attendanceStatus: 'LATE',
    }));
    const message = await rejection({ campaigns: [campaign], respondents });
    expect(message).toContain('respondents[0] (id r0)');
    expect(message).toContain('respondents[19] (id r19)');
    expect(message).not.toContain('respondents[20] (id r20)');
    expect(message).toContain('… and 5 more');
  });

  it('names a respondent id used twice, in one batch or across batches', async () => {
    const rows = Array.from({ length: 1_200 }, (_, i) => ({ ...respondent, id: `many-${i}` }));
    const message = await rejection({
      campaigns: [campaign],
      respondents: [...rows, { ...respondent, id: 'many-3' }, { id: 'many-1100', deleted: true }],
    });
    expect(message).toContain(
      'respondents[1200] (id many-3): id also used by respondents[3] (id many-3)',
    );
    expect(message).toContain(
      'respondents[1201] (id many-1100): id also used by respondents[1100] (id many-1100)',
    );
  });
});
