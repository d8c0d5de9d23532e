import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scrubNote } from '../../src/cli/scrub-note.ts';
import type { Clock } from '../../src/clock.ts';
import { openStore } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { runHadirInProcess } from '../helpers/cli.ts';
import { createTestDatabaseUrl, ENGINES } from '../helpers/stores.ts';

const campaign = (id: string) => ({
  id,
  slug: id,
  title: `Acara ${id}`,
  fields: [{ key: 'menu', label: 'Menu', type: 'RADIO' }],
});
const respondent = (id: string, campaignId: string, menu = 'Sate') => ({
  id,
  campaignId,
  submittedAt: '2026-11-01T00:00:00Z',
  attendanceStatus: 'YES',
  answers: { menu },
});

function writeFile(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'hadir-import-')), name);
  writeFileSync(path, text);
  return path;
}
const jsonLines = (records: unknown[]) => `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;

/** A clock that moves five seconds each time it is read: a long import without the wait. */
function tickingClock(): Clock {
  let ms = Date.parse('2026-11-23T08:00:00Z');
  return { now: () => (ms += 5_000) };
}

async function storedRows(databaseUrl: string) {
  const store = openStore(databaseUrl);
  try {
    await migrateToLatest(store);
    const respondents = await store.db
      .selectFrom('respondents')
      .select(['id', 'campaign_id'])
      .orderBy('id')
      .execute();
    const campaigns = await store.db
      .selectFrom('campaigns')
      .select(['id', 'response_count', 'deleted_at'])
      .orderBy('id')
      .execute();
    const counts = await store.db
      .selectFrom('answer_counts')
      .select(['campaign_id', 'value', 'count'])
      .where('count', '>', 0)
      .orderBy(['campaign_id', 'value'])
      .execute();
    return {
      respondents: respondents.map((row) => `${row.campaign_id}/${row.id}`),
      campaigns: campaigns.map(
        (row) =>
          `${row.id}:${Number(row.response_count)}${row.deleted_at === null ? '' : ' deleted'}`,
      ),
      answerCounts: counts.map((row) => `${row.campaign_id} ${row.value}=${Number(row.count)}`),
    };
  } finally {
    await store.close();
  }
}

describe.each(ENGINES)('hadir import on %s', (engine) => {
  it('takes JSON Lines: campaigns, respondents and deletions, one per line', async () => {
    const databaseUrl = await createTestDatabaseUrl(engine);
    const first = writeFile(
      'export.jsonl',
      jsonLines([
        { type: 'campaign', ...campaign('a') },
        { type: 'respondent', ...respondent('a1', 'a') },
        { type: 'respondent', ...respondent('a2', 'a', 'Soto') },
        { type: 'campaign', ...campaign('b') },
        { type: 'respondent', ...respondent('b1', 'b') },
      ]),
    );
    const imported = await runHadirInProcess(['import', first, '--json'], { databaseUrl });
    expect(imported.stderr).toBe('');
    expect(JSON.parse(imported.stdout)).toMatchObject({
      campaigns: { upserted: 2, deleted: 0 },
      respondents: { upserted: 3, deleted: 0 },
    });

    // Standard input is read as JSON Lines when its first line is a record with a type.
    const second = await runHadirInProcess(['import', '-'], {
      databaseUrl,
      input: `${jsonLines([
        { type: 'deletion', respondentId: 'a2' },
        { type: 'deletion', campaignId: 'b' },
        { type: 'respondent', ...respondent('a3', 'a') },
      ])}\n\n`,
    });
    expect(second.stderr).toBe('');
    // A deleted campaign's respondents go with it (each with its tombstone): a2 and b1.
    expect(second.stdout).toBe(
      `imported 0 campaigns (1 deleted) and 1 respondent (2 deleted)${scrubNote(engine === 'postgres' ? 'until_compaction' : 'gone')}\n`,
    );
    expect(await storedRows(databaseUrl)).toEqual({
      respondents: ['a/a1', 'a/a3'],
      campaigns: ['a:2', 'b:0 deleted'],
      answerCounts: ['a Sate=2'],
    });
  });

  it('keeps totals exact when a large import changes, moves and deletes stored rows', async () => {
    const databaseUrl = await createTestDatabaseUrl(engine);
    const menus = ['Sate', 'Soto', 'Rawon'];
    const ids = Array.from({ length: 1_300 }, (_, i) => `r-${String(i).padStart(4, '0')}`);
    const first = ids.map((id, i) => respondent(id, i % 2 === 0 ? 'a' : 'b', menus[i % 3]));
    const before = writeFile(
      'before.json',
      JSON.stringify({ campaigns: [campaign('a'), campaign('b')], respondents: first }),
    );
    expect((await runHadirInProcess(['import', before], { databaseUrl })).stderr).toBe('');

    // Every third row gets another menu, every fifth moves to the other campaign, every seventh
    // is deleted; the rest are written again as they were. Over several batches of the import.
    const deleted = new Set(ids.filter((_, i) => i % 7 === 0));
    const second = ids
      .map((id, i) => {
        const moved = i % 5 === 0;
        const campaignId = (i % 2 === 0) !== moved ? 'a' : 'b';
        return respondent(id, campaignId, menus[(i + (i % 3 === 0 ? 1 : 0)) % 3]);
      })
      .filter((row) => !deleted.has(row.id));
    const after = writeFile(
      'after.jsonl',
      jsonLines([
        ...second.map((row) => ({ type: 'respondent', ...row })),
        ...[...deleted].map((respondentId) => ({ type: 'deletion', respondentId })),
      ]),
    );
    expect((await runHadirInProcess(['import', after], { databaseUrl })).stderr).toBe('');

    const expected = { respondents: [] as string[], counts: new Map<string, number>() };
    for (const row of second) {
      expected.respondents.push(`${row.campaignId}/${row.id}`);
      const key = `${row.campaignId} ${row.answers.menu}`;
      expected.counts.set(key, (expected.counts.get(key) ?? 0) + 1);
    }
    const perCampaign = (id: string) => second.filter((row) => row.campaignId === id).length;
    expect(await storedRows(databaseUrl)).toEqual({
      // Rows come back by id, the order they were written in.
      respondents: expected.respondents,
      campaigns: [`a:${perCampaign('a')}`, `b:${perCampaign('b')}`],
      answerCounts: [...expected.counts]
        .sort(([x], [y]) => x.localeCompare(y))
        .map(([key, n]) => `${key}=${n}`),
    });
  });

  it('writes respondents whose campaign comes later in the file, with right totals', async () => {
    const databaseUrl = await createTestDatabaseUrl(engine);
    const respondents = Array.from({ length: 1_100 }, (_, i) =>
      respondent(`late-${String(i).padStart(4, '0')}`, i % 2 === 0 ? 'later' : 'latest'),
    );
    // Respondents before campaigns, in a document and in JSON Lines.
    const document = writeFile(
      'late.json',
      JSON.stringify({ respondents: respondents.slice(0, 600), campaigns: [campaign('later')] }),
    );
    const lines = writeFile(
      'late.jsonl',
      jsonLines([
        ...respondents.slice(600).map((r) => ({ type: 'respondent', ...r })),
        { type: 'campaign', ...campaign('latest') },
      ]),
    );
    expect((await runHadirInProcess(['import', document], { databaseUrl })).stderr).toContain(
      'campaign latest does not exist',
    );
    const later = await runHadirInProcess(['import', lines], { databaseUrl });
    expect(later.stderr).toContain('campaign later does not exist');
    expect((await storedRows(databaseUrl)).respondents).toEqual([]);

    const whole = writeFile(
      'whole.json',
      JSON.stringify({
        respondents,
        campaigns: [campaign('later'), campaign('latest')],
      }),
    );
    const imported = await runHadirInProcess(['import', whole], { databaseUrl });
    expect(imported.stderr).toBe('');
    expect(imported.stdout).toBe(
      'imported 2 campaigns (0 deleted) and 1,100 respondents (0 deleted)\n',
    );
    expect((await storedRows(databaseUrl)).campaigns).toEqual(['later:550', 'latest:550']);
  });

  it('names every bad line in one pass and writes nothing', async () => {
    const databaseUrl = await createTestDatabaseUrl(engine);
    await runHadirInProcess(['import', '-'], {
      databaseUrl,
      input: jsonLines([
        { type: 'campaign', ...campaign('a') },
        { type: 'respondent', ...respondent('kept', 'a') },
      ]),
    });
    const before = await storedRows(databaseUrl);
    const file = writeFile(
      'bad.jsonl',
      [
        JSON.stringify({ type: 'respondent', ...respondent('ok1', 'a') }),
        '{"type": "respondent", "id": ',
        JSON.stringify({ type: 'guest', id: 'x' }),
        JSON.stringify({ type: 'respondent', ...respondent('r4', 'nowhere') }),
        JSON.stringify({ type: 'respondent', ...respondent('ok1', 'a') }),
        JSON.stringify({ type: 'deletion', campaignId: 'a', respondentId: 'kept' }),
        JSON.stringify({ type: 'respondent', ...respondent('r7', 'a'), attendanceStatus: 'LATE' }),
        JSON.stringify({ type: 'deletion', respondentId: 'kept' }),
        '[1, 2]',
      ].join('\n'),
    );
    const result = await runHadirInProcess(['import', file], { databaseUrl });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.split('\n').map((line) => line.trim());
    expect(lines).toEqual(
      expect.arrayContaining([
        'hadir import: import rejected, nothing was written:',
        expect.stringMatching(/^line 2: not valid JSON: /),
        'line 3: \'type\' must be campaign, respondent or deletion, got "guest"',
        'line 5 (id ok1): id also used by line 1 (id ok1)',
        'line 6: a deletion names exactly one of campaignId or respondentId (and a version), and nothing else',
        'line 7 (id r7): \'attendanceStatus\' must be one of YES, NO, MAYBE, got "LATE"',
        'line 9: must be a JSON object with a "type"',
        'line 4 (id r4): campaign nowhere does not exist',
      ]),
    );
    expect(await storedRows(databaseUrl)).toEqual(before);
  });

  it('counts every bad record and shows the first twenty', async () => {
    const databaseUrl = await createTestDatabaseUrl(engine);
    const records = Array.from({ length: 30 }, (_, i) => ({
      type: 'respondent',
      ...respondent(`r${i}`, 'nowhere'),
    }));
    const result = await runHadirInProcess(
      ['import', writeFile('many.jsonl', jsonLines(records))],
      {
        databaseUrl,
      },
    );
    expect(result.stderr).toContain('line 20 (id r19): campaign nowhere does not exist');
    expect(result.stderr).not.toContain('(id r20)');
    expect(result.stderr).toContain('… and 10 more');
  });

  it('reports a document cut short with the records read so far, and writes nothing', async () => {
    const databaseUrl = await createTestDatabaseUrl(engine);
    const text = JSON.stringify({
      campaigns: [campaign('a')],
      respondents: [respondent('r1', 'a'), { ...respondent('r2', 'a'), attendanceStatus: 'LATE' }],
    });
    const file = writeFile('cut.json', text.slice(0, -2));
    const result = await runHadirInProcess(['import', file], { databaseUrl });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`respondents[1] (id r2): 'attendanceStatus' must be one of`);
    expect(result.stderr).toContain(`${file}: the JSON ends before the document is complete`);
    expect((await storedRows(databaseUrl)).campaigns).toEqual([]);
  });
});

describe('hadir import progress', () => {
  const bigDocument = () => {
    // Over two megabytes: read in three chunks, so the reading is seen to move.
    const respondents = Array.from({ length: 20_000 }, (_, i) => respondent(`p${i}`, 'a'));
    return writeFile('big.json', JSON.stringify({ campaigns: [campaign('a')], respondents }));
  };

  it('writes a line every few seconds when standard error is not a terminal', async () => {
    const databaseUrl = await createTestDatabaseUrl('sqlite');
    const result = await runHadirInProcess(['import', bigDocument()], {
      databaseUrl,
      clock: tickingClock(),
    });
    expect(result.status).toBe(0);
    const lines = result.stderr.trim().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    expect(lines[0]).toMatch(/^import: read \d+\.\d MB of \d+\.\d MB, [\d,]+ records, \d+ s$/);
    expect(lines.at(-1)).toBe('import: read everything; checking and committing');
    expect(result.stdout).toBe(
      'imported 1 campaign (0 deleted) and 20,000 respondents (0 deleted)\n',
    );
  });

  it('draws a bar on a terminal and ends its line', async () => {
    const databaseUrl = await createTestDatabaseUrl('sqlite');
    const result = await runHadirInProcess(['import', bigDocument()], {
      databaseUrl,
      clock: tickingClock(),
      terminal: true,
    });
    expect(result.status).toBe(0);
    expect(result.stderr).toContain('\r\x1b[2K[');
    expect(result.stderr).toMatch(/\] 100% import: read [\d.]+ MB of [\d.]+ MB, 20,001 records/);
    expect(result.stderr.endsWith(' · checking and committing\n')).toBe(true);
  });

  it('stays silent on a short import', async () => {
    const databaseUrl = await createTestDatabaseUrl('sqlite');
    const result = await runHadirInProcess(
      ['import', writeFile('small.json', JSON.stringify({ campaigns: [campaign('a')] }))],
      { databaseUrl },
    );
    expect(result.stderr).toBe('');
  });
});
