import { mkdtempSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  exportRows,
  Mirror,
  type MirrorRow,
  runSync,
  type SyncOptions,
} from '../../packages/sync/src/index.ts';
import { importDocument } from '../../src/import/import.service.ts';
import { runRetention } from '../../src/removals/retention.ts';

import { startTestApp, type TestApp } from '../helpers/app.ts';
import { runProgram } from '../helpers/cli.ts';
import { createTestKey, importRespondents, seedCampaign } from '../helpers/factories.ts';

const DAY = 24 * 3_600_000;
const at = (minute: number) => new Date(Date.UTC(2026, 10, 1, 0, minute)).toISOString();

/** Every row an async source yields, in order. */
async function _all<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

async function* fromArray<T>(rows: T[]): AsyncGenerator<T> {
  yield* rows;
}

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
