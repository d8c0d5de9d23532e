import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Problems } from '../../src/import/import-problems.ts';
import { checkCampaign, checkRespondent } from '../../src/import/import-records.ts';
import { type ImportItem, jsonLinesItems } from '../../src/import/import-sources.ts';
import { lineProblem } from '../../src/import/record-schemas.ts';

/** The problems the import's own checks find in one JSON Lines line, as a batch reads it. */
// (The schema's own verdict, which the reading attaches to the line, is left out here.)
async function importProblems(line: unknown): Promise<string[]> {
  const items: ImportItem[] = [];
  async function* chunks() {
    yield Buffer.from(JSON.stringify(line));
  }
  for await (const batch of jsonLinesItems(chunks())) items.push(...batch);
  const problems = new Problems(100);
  const dropped = { ipAddress: 0, token: 0, guestToken: 0 };
  for (const item of items) {
    if (item.kind === 'problem') problems.add(item.where, item.what);
    else if (item.kind === 'campaign') checkCampaign(problems, item.place, item.record);
    else checkRespondent(problems, item.place, item.record, dropped);
  }
  try {
    problems.throwIfAny();
    return [];
  } catch (error) {
    return [...(error as { problems: string[] }).problems];
  }
}

// Values at the edges of what either side accepts: blank, control and comma characters, a NUL,
// an unpaired surrogate, ids just too long, instants in and out of ISO-8601, numbers that are
// not whole or not safe, nesting, and the never-served names.
const text = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\t',
    'Ayu',
    'a,b',
    'a\u0001b',
    'a\u0000b',
    'a\uD800b',
    '\uD83D\uDE00',
    'x'.repeat(129),
    '  \u3000',
  ),
  fc.string({ maxLength: 6 }),
);
const id = fc.oneof(
  fc.constantFrom('r1', 'c-1', 'a.b_c~d', 'x'.repeat(128), 'x'.repeat(129), 'has space', 'ü', ''),
  fc.stringMatching(/^[A-Za-z0-9._~-]{1,8}$/),
);
const instant = fc.constantFrom(
  '2026-11-22T08:00:00Z',
  '2026-11-22T08:00:00.123456+07:00',
  '20261122T080000Z',
  '2026-11-22 08:00Z',
  '2026-02-30T00:00:00Z',
  '2026-11-22T08:00:00',
  '2026-11-22',
  'tomorrow',
);
const scalar = fc.oneof(text, fc.double(), fc.integer(), fc.boolean(), fc.constant(null));
const anyValue = fc.oneof(
  scalar,
  fc.array(scalar, { maxLength: 3 }),
  fc.constant({ nested: { deeper: 1 } }),
  fc.constant([['a']]),
  fc.constant(undefined),
);
const version = fc.oneof(
  fc.integer({ min: -2, max: 10 }),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, 1.5, null, '3'),
);
const fieldKey = fc.oneof(
  text,
  fc.constantFrom('menu', 'jumlah_tamu', 'a,b', 'a\u0007', '  ', 'a'.repeat(128), 'a'.repeat(129)),
);
const field = fc.record(
  {
    key: fieldKey,
    label: fc.constantFrom('Menu', 'a\u0000', ''),
    type: fc.constantFrom('TEXT', 'RADIO', 'CHECKBOX', 'NUMBER', 'text'),
  },
  { requiredKeys: ['key', 'type'] },
);
const answers = fc.oneof(
  fc.dictionary(fc.oneof(fieldKey, fc.constantFrom('ipAddress', 'token', 'guestToken')), anyValue, {
    maxKeys: 3,
  }),
  fc.constantFrom(null, 'menu', [1]),
);

/** Valid records of each kind, to be bent at one or two places (see `line`). */
const valid = fc.oneof(
  fc.record({
    type: fc.constant('campaign'),
    id: fc.stringMatching(/^[a-z0-9-]{1,12}$/),
    slug: fc.constantFrom('nikah', 'fun-run'),
    title: fc.constantFrom('Pernikahan', 'Fun Run'),
    fields: fc.uniqueArray(
      fc.record({
        key: fc.constantFrom('menu', 'jumlah_tamu', 'alergi', 'catatan'),
        label: fc.constantFrom('Menu', 'Jumlah tamu'),
        type: fc.constantFrom('TEXT', 'RADIO', 'CHECKBOX', 'NUMBER'),
      }),
      { maxLength: 3, selector: (candidate) => candidate.key },
    ),
  }),
  fc.record({
    type: fc.constant('respondent'),
    id: fc.stringMatching(/^[a-z0-9-]{1,12}$/),
    campaignId: fc.constantFrom('nikah', 'c.1'),
    submittedAt: fc.constantFrom('2026-11-22T08:00:00Z', '2026-11-22T08:00:00.5+07:00'),
    attendanceStatus: fc.constantFrom('YES', 'NO', 'MAYBE'),
    answers: fc.dictionary(
      fc.constantFrom('menu', 'alergi', 'jumlah'),
      fc.oneof(text, fc.array(text)),
      {
        maxKeys: 3,
      },
    ),
    version: fc.nat(),
  }),
  fc.constantFrom(
    { type: 'respondent', id: 'r1', deleted: true },
    { type: 'campaign', id: 'nikah', deleted: true },
    { type: 'deletion', respondentId: 'r1', version: 2 },
    { type: 'deletion', campaignId: 'nikah' },
  ),
);

/** The properties a bend may set, each with values from the edges. */
const bend = fc.oneof(
  ...Object.entries({
    id,
    campaignId: id,
    respondentId: id,
    slug: text,
    title: text,
    location: fc.oneof(text, fc.constant(null), fc.constant(5)),
    eventDate: fc.oneof(instant, fc.constant(null)),
    submittedAt: instant,
    attendanceStatus: fc.constantFrom('YES', 'yes', 'SOON', null),
    answers,
    // Distinct keys: a key given twice is a rule across the fields, which the import keeps.
    fields: fc.uniqueArray(field, { maxLength: 2, selector: (candidate) => candidate.key }),
    version,
    deleted: fc.constantFrom(true, false, 'yes', undefined),
    ipAddress: fc.oneof(text, fc.constant(null), fc.constant(7)),
    token: fc.oneof(text, fc.constant(null)),
    guestToken: fc.oneof(text, fc.constant(null)),
    unknown: fc.constant('x'),
  }).map(([name, value]) => value.map((bent) => [name, bent] as const)),
);

/** A valid record, bent at none, one or two places. */
const line = fc.tuple(valid, fc.array(bend, { maxLength: 2 })).map(([record, bends]) => {
  const bent: Record<string, unknown> = { ...record };
  for (const [name, value] of bends) {
    if (value === undefined) delete bent[name];
    else bent[name] = value;
  }
  return bent;
});

describe('the published record schema and the import agree', () => {
  it('never lets the import refuse, for its shape, a record the schema accepts', async () => {
    let accepted = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(line, async (record) => {
        // A line the schema refuses is refused whatever the checks say (see ImportRun.checked).
        if (lineProblem(record) !== undefined) {
          refused += 1;
          return;
        }
        accepted += 1;
        expect(await importProblems(record)).toEqual([]);
      }),
      { numRuns: 5_000 },
    );
    // Neither side of the question is empty.
    expect(accepted).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(100);
  });

  it('accepts the records docs/ingesting.md shows', () => {
    for (const record of [
      {
        type: 'campaign',
        id: 'nikah',
        slug: 'nikah',
        title: 'Pernikahan',
        fields: [{ key: 'menu', label: 'Menu', type: 'RADIO' }],
      },
      { type: 'campaign', id: 'nikah', deleted: true },
      {
        type: 'respondent',
        id: 'r1',
        campaignId: 'nikah',
        submittedAt: '2026-11-22T08:00:00+07:00',
        attendanceStatus: 'YES',
        answers: { menu: 'Sate', alergi: ['susu'], jumlah: 2, ipAddress: '10.0.0.1' },
        version: 3,
        token: 'dropped',
      },
      { type: 'respondent', id: 'r1', deleted: true, version: 4 },
      { type: 'deletion', respondentId: 'r1', version: 5 },
      { type: 'deletion', campaignId: 'nikah' },
    ]) {
      expect(lineProblem(record), JSON.stringify(record)).toBeUndefined();
    }
  });

  it('refuses, in the schema, what the import refuses for its characters', () => {
    const base = { type: 'campaign', id: 'c', slug: 's', title: 't' };
    expect(lineProblem({ ...base, fields: [{ key: 'a,b', type: 'TEXT' }] })).toBeDefined();
    expect(lineProblem({ ...base, fields: [{ key: 'a\u0007', type: 'TEXT' }] })).toBeDefined();
    expect(lineProblem({ ...base, title: '   ' })).toBeDefined();
    expect(lineProblem({ ...base, title: 'a\u0000' })).toBeDefined();
    expect(lineProblem({ ...base, title: 'a\uD800' })).toBeDefined();
    expect(lineProblem({ ...base, title: 'ok \uD83D\uDE00' })).toBeUndefined();
  });
});
