import { describe, expect, it } from 'vitest';
import { parseImportDocument } from '../../src/import/import-document.ts';

const campaign = { id: 'c', slug: 'c', title: 'C', eventDate: null, location: null, fields: [] };
const respondent = {
  id: 'r',
  campaignId: 'c',
  submittedAt: '2026-11-01T00:00:00Z',
  attendanceStatus: 'YES',
};

describe('parseImportDocument', () => {
  it('stores answers as served: blanks dropped, numbers and booleans as strings', () => {
    const document = parseImportDocument({
      campaigns: [campaign],
      respondents: [
        {
          ...respondent,
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
    const [entry] = document.respondents;
    expect(entry?.kind === 'upsert' && JSON.parse(entry.answers)).toEqual({
      a: 'x',
      d: '3',
      e: 'false',
      f: ['y', '2'],
    });
  });

  it('keeps a key named __proto__ as plain data', () => {
    const raw = JSON.parse(
      '{"campaigns":[],"respondents":[{"id":"r","campaignId":"c","submittedAt":"2026-11-01T00:00:00Z","attendanceStatus":"YES","answers":{"__proto__":"x"}}]}',
    );
    const [entry] = parseImportDocument(raw).respondents;
    expect(entry?.kind === 'upsert' && entry.answers).toBe('{"__proto__":"x"}');
  });

  it('accepts ids of 1 to 128 URL-safe characters', () => {
    const id = `A-z_0.9~${'x'.repeat(120)}`;
    const document = parseImportDocument({
      campaigns: [{ ...campaign, id }],
      respondents: [{ ...respondent, id, campaignId: id }],
    });
    expect(document.campaigns[0]?.id).toBe(id);
    expect(document.respondents[0]?.id).toBe(id);
  });

  it('reads { id, deleted: true } as a deletion without other fields', () => {
    const document = parseImportDocument({
      campaigns: [{ id: 'c', deleted: true }],
      respondents: [{ id: 'r', deleted: true }],
    });
    expect(document).toEqual({
      campaigns: [{ kind: 'delete', id: 'c' }],
      respondents: [{ kind: 'delete', id: 'r' }],
      dropped: { ipAddress: 0, token: 0, guestToken: 0 },
    });
  });

  it('drops ipAddress, token and guestToken, as properties or answers, and counts them', () => {
    const document = parseImportDocument({
      respondents: [
        {
          ...respondent,
          ipAddress: '198.51.100.7',
          token: 'tok-secret',
          guestToken: null,
          answers: { menu: 'Sate', guestToken: 'guest-secret', token: '' },
        },
        { ...respondent, id: 'r2', ipAddress: '198.51.100.8' },
      ],
    });
    expect(document.dropped).toEqual({ ipAddress: 2, token: 2, guestToken: 1 });
    expect(JSON.stringify(document)).not.toMatch(/198\.51|tok-secret|guest-secret/);
    const [entry] = document.respondents;
    expect(entry?.kind === 'upsert' && JSON.parse(entry.answers)).toEqual({ menu: 'Sate' });
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
    [{ campaigns: [campaign, campaign] }, 'campaigns[1] (id c): id also used by campaigns[0]'],
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
  ])('rejects %j naming the record', (document, message) => {
    expect(() => parseImportDocument(document)).toThrow(message);
  });

  it('reports every bad record, up to twenty, in one message', () => {
    const respondents = Array.from({ length: 25 }, (_, i) => ({
      ...respondent,
      id: `r${i}`,
      attendanceStatus: 'LATE',
    }));
    let message = '';
    try {
      parseImportDocument({ respondents });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('respondents[0] (id r0)');
    expect(message).toContain('respondents[19] (id r19)');
    expect(message).not.toContain('respondents[20] (id r20)');
    expect(message).toContain('… and 5 more');
  });
});
