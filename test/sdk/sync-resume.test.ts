import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Mirror, type MirrorRow, runSync } from '../../packages/sync/src/index.ts';
import { importDocument } from '../../src/import/import.service.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { runProgram } from '../helpers/cli.ts';
import { createTestKey, seedCampaign } from '../helpers/factories.ts';
import { spawnOwned } from '../helpers/owned-processes.ts';
import { createTestDatabaseUrl } from '../helpers/stores.ts';
import { until } from '../helpers/until.ts';

const at = (second: number) => new Date(Date.UTC(2026, 10, 1) + second * 1000).toISOString();
const SYNC_BIN = new URL('../../packages/sync/dev/hadir-sync', import.meta.url).pathname;
const ROWS = 3000;

async function all<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

// Each test spawns hadir-sync (and kills it mid-pass): given room for a machine twice as slow.
describe('hadir-sync resumes, explains and exports', { timeout: 90_000 }, () => {
  let t: TestApp;
  let baseUrl: string;
  let apiKey: string;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    await seedCampaign(t.store, t.clock, {
      id: 'besar',
      fields: [{ key: 'menu', type: 'RADIO', label: 'Menu makan' }],
      respondents: Array.from({ length: ROWS }, (_, i) => ({
        id: `b${String(i).padStart(5, '0')}`,
        // Pairs of rows share a second: ties the keyset must keep apart.
        submittedAt: at(Math.floor(i / 2)),
        answers: { menu: i % 2 ? 'Sate' : 'Soto' },
      })),
    });
    await seedCampaign(t.store, t.clock, {
      id: 'kecil',
      respondents: [{ id: 'k1', submittedAt: at(5), answers: {} }],
    });
    ({ key: apiKey } = await createTestKey(t.store, t.clock, [
      { campaignId: 'besar', fields: ['menu'] },
      { campaignId: 'kecil', fields: [] },
    ]));
  });
  afterAll(() => t.close());

  const mirrorFile = () => join(mkdtempSync(join(tmpdir(), 'hadir-resume-')), 'mirror.sqlite');

  it('continues an interrupted first pass after its last stored page', async () => {
    const mirror = await Mirror.open(`sqlite:${mirrorFile()}`);
    try {
      let pages = 0;
      const dying: typeof fetch = async (input, init) => {
        if (String(input).includes('/changes') && ++pages === 4)
          throw new TypeError('fetch failed');
        return fetch(input, init);
      };
      const options = {
        baseUrl,
        apiKey,
        campaigns: ['besar'],
        full: false,
        limit: 200,
      };
      await expect(
        runSync(options, { mirror, client: { fetch: dying, maxRetries: 0 } }),
      ).rejects.toThrow();
      expect(await mirror.checkpoint('besar')).toMatchObject({
        mode: 'first',
        rows: 600,
        pages: 3,
      });
      expect(await mirror.watermark('besar')).toBeNull();

      const asked: string[] = [];
      const counting: typeof fetch = async (input, init) => {
        if (String(input).includes('/changes')) asked.push(String(input));
        return fetch(input, init);
      };
      const [result] = await runSync(options, { mirror, client: { fetch: counting } });
      expect(result).toMatchObject({
        mode: 'first',
        rows: ROWS,
        pages: ROWS / 200,
        resumedFrom: 600,
      });
      expect(asked).toHaveLength(ROWS / 200 - 3);
      expect(new URL(asked[0] as string).searchParams.get('cursor')).toEqual(expect.any(String));
      const rows = await all(mirror.rows(['besar'], { batch: 7 }));
      expect(rows).toHaveLength(ROWS);
      expect(new Set(rows.map((row) => row.id)).size).toBe(ROWS);
      expect(await mirror.checkpoint('besar')).toBeNull();
      expect(await mirror.watermark('besar')).toBe(at(Math.floor((ROWS - 1) / 2)));
    } finally {
      await mirror.close();
    }
  });

  it('reads a late record behind the watermark, and only what changed, without a look-back', async () => {
    const mirror = await Mirror.open(`sqlite:${mirrorFile()}`);
    try {
      const options = { baseUrl, apiKey, campaigns: ['kecil'], full: false, limit: 200 };
      await runSync(options, { mirror });
      // A record the platform sends late keeps its own early submittedAt.
      t.clock.advance(1_000);
      await importDocument(t.store, t.clock, {
        respondents: [
          { id: 'late', campaignId: 'kecil', submittedAt: at(3), attendanceStatus: 'NO' },
        ],
      });
      const asked: string[] = [];
      const counting: typeof fetch = async (input, init) => {
        asked.push(new URL(String(input)).pathname);
        return fetch(input, init);
      };
      const [result] = await runSync(options, { mirror, client: { fetch: counting } });
      expect(result).toMatchObject({ mode: 'incremental', rows: 1, pages: 1, removed: 0 });
      expect(asked.filter((path) => path.endsWith('/changes'))).toHaveLength(1);
      const late = (await all(mirror.rows(['kecil']))).find((row) => row.id === 'late');
      expect(late).toMatchObject({ submittedAt: at(3), attendanceStatus: 'NO' });
    } finally {
      await importDocument(t.store, t.clock, { respondents: [{ id: 'late', deleted: true }] });
      await mirror.close();
    }
  });

  it('resumes after the process is killed mid-pass, and --restart starts over', async () => {
    const file = mirrorFile();
    const args = [
      '--base-url',
      baseUrl,
      '--campaign',
      'besar',
      '--to',
      `sqlite:${file}`,
      '--limit',
      '10',
    ];
    const child = spawnOwned(SYNC_BIN, args, {
      env: { ...process.env, HADIR_API_KEY: apiKey },
      stdio: 'ignore',
    });
    const peek = await Mirror.open(`sqlite:${file}`);
    try {
      await until(
        async () => ((await peek.checkpoint('besar'))?.pages ?? 0) >= 5,
        'five stored pages',
      );
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      const stopped = (await peek.checkpoint('besar'))?.rows ?? 0;
      expect(stopped).toBeGreaterThanOrEqual(50);
      expect(stopped).toBeLessThan(ROWS);

      const rerun = await runProgram('packages/sync/dev/hadir-sync', args, {
        HADIR_API_KEY: apiKey,
      });
      expect(rerun.status).toBe(0);
      expect(rerun.stdout).toContain(`besar: first sync, ${ROWS.toLocaleString('en')} rows`);
      expect(rerun.stdout).toContain(`resumed after ${stopped.toLocaleString('en')} rows`);
      const rows = await all(peek.rows(['besar']));
      expect(rows).toHaveLength(ROWS);
      expect(new Set(rows.map((row) => row.id)).size).toBe(ROWS);

      const again = await runProgram(
        'packages/sync/dev/hadir-sync',
        [...args, '--restart', '--full'],
        {
          HADIR_API_KEY: apiKey,
        },
      );
      expect(again.stdout).toContain(
        `besar: full sync, ${ROWS.toLocaleString('en')} rows in 300 pages, 0 rows removed`,
      );
    } finally {
      child.kill('SIGKILL');
      await peek.close();
    }
  });

  it('names the address, the cause and what to do when the service cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const result = await runProgram(
      'packages/sync/dev/hadir-sync',
      ['--base-url', `http://127.0.0.1:${port}`, '--all', '--to', `sqlite:${mirrorFile()}`],
      { HADIR_API_KEY: apiKey },
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('waiting');
    expect(result.stderr).toMatch(/\(retry 1 after network error/);
    expect(result.stderr).toContain(
      `hadir-sync: cannot reach http://127.0.0.1:${port}/developer/v1/campaigns: ECONNREFUSED after retries: check --base-url and that the service is running; run the same command again to continue where it stopped`,
    );
    expect(result.stderr).not.toContain('    at ');
  });

  it('exports one owner-only CSV per campaign in Jakarta time, leaves removed rows out unless asked', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'hadir-export-'));
    const to = `sqlite:${folder}/mirror.sqlite`;
    const synced = await runProgram(
      'packages/sync/dev/hadir-sync',
      ['--base-url', baseUrl, '--all', '--to', to, '--export', 'csv', `${folder}/out.csv`],
      { HADIR_API_KEY: apiKey },
    );
    expect(synced.status).toBe(0);
    expect(synced.stdout).toContain(
      `exported ${ROWS.toLocaleString('en')} rows to ${folder}/out-besar.csv`,
    );
    expect(synced.stdout).toContain(`exported 1 row to ${folder}/out-kecil.csv`);
    const besar = readFileSync(`${folder}/out-besar.csv`, 'utf8').split('\r\n');
    // The question's label heads its column; times are Jakarta's unless --time-zone UTC.
    expect(besar[0]).toBe('\uFEFFid,submittedAt (Asia/Jakarta),attendanceStatus,Menu makan');
    expect(besar[1]).toBe('b00000,2026-11-01 07:00:00,YES,Soto');
    expect(statSync(`${folder}/out-besar.csv`).mode & 0o777).toBe(0o600);
    expect(statSync(`${folder}/mirror.sqlite`).mode & 0o777).toBe(0o600);
    const utc = await runProgram(
      'packages/sync/dev/hadir-sync',
      [
        '--to',
        to,
        '--campaign',
        'kecil',
        '--export',
        'csv',
        `${folder}/k.csv`,
        '--time-zone',
        'UTC',
        '--headers',
        'keys',
        '--technical-columns',
      ],
      {},
    );
    expect(utc.status).toBe(0);
    expect(readFileSync(`${folder}/k.csv`, 'utf8').split('\r\n')[0]).toBe(
      '\uFEFFcampaignId,id,submittedAt,attendanceStatus,removedAt',
    );

    // A row marked removed by a full pass is exported only with --include-removed.
    const db = new (await import('better-sqlite3')).default(`${folder}/mirror.sqlite`);
    db.prepare("UPDATE mirror_respondents SET removed_at = ? WHERE id = 'k1'").run(at(9));
    db.close();
    const without = await runProgram(
      'packages/sync/dev/hadir-sync',
      ['--to', to, '--campaign', 'kecil', '--export', 'jsonl', `${folder}/k.jsonl`],
      {},
    );
    expect(without.stdout).toContain('exported 0 rows');
    const withRemoved = await runProgram(
      'packages/sync/dev/hadir-sync',
      [
        '--to',
        to,
        '--campaign',
        'kecil',
        '--export',
        'jsonl',
        `${folder}/k.jsonl`,
        '--include-removed',
      ],
      {},
    );
    expect(withRemoved.stdout).toContain('exported 1 row');
    expect(JSON.parse(readFileSync(`${folder}/k.jsonl`, 'utf8'))).toMatchObject<Partial<MirrorRow>>(
      {
        id: 'k1',
        removedAt: at(9),
      },
    );
  });
});

describe('the PostgreSQL mirror', () => {
  it('stores JSON as jsonb, times as timestamptz and counts as integers, upgrading a text mirror', async () => {
    const url = await createTestDatabaseUrl('postgres');
    // A mirror as the first versions wrote it: everything text.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`CREATE TABLE mirror_respondents (id text PRIMARY KEY, campaign_id text NOT NULL,
      submitted_at text NOT NULL, attendance_status text NOT NULL, fields text NOT NULL, removed_at text)`);
    await client.query(
      `INSERT INTO mirror_respondents VALUES ('r1', 'c', '2026-11-01T00:00:00.000Z', 'YES', '{"menu":"Sate"}', NULL)`,
    );
    await client.query(
      'CREATE TABLE mirror_state (campaign_id text PRIMARY KEY, watermark text, last_full_sync_at text)',
    );
    await client.query(`INSERT INTO mirror_state VALUES ('c', '2026-11-01T00:00:00.000Z', NULL)`);
    const mirror = await Mirror.open(url);
    try {
      const types = await client.query(
        `SELECT table_name, column_name, data_type FROM information_schema.columns
          WHERE table_name LIKE 'mirror_%' ORDER BY table_name, column_name`,
      );
      const typeOf = (table: string, column: string) =>
        types.rows.find((row) => row.table_name === table && row.column_name === column)?.data_type;
      expect(typeOf('mirror_respondents', 'fields')).toBe('jsonb');
      expect(typeOf('mirror_respondents', 'submitted_at')).toBe('timestamp with time zone');
      expect(typeOf('mirror_state', 'watermark')).toBe('timestamp with time zone');
      expect(typeOf('mirror_campaigns', 'response_count')).toBe('integer');
      expect(typeOf('mirror_campaigns', 'summary')).toBe('jsonb');
      const index = await client.query(
        "SELECT indexdef FROM pg_indexes WHERE indexname = 'mirror_respondents_campaign'",
      );
      expect(index.rows[0]?.indexdef).toContain('(campaign_id, submitted_at, id)');
      expect(await all(mirror.rows())).toEqual([
        {
          campaignId: 'c',
          id: 'r1',
          submittedAt: '2026-11-01T00:00:00.000Z',
          attendanceStatus: 'YES',
          fields: { menu: 'Sate' },
          removedAt: null,
        },
      ]);
      expect(await mirror.watermark('c')).toBe('2026-11-01T00:00:00.000Z');
    } finally {
      await mirror.close();
      await client.end();
    }
  });
});
