import { rmSync } from 'node:fs';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/db/connect.ts';
import { migrateToLatest } from '../../../src/db/migrate.ts';
import { recordPathOf } from '../../../src/db/sqlite-record-file.ts';
import { eraseRespondents } from '../../../src/removals/erasure.service.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { recordOf } from '../../helpers/disclosure-record.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';
import { call, connectHosted, listen } from '../../helpers/mcp-client.ts';
import { createTestDatabaseUrl, ENGINES, openTestStore } from '../../helpers/stores.ts';

const guests = Array.from({ length: 5 }, (_, index) => ({
  id: `tamu-${index + 1}`,
  submittedAt: `2026-11-0${index + 1}T00:00:00Z`,
  answers: { nama: `Tamu ${index + 1}`, menu: index % 2 ? 'Sate' : 'Soto', telepon: '0812' },
}));

describe.each(ENGINES)('the disclosure record on %s', (engine) => {
  let t: TestApp;
  let key: Awaited<ReturnType<typeof createTestKey>>;
  const DATA = '/developer/v1/campaigns/nikah';

  beforeAll(async () => {
    t = await startTestApp(engine);
    await seedCampaign(t.store, t.clock, {
      id: 'nikah',
      fields: [
        { key: 'nama', type: 'TEXT' },
        { key: 'menu', type: 'RADIO' },
        { key: 'telepon', type: 'PHONE' },
      ],
      respondents: guests,
    });
    key = await createTestKey(t.store, t.clock, [
      { campaignId: 'nikah', fields: ['nama', 'menu'] },
    ]);
  });
  afterAll(async () => {
    await t?.close();
  });
  beforeEach(async () => {
    await t.store.db.deleteFrom('disclosures').execute();
  });

  it('records each page it hands over: key, chain, account, door, campaign, fields in force and exactly its rows', async () => {
    const first = await t.get(`${DATA}/respondents?limit=2`, key.key);
    expect(first.status).toBe(200);
    const second = await t.get(`${DATA}/respondents?cursor=${first.body.meta.nextCursor}`, key.key);
    expect(second.status).toBe(200);
    const lines = await recordOf(t.store);
    expect(lines).toEqual([
      {
        at: t.clock.now(),
        accountId: key.account.id,
        lineageId: key.id,
        keyId: key.id,
        door: 'api',
        campaignId: 'nikah',
        fields: ['nama', 'menu'],
        rows: first.body.data.map((row: { id: string }) => row.id),
        removals: [],
      },
      expect.objectContaining({
        rows: second.body.data.map((row: { id: string }) => row.id),
      }),
    ]);
    expect(lines[0]?.rows).toEqual(['tamu-1', 'tamu-2']);
  });

  it('records nothing where no respondent leaves: a 304, a 403, a summary, the fields, the list', async () => {
    const page = await t.get(`${DATA}/respondents`, key.key);
    await t.store.db.deleteFrom('disclosures').execute();
    expect(
      (
        await t.get(`${DATA}/respondents`, key.key, {
          'if-none-match': page.headers.etag as string,
        })
      ).status,
    ).toBe(304);
    const stranger = await createTestKey(t.store, t.clock, []);
    expect((await t.get(`${DATA}/respondents`, stranger.key)).status).toBe(403);
    expect((await t.get(`${DATA}/summary`, key.key)).status).toBe(200);
    expect((await t.get(`${DATA}/fields`, key.key)).status).toBe(200);
    expect((await t.get('/developer/v1/campaigns', key.key)).status).toBe(200);
    expect(await recordOf(t.store)).toEqual([]);
  });

  it('records the changes feed’s rows and its removals apart, and the removals feed’s ids alone', async () => {
    const partner = await createTestKey(t.store, t.clock, [
      { campaignId: 'nikah', fields: ['menu'] },
    ]);
    t.clock.advance(60_000);
    await eraseRespondents(t.store, t.clock, [{ campaignId: 'nikah', id: 'tamu-5' }], 'ids');
    const changes = await t.get(`${DATA}/changes`, partner.key);
    expect(changes.status).toBe(200);
    const removals = await t.get(`${DATA}/removals`, partner.key);
    expect(removals.status).toBe(200);
    const lines = await recordOf(t.store);
    expect(
      lines.map(({ door, fields, rows, removals }) => ({ door, fields, rows, removals })),
    ).toEqual([
      {
        door: 'changes',
        fields: ['menu'],
        rows: ['tamu-1', 'tamu-2', 'tamu-3', 'tamu-4'],
        removals: ['tamu-5'],
      },
      { door: 'removals', fields: [], rows: [], removals: ['tamu-5'] },
    ]);
    // What the feeds sent is what the lines name.
    expect(
      changes.body.data
        .filter((item: { type: string }) => item.type === 'removal')
        .map((item: { id: string }) => item.id),
    ).toEqual(['tamu-5']);
    await importBack(t);
  });

  it('names the MCP door when an MCP tool asked, hosted or on the partner’s side', async () => {
    const url = await listen(t);
    const client = await connectHosted(`${url}/developer/mcp`, key.key);
    try {
      const answer = await call(client, 'list_respondents', { campaignId: 'nikah', limit: 3 });
      expect(answer.answer.isError).toBeFalsy();
      // Counting reads every row in this process, and hands none over: nothing is recorded.
      const counted = await call(client, 'count_respondents', {
        campaignId: 'nikah',
        groupBy: 'nama',
      });
      expect(counted.json().count).toBe(5);
    } finally {
      await client.close();
    }
    const hosted = await recordOf(t.store);
    expect(hosted.map(({ door, fields, rows }) => ({ door, fields, rows }))).toEqual([
      { door: 'mcp', fields: ['nama', 'menu'], rows: ['tamu-1', 'tamu-2', 'tamu-3'] },
    ]);
    // hadir-mcp on the partner's side names itself the same way.
    await t.get(`${DATA}/respondents?limit=1`, key.key, { 'user-agent': 'hadir-mcp/1.0.0' });
    expect((await recordOf(t.store)).at(-1)?.door).toBe('mcp');
  });

  it('holds the answer until its line is written, and refuses it when the line cannot be', async () => {
    const page = await t.get(`${DATA}/respondents?limit=1`, key.key);
    // The line was in the store before the answer came back.
    expect(page.status).toBe(200);
    expect(await recordOf(t.store)).toHaveLength(1);
    // A page large enough to be sent compressed.
    await seedCampaign(t.store, t.clock, {
      id: 'besar',
      fields: [{ key: 'nama', type: 'TEXT' }],
      respondents: Array.from({ length: 30 }, (_, n) => ({
        id: `besar-${n}`,
        submittedAt: `2026-11-01T00:00:${String(n).padStart(2, '0')}Z`,
        answers: { nama: `Tamu besar nomor ${n}` },
      })),
    });
    const big = await createTestKey(t.store, t.clock, [{ campaignId: 'besar', fields: ['nama'] }]);
    const gzipped = await t.get('/developer/v1/campaigns/besar/respondents', big.key, {
      'accept-encoding': 'gzip',
    });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    await sql`ALTER TABLE disclosures RENAME TO disclosures_away`.execute(t.store.db);
    try {
      const refused = await t.get('/developer/v1/campaigns/besar/respondents', big.key, {
        'accept-encoding': 'gzip',
      });
      expect(refused.status).toBeGreaterThanOrEqual(500);
      expect(refused.raw).not.toContain('besar-');
      // The envelope, plain: not labelled as the page's compressed bytes.
      expect(refused.headers['content-encoding']).toBeUndefined();
      expect(refused.body.error.code).toBeDefined();
      // An answer without respondents does not need the record.
      expect((await t.get(`${DATA}/summary`, key.key)).status).toBe(200);
    } finally {
      await sql`ALTER TABLE disclosures_away RENAME TO disclosures`.execute(t.store.db);
    }
  });
});

describe('the disclosure record on SQLite, beside an import', () => {
  it('records a page while another process holds the store’s one write lock', async () => {
    const t = await startTestApp('sqlite');
    try {
      await seedCampaign(t.store, t.clock, {
        id: 'c',
        respondents: [{ id: 'r1', submittedAt: '2026-11-01T00:00:00Z' }],
      });
      const { key } = await createTestKey(t.store, t.clock, [{ campaignId: 'c', fields: [] }]);
      // An import's transaction in another process: the store's writer, for as long as it runs.
      const importing = new SqliteDatabase(t.store.url.replace(/^sqlite:/, ''));
      importing.exec('BEGIN IMMEDIATE');
      try {
        // Not held until the import's end, nor refused at the store's busy timeout: the record
        // is written to a file of its own.
        const page = await t.get('/developer/v1/campaigns/c/respondents', key);
        expect(page.status).toBe(200);
      } finally {
        importing.exec('ROLLBACK');
        importing.close();
      }
      expect((await recordOf(t.store)).map((line) => line.rows)).toEqual([['r1']]);
    } finally {
      await t.close();
    }
  });

  it('starts a new record, and says so, for a store copied without its record', async () => {
    const url = await createTestDatabaseUrl('sqlite');
    await (await openTestStore(url)).close();
    const path = url.replace(/^sqlite:/, '');
    rmSync(recordPathOf(path));
    const warnings: string[] = [];
    const store = openStore(url, { onWarning: (message) => warnings.push(message) });
    await migrateToLatest(store);
    const t = await startTestApp(store);
    try {
      expect(warnings.join('\n')).toContain(`${recordPathOf(path)} was not beside ${path}`);
      await seedCampaign(t.store, t.clock, {
        id: 'c',
        respondents: [{ id: 'r1', submittedAt: '2026-11-01T00:00:00Z' }],
      });
      const { key } = await createTestKey(t.store, t.clock, [{ campaignId: 'c', fields: [] }]);
      expect((await t.get('/developer/v1/campaigns/c/respondents', key)).status).toBe(200);
      expect((await recordOf(t.store)).map((line) => line.rows)).toEqual([['r1']]);
    } finally {
      await t.close();
    }
  });
});

/** Brings the erased guest of a test back, so the tests after it see every guest. */
async function importBack(t: TestApp) {
  await t.store.db.deleteFrom('erasure_holds').execute();
  await seedCampaign(t.store, t.clock, {
    id: 'nikah',
    fields: [
      { key: 'nama', type: 'TEXT' },
      { key: 'menu', type: 'RADIO' },
      { key: 'telepon', type: 'PHONE' },
    ],
    respondents: guests,
  });
}
