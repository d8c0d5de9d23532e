import { mkdtempSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HadirClient } from '../../packages/client/src/index.ts';
import {
  exportRows,
  Mirror,
  type MirrorRow,
  runSync,
  type SyncOptions,
} from '../../packages/sync/src/index.ts';
import { importDocument } from '../../src/import/import.service.ts';
import { purgeRemovalsBefore } from '../../src/removals/removals.repository.ts';
import { runRetention } from '../../src/removals/retention.ts';

import { startTestApp, type TestApp } from '../helpers/app.ts';
import { runProgram } from '../helpers/cli.ts';
import { createTestKey, importRespondents, seedCampaign } from '../helpers/factories.ts';
import { createTestDatabaseUrl, ENGINES } from '../helpers/stores.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';

const DAY = 24 * 3_600_000;
const at = (minute: number) => new Date(Date.UTC(2026, 10, 1, 0, minute)).toISOString();

/** Every row an async source yields, in order. */
async function all<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

async function* fromArray<T>(rows: T[]): AsyncGenerator<T> {
  yield* rows;
}

describe.each(ENGINES)('hadir-sync mirroring into %s', (engine) => {
  let t: TestApp;
  let baseUrl: string;
  let apiKey: string;
  let next = 0;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    await seedCampaign(t.store, t.clock, {
      id: 'pesta',
      fields: [
        { key: 'menu', type: 'RADIO' },
        { key: 'alergi', type: 'CHECKBOX' },
      ],
      respondents: Array.from({ length: 45 }, (_, i) => ({
        id: `p${String(i).padStart(3, '0')}`,
        submittedAt: at(Math.floor(i / 3)),
        answers: { menu: i % 2 ? 'Sate' : 'Soto', alergi: i % 5 ? [] : ['Kacang', 'Susu'] },
      })),
    });
    next = 45;
    ({ key: apiKey } = await createTestKey(t.store, t.clock, [
      { campaignId: 'pesta', fields: ['menu', 'alergi'] },
    ]));
  });
  afterAll(() => t.close());

  const options = (overrides: Partial<SyncOptions> = {}): SyncOptions => ({
    baseUrl,
    apiKey,
    campaigns: ['pesta'],
    full: false,
    limit: 10,
    ...overrides,
  });
  const mirrorUrl = async () =>
    engine === 'sqlite'
      ? `sqlite:${join(mkdtempSync(join(tmpdir(), 'hadir-mirror-')), 'mirror.sqlite')}`
      : createTestDatabaseUrl('postgres');

  /** The server's full data, as a fresh walk without since serves it. */
  async function serverRows() {
    const rows = [];
    for await (const row of new HadirClient({ baseUrl, apiKey }).respondents('pesta'))
      rows.push(row);
    return rows.map((row) => ({
      campaignId: 'pesta',
      id: row.id,
      submittedAt: row.submittedAt,
      attendanceStatus: row.attendanceStatus,
      fields: row.fields,
      removedAt: null,
    }));
  }

  it('ends equal to the server after rows are added and edited between runs', async () => {
    const mirror = await Mirror.open(await mirrorUrl());
    try {
      const first = await runSync(options(), { mirror });
      expect(first[0]).toMatchObject({ mode: 'first', since: null, rows: 45, pages: 5 });
      expect(await all(mirror.rows())).toEqual(await serverRows());

      await importRespondents(t.store, t.clock, 'pesta', [
        { id: 'p000', submittedAt: at(40), answers: { menu: 'Rendang' } },
        { id: `p${next++}`, submittedAt: at(41), answers: { menu: 'Sate' } },
        // A late row whose submittedAt lags behind the watermark: the changes feed names it.
        { id: `p${next++}`, submittedAt: at(13), answers: { menu: 'Soto' } },
      ]);
      const watermark = await mirror.changesWatermark('pesta');
      expect(watermark).not.toBeNull();
      const second = await runSync(options(), { mirror });
      // Only what changed is read again: two edits and a new row, in one page.
      expect(second[0]).toMatchObject({ mode: 'incremental', rows: 3, pages: 1 });
      expect(second[0]?.since).toBe(watermark);
      expect(await all(mirror.rows())).toEqual(await serverRows());
      expect(second[0]?.watermark).toBe(new Date(Date.parse(at(41))).toISOString());
    } finally {
      await mirror.close();
    }
  });

  it('ends equal to the server when rows are added and edited while it pages', async () => {
    const mirror = await Mirror.open(await mirrorUrl());
    try {
      let pages = 0;
      const busy: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        if (String(input).includes('/changes') && ++pages === 2) {
          await importRespondents(t.store, t.clock, 'pesta', [
            { id: 'p001', submittedAt: at(60), answers: { menu: 'Gado-gado' } },
            { id: `p${next++}`, submittedAt: at(61) },
          ]);
        }
        return response;
      };
      await runSync(options(), { mirror, client: { fetch: busy } });
      expect(await all(mirror.rows())).toEqual(await serverRows());
    } finally {
      await mirror.close();
    }
  });

  it('survives the server going away mid-sync: the next run completes', async () => {
    const proxy = await startTcpProxy(Number(new URL(baseUrl).port));
    const mirror = await Mirror.open(await mirrorUrl());
    try {
      let pages = 0;
      const cutting: typeof fetch = async (input, init) => {
        if (String(input).includes('/changes') && ++pages === 3) await proxy.cut();
        return fetch(input, init);
      };
      const viaProxy = options({ baseUrl: `http://127.0.0.1:${proxy.port}` });
      await expect(
        runSync(viaProxy, {
          mirror,
          client: { fetch: cutting, maxRetries: 1, sleep: async () => {} },
        }),
      ).rejects.toThrow();
      expect(await mirror.watermark('pesta')).toBeNull();
      await proxy.restore();
      await runSync(viaProxy, { mirror });
      expect(await all(mirror.rows())).toEqual(await serverRows());
    } finally {
      await mirror.close();
      await proxy.close();
    }
  });

  it('is resumable: a run that fails part-way never moves the watermark, and the next run completes', async () => {
    const mirror = await Mirror.open(await mirrorUrl());
    try {
      let pages = 0;
      const dying: typeof fetch = async (input, init) => {
        if (String(input).includes('/changes') && ++pages === 3)
          throw new TypeError('fetch failed: ECONNRESET');
        return fetch(input, init);
      };
      await expect(
        runSync(options(), { mirror, client: { fetch: dying, maxRetries: 0 } }),
      ).rejects.toThrow('ECONNRESET');
      expect(await mirror.watermark('pesta')).toBeNull();
      expect((await all(mirror.rows())).length).toBe(20);

      let calls = 0;
      const flaky: typeof fetch = async (input, init) => {
        calls += 1;
        if (calls % 4 === 0)
          return new Response('{"error":{"code":"internal_error","message":"x"}}', { status: 500 });
        return fetch(input, init);
      };
      await runSync(options(), { mirror, client: { fetch: flaky, sleep: async () => {} } });
      const rows = await all(mirror.rows());
      expect(rows).toEqual(await serverRows());
      expect(new Set(rows.map((row) => row.id)).size).toBe(rows.length);
      expect(await mirror.watermark('pesta')).toBe(
        rows
          .map((row) => row.submittedAt)
          .sort()
          .at(-1),
      );
    } finally {
      await mirror.close();
    }
  });

  it('clears a row deleted on the server at the next incremental run, from the removals feed', async () => {
    const mirror = await Mirror.open(await mirrorUrl());
    try {
      await runSync(options(), { mirror });
      const victim = `p${next++}`;
      await importRespondents(t.store, t.clock, 'pesta', [
        { id: victim, submittedAt: at(70), answers: { nama: 'Pergi' } },
      ]);
      await runSync(options(), { mirror });
      t.clock.advance(1_000);
      await importDocument(t.store, t.clock, { respondents: [{ id: victim, deleted: true }] });
      const incremental = await runSync(options(), { mirror });
      expect(incremental[0]).toMatchObject({ mode: 'incremental', removed: 1 });
      expect((await all(mirror.rows())).some((row) => row.id === victim)).toBe(false);
      const rows = await all(mirror.rows([], { includeRemoved: true }));
      const marker = rows.find((row) => row.id === victim);
      // Its id and when it left stay as a marker; the person's answers are gone.
      expect(marker).toMatchObject({
        removedAt: expect.any(String),
        fields: {},
        attendanceStatus: '',
      });
      const full = await runSync(options({ full: true }), { mirror });
      expect(full[0]).toMatchObject({ mode: 'full', removed: 0 });
      expect(
        rows.filter((row) => row.removedAt === null).map(({ removedAt: _, ...row }) => row),
      ).toEqual((await serverRows()).map(({ removedAt: _, ...row }) => row));
    } finally {
      await mirror.close();
    }
  });
  it('runs a full pass by itself, and says why, when the feed cannot vouch for its removals', async () => {
    const mirror = await Mirror.open(await mirrorUrl());
    try {
      await runSync(options(), { mirror });
      const victim = `p${next++}`;
      await importRespondents(t.store, t.clock, 'pesta', [{ id: victim, submittedAt: at(71) }]);
      await runSync(options(), { mirror });
      t.clock.advance(1_000);
      await importDocument(t.store, t.clock, { respondents: [{ id: victim, deleted: true }] });
      // The server forgets tombstones beyond the mirror's watermark: its removals are unknown.
      t.clock.advance(1_000);
      await purgeRemovalsBefore(t.store.db, t.clock.now());
      const result = await runSync(options(), { mirror });
      expect(result[0]).toMatchObject({ mode: 'full', removed: 1 });
      expect(result[0]?.fullBecause).toMatch(/no longer keeps removals since/);
      expect((await all(mirror.rows())).some((row) => row.id === victim)).toBe(false);
      // And the next run is incremental again.
      expect((await runSync(options(), { mirror }))[0]?.mode).toBe('incremental');
    } finally {
      await mirror.close();
    }
  });
});

describe('hadir-sync export and command line', () => {
  it('exports an Excel-friendly CSV: BOM, CRLF, a column per field, multi-select joined, formulas defused', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'hadir-export-')), 'out.csv');
    await exportRows(
      () =>
        fromArray<MirrorRow>([
          {
            campaignId: 'c',
            id: 'r1',
            submittedAt: at(1),
            attendanceStatus: 'YES',
            fields: { menu: 'Sate, "pedas"', alergi: ['Kacang', 'Susu'] },
            removedAt: null,
          },
          {
            campaignId: 'c',
            id: 'r2',
            submittedAt: at(2),
            attendanceStatus: 'NO',
            fields: { catatan: '=HYPERLINK("x")' },
            removedAt: null,
          },
        ]),
      'csv',
      file,
      {
        fields: [
          { key: 'menu', label: 'Menu pilihan', type: 'RADIO', position: 0 },
          { key: 'alergi', label: 'Alergi', type: 'CHECKBOX', position: 1 },
        ],
      },
    );
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith('\uFEFF')).toBe(true);
    // Labels in form order, then keys without a definition; Jakarta time.
    expect(text.slice(1).split('\r\n')).toEqual([
      'id,submittedAt (Asia/Jakarta),attendanceStatus,Menu pilihan,Alergi,catatan',
      `r1,2026-11-01 07:01:00,YES,"Sate, ""pedas""",Kacang; Susu,`,
      `r2,2026-11-01 07:02:00,NO,,,"'=HYPERLINK(""x"")"`,
      '',
    ]);
  });

  it('syncs and exports from the command line, reading the key from the environment and never printing it', async () => {
    const t = await startTestApp('sqlite');
    try {
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      await seedCampaign(t.store, t.clock, {
        id: 'c',
        respondents: [{ id: 'r1', submittedAt: at(1), answers: { menu: 'Sate' } }],
      });
      const { key } = await createTestKey(t.store, t.clock, [
        { campaignId: 'c', fields: ['menu'] },
      ]);
      const folder = mkdtempSync(join(tmpdir(), 'hadir-sync-cli-'));
      const result = await runProgram(
        'packages/sync/dev/hadir-sync',
        [
          '--base-url',
          baseUrl,
          '--api-key-env',
          'PARTNER_KEY',
          '--all',
          '--to',
          `sqlite:${folder}/mirror.sqlite`,
          '--export',
          'csv',
          `${folder}/out.csv`,
        ],
        { PARTNER_KEY: key },
      );
      expect(result.stderr + result.stdout).not.toContain(key);
      expect(result.status).toBe(0);
      expect(result.stdout).toContain('c: first sync, 1 row in 1 page, watermark');
      expect(result.stdout).toContain(`exported 1 row to ${folder}/out.csv`);
      expect(readFileSync(`${folder}/out.csv`, 'utf8')).toContain(
        'r1,2026-11-01 07:01:00,YES,Sate',
      );
      const missingKey = await runProgram(
        'packages/sync/dev/hadir-sync',
        ['--base-url', baseUrl, '--all', '--to', `sqlite:${folder}/m.sqlite`],
        {},
      );
      expect(missingKey.status).toBe(1);
      expect(missingKey.stderr).toContain('HADIR_API_KEY');
    } finally {
      await t.close();
    }
  });
});

describe('a SQLite mirror after removals', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => t.close());

  const tamu = (i: number, version: number) => ({
    id: `t${String(i).padStart(3, '0')}`,
    submittedAt: at(version * 10 + (i % 7)),
    answers: { nama: `Tamu${i}V${version}Q`, catatan: 'x'.repeat((i * 37 + version * 211) % 900) },
  });

  it('holds no byte of a cleared row’s answers in its file', async () => {
    const baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const ids = Array.from({ length: 200 }, (_, i) => i);
    await seedCampaign(t.store, t.clock, {
      id: 'tamu',
      fields: [
        { key: 'nama', type: 'TEXT' },
        { key: 'catatan', type: 'TEXTAREA' },
      ],
      respondents: ids.map((i) => tamu(i, 0)),
    });
    const { key: apiKey } = await createTestKey(t.store, t.clock, [
      { campaignId: 'tamu', fields: ['nama', 'catatan'] },
    ]);
    const path = join(mkdtempSync(join(tmpdir(), 'hadir-mirror-')), 'mirror.sqlite');
    const mirror = await Mirror.open(`sqlite:${path}`);
    const options: SyncOptions = {
      baseUrl,
      apiKey,
      campaigns: ['tamu'],
      full: false,
      limit: 200,
    };
    try {
      await runSync(options, { mirror });
      // Edits that change a row's length move rows between the mirror's pages.
      t.clock.advance(60_000);
      await importRespondents(
        t.store,
        t.clock,
        'tamu',
        ids.filter((i) => i % 3 === 0).map((i) => tamu(i, 1)),
      );
      await runSync(options, { mirror });
      t.clock.advance(60_000);
      const gone = ids.filter((i) => i % 9 === 4 || i % 3 === 0);
      await importDocument(t.store, t.clock, {
        respondents: gone.map((i) => ({ id: tamu(i, 0).id, deleted: true })),
      });
      const [result] = await runSync(options, { mirror });
      expect(result?.removed).toBe(gone.length);

      const bytes = ['', '-wal']
        .map((suffix) => {
          try {
            return readFileSync(`${path}${suffix}`).toString('latin1');
          } catch {
            return '';
          }
        })
        .join('');
      const removed = gone.flatMap((i) => [`Tamu${i}V0Q`, `Tamu${i}V1Q`]);
      expect(removed.filter((name) => bytes.includes(name))).toEqual([]);
      const live = ids.filter((i) => !gone.includes(i)).map((i) => `Tamu${i}V0Q`);
      expect(live.filter((name) => !bytes.includes(name))).toEqual([]);
    } finally {
      await mirror.close();
    }
  });
});

describe('the removals watermark across daily retention', () => {
  it('keeps a daily sync of a campaign nobody leaves incremental for 100 days, while others leave', async () => {
    const t = await startTestApp('sqlite');
    try {
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      await seedCampaign(t.store, t.clock, {
        id: 'tenang',
        fields: [{ key: 'nama', type: 'TEXT' }],
        respondents: [{ id: 'q1', submittedAt: at(0), answers: { nama: 'Tetap' } }],
      });
      await seedCampaign(t.store, t.clock, {
        id: 'ramai',
        fields: [{ key: 'nama', type: 'TEXT' }],
      });
      const { key: apiKey } = await createTestKey(
        t.store,
        t.clock,
        [{ campaignId: 'tenang', fields: ['nama'] }],
        { expiresAt: t.clock.now() + 400 * DAY },
      );
      const mirror = await Mirror.open(
        `sqlite:${join(mkdtempSync(join(tmpdir(), 'hadir-mirror-')), 'mirror.sqlite')}`,
      );
      const sync = () =>
        runSync(
          { baseUrl, apiKey, campaigns: ['tenang'], full: false, limit: 50 },
          { mirror, now: () => new Date(t.clock.now()) },
        );
      const retention = { daysAfterEvent: undefined, removalsDays: 90 };
      try {
        expect((await sync())[0]?.mode).toBe('first');
        for (let day = 1; day <= 100; day++) {
          t.clock.advance(DAY);
          // Somebody leaves another campaign every day, so retention forgets a tombstone daily.
          await importRespondents(t.store, t.clock, 'ramai', [
            { id: `r${day}`, submittedAt: new Date(t.clock.now()).toISOString() },
          ]);
          await importDocument(t.store, t.clock, {
            respondents: [{ id: `r${day}`, deleted: true }],
          });
          await runRetention(t.store, t.clock, retention, true);
          const [result] = await sync();
          expect({ day, mode: result?.mode, fullBecause: result?.fullBecause }).toEqual({
            day,
            mode: 'incremental',
            fullBecause: undefined,
          });
        }
        // The tombstones older than 90 days were forgotten all the same.
        const kept = await t.store.db.selectFrom('removals').select('respondent_id').execute();
        expect(kept.length).toBeLessThanOrEqual(91);
      } finally {
        await mirror.close();
      }
    } finally {
      await t.close();
    }
  });
});
