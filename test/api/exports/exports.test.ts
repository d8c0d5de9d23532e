import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import ExcelJS from 'exceljs';
import { parquetReadObjects } from 'hyparquet';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../../src/accounts/accounts.service.ts';
import type { Store } from '../../../src/db/store.ts';
import { claimRun } from '../../../src/exports/exports.repository.ts';
import { listExports } from '../../../src/exports/exports.service.ts';
import { importDocument } from '../../../src/import/import.service.ts';
import { jakartaDay } from '../../../src/keys/key-usage.ts';
import { issueKey, revokeKey } from '../../../src/keys/keys.service.ts';
import { readUsageDays } from '../../../src/keys/usage-days.repository.ts';
import { eraseRespondents } from '../../../src/removals/erasure.service.ts';
import { readHorizon } from '../../../src/removals/removals.repository.ts';
import { ManualClock } from '../../helpers/clock.ts';
import { exportWorld, sha256 } from '../../helpers/export-world.ts';
import { seedCampaign } from '../../helpers/factories.ts';
import { startS3Server, type TestS3 } from '../../helpers/s3-server.ts';
import { createTestStore, ENGINES } from '../../helpers/stores.ts';

const MINUTE = 60_000;
const GUESTS = [
  { id: 'r1', nama: 'Ayu Lestari', jumlah: '2', telepon: '+6281100000001', status: 'YES' },
  { id: 'r2', nama: 'Budi Santoso', jumlah: '3', telepon: '+6281100000002', status: 'NO' },
  { id: 'r3', nama: 'Citra Dewi', jumlah: 'dua', telepon: '+6281100000003', status: 'YES' },
  { id: 'r4', nama: 'Hilang Pergi', jumlah: '1', telepon: '+6281100000004', status: 'YES' },
] as const;

/** A Parquet file as DuckDB reads it: its columns' types, and the rows of `query` on `file`. */
async function readWithDuckDb(parquet: Buffer, query: string) {
  const folder = mkdtempSync(join(tmpdir(), 'hadir-parquet-'));
  const path = join(folder, 'file.parquet');
  writeFileSync(path, parquet);
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const from = `read_parquet('${path}')`;
    const described = await connection.runAndReadAll(`DESCRIBE SELECT * FROM ${from}`);
    const types = Object.fromEntries(
      described.getRowObjectsJS().map((row) => [row.column_name, row.column_type]),
    );
    const rows = (
      await connection.runAndReadAll(query.replace('FROM file', `FROM ${from}`))
    ).getRowObjectsJS();
    return { types, rows };
  } finally {
    connection.closeSync();
    instance.closeSync();
    rmSync(folder, { recursive: true, force: true });
  }
}

/** RFC 4180 rows of cells. */
function csvRows(bytes: Buffer): string[][] {
  const rows: string[][] = [];
  const pattern = /("(?:[^"]|"")*"|[^,\r\n]*)(,|\r\n|$)/gy;
  let row: string[] = [];
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  for (const match of text.matchAll(pattern)) {
    const cell = match[1] as string;
    row.push(cell.startsWith('"') ? cell.slice(1, -1).replaceAll('""', '"') : cell);
    if (match[2] !== ',') {
      rows.push(row);
      row = [];
      if (match[2] === '') break;
    }
  }
  return rows.filter((cells) => cells.some((cell) => cell !== ''));
}

describe.each(ENGINES)('scheduled deliveries to a bucket on %s', (engine) => {
  let s3: TestS3;
  let store: Store;
  let keyId: string;
  const clock = new ManualClock(Date.parse('2026-11-27T00:30:00Z'));
  let world: ReturnType<typeof exportWorld>;

  beforeAll(async () => {
    s3 = await startS3Server(['partner']);
    store = await createTestStore(engine);
    await seedCampaign(store, clock, {
      id: 'nikah',
      title: 'Pernikahan',
      fields: [
        { key: 'nama', type: 'TEXT', label: 'Nama' },
        { key: 'jumlah', type: 'NUMBER', label: 'Jumlah tamu' },
        { key: 'telepon', type: 'PHONE', label: 'Telepon' },
      ],
      respondents: GUESTS.map((guest, index) => ({
        id: guest.id,
        submittedAt: `2026-11-0${index + 1}T02:00:00Z`,
        attendanceStatus: guest.status,
        answers: { nama: guest.nama, jumlah: guest.jumlah, telepon: guest.telepon },
      })),
    });
    await seedCampaign(store, clock, {
      id: 'arisan',
      respondents: [{ id: 'a1', submittedAt: '2026-11-05T02:00:00Z' }],
    });
    // A guest who left is in no file.
    await importDocument(store, clock, { respondents: [{ id: 'r4', deleted: true }] });
    await createAccount(store, clock, { email: 'bi@example.test', mustChangePassword: false });
    keyId = (
      await issueKey(store, clock, {
        accountEmail: 'bi@example.test',
        scopes: [
          { campaignId: 'nikah', fields: ['nama', 'jumlah'] },
          { campaignId: 'arisan', fields: [] },
        ],
      })
    ).id;
    world = exportWorld(store, clock, s3);
  });
  // Each test's deliveries end with it.
  afterEach(() => world.removeAll());
  afterAll(async () => {
    await world?.keyUsage.close();
    await store?.close();
    await s3?.close();
  });

  it('writes what the key reads, each campaign in each format, hashed, the manifest last', async () => {
    const delivery = await world.add({
      keyId,
      to: 's3://partner/hadir/daily',
      schedule: { every: '1h' },
      formats: ['xlsx', 'csv', 'parquet'],
    });
    const result = await world.worker().runNow(delivery.id);
    const run = result.manifest.run;
    expect(run).toBe('2026-11-27T00-30-00Z');
    expect(await s3.keys('partner', 'hadir/daily/')).toEqual(
      ['arisan.csv', 'arisan.parquet', 'arisan.xlsx', 'manifest.json']
        .concat(['nikah.csv', 'nikah.parquet', 'nikah.xlsx'])
        .sort()
        .map((name) => `hadir/daily/${run}/${name}`),
    );
    const manifest = await world.manifest('partner', 'hadir/daily', run);
    expect(manifest.exportId).toBe(delivery.id);
    expect(manifest.runAt).toBe('2026-11-27T00:30:00.000Z');
    // The removals feed's watermark when the rows were read: follow the feed from it.
    const horizon = await readHorizon(store.db);
    expect(manifest.removals.until).toBe(
      new Date(Math.max(horizon.lastStamp, horizon.vouchedSince)).toISOString(),
    );
    const bodies = new Map<string, Buffer>();
    for (const file of manifest.files) {
      const body = await s3.read('partner', `hadir/daily/${run}/${file.path}`);
      expect([body.length, sha256(body)]).toEqual([file.bytes, file.sha256]);
      bodies.set(file.path, body);
      // Nothing outside the allow-list, nothing of the guest who left.
      expect(body.includes('+62811')).toBe(false);
    }
    const served = GUESTS.filter((guest) => guest.id !== 'r4');

    const csv = csvRows(bodies.get('nikah.csv') as Buffer);
    expect(csv[0]).toEqual([
      'ID',
      'Submitted (Asia/Jakarta, UTC+7)',
      'Attendance',
      'Nama',
      'Jumlah tamu',
    ]);
    expect(csv.slice(1).map((row) => [row[0], row[2], row[3], row[4]])).toEqual(
      served.map((guest) => [guest.id, guest.status, guest.nama, guest.jumlah]),
    );

    const parquet = bodies.get('nikah.parquet') as Buffer;
    const rows = await parquetReadObjects({ file: new Uint8Array(parquet).buffer });
    // A NUMBER question's plain numbers are numbers; what else was typed is kept beside them.
    const plain = (text: string) => (/^[0-9]+$/.test(text) ? Number(text) : null);
    expect(rows).toEqual(
      served.map((guest, index) => ({
        id: guest.id,
        submittedAt: new Date(`2026-11-0${index + 1}T02:00:00Z`),
        attendanceStatus: guest.status,
        nama: guest.nama,
        jumlah: plain(guest.jumlah),
        jumlah__text: plain(guest.jumlah) === null ? guest.jumlah : null,
      })),
    );
    // DuckDB, as an analyst reads the file: typed columns, a sum without a cast.
    const read = await readWithDuckDb(
      parquet,
      'SELECT sum(jumlah) AS guests, min(submittedAt) AS first FROM file',
    );
    expect(read.types).toEqual({
      id: 'VARCHAR',
      submittedAt: 'TIMESTAMP WITH TIME ZONE',
      attendanceStatus: 'VARCHAR',
      nama: 'VARCHAR',
      jumlah: 'DOUBLE',
      jumlah__text: 'VARCHAR',
    });
    expect(read.rows).toEqual([
      {
        guests: served.reduce((sum, guest) => sum + (plain(guest.jumlah) ?? 0), 0),
        first: new Date('2026-11-01T02:00:00Z'),
      },
    ]);

    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(bodies.get('nikah.xlsx') as never);
    const sheet = workbook.worksheets[0] as ExcelJS.Worksheet;
    expect(sheet.rowCount).toBe(1 + served.length);
    // A plain number is a number cell; "dua" stays the text typed.
    expect(sheet.getRow(2).getCell(5).value).toBe(2);
    expect(sheet.getRow(4).getCell(5).value).toBe('dua');

    expect(manifest.files.map((file) => [file.path, file.rows]).sort()).toEqual(
      ['arisan', 'nikah']
        .flatMap((name) =>
          ['csv', 'parquet', 'xlsx'].map((format) => [
            `${name}.${format}`,
            name === 'nikah' ? 3 : 1,
          ]),
        )
        .sort(),
    );
    // One request of the key, with its rows; an audit line of counts, never a value.
    await world.keyUsage.flush();
    const [day] = await readUsageDays(store.db, [keyId], jakartaDay(clock.now()));
    expect([day?.answered, day?.rows]).toEqual([1, 12]);
    // A delivery is a use of the key, as its page's "last used" says.
    const used = await store.db
      .selectFrom('api_keys')
      .select('last_used_at')
      .where('id', '=', keyId)
      .executeTakeFirstOrThrow();
    expect(Number(used.last_used_at)).toBe(clock.now());
    const audit = await store.db
      .selectFrom('audit_log')
      .select(['details'])
      .where('action', '=', 'export.delivered')
      .execute();
    expect(audit).toHaveLength(1);
    const details = JSON.parse(String(audit[0]?.details));
    expect([details.rows, details.bytes, details.files]).toEqual([12, result.bytes, 6]);
    expect(JSON.stringify(audit)).not.toMatch(/Ayu|Budi|Citra/);
  });

  it('keeps the last N runs, so an erased guest leaves the bucket within N runs', async () => {
    const delivery = await world.add({
      keyId,
      to: 's3://partner/keep',
      schedule: { every: '1h' },
      formats: ['csv'],
      keep: 2,
    });
    // Something of another tool in the prefix: never a run, never deleted.
    await s3.write('partner', 'keep/README.txt', 'not ours');
    const worker = world.worker();
    const contains = async (text: string) => {
      for (const key of await s3.keys('partner', 'keep/')) {
        if ((await s3.read('partner', key)).includes(text)) return true;
      }
      return false;
    };
    await worker.runNow(delivery.id);
    await eraseRespondents(store, clock, [{ campaignId: 'nikah', id: 'r1' }], 'ids');
    clock.advance(MINUTE);
    await worker.runNow(delivery.id);
    expect(await world.completeRuns('partner', 'keep')).toHaveLength(2);
    expect(await contains('Ayu Lestari')).toBe(true);
    clock.advance(MINUTE);
    const third = await worker.runNow(delivery.id);
    expect(third.runsRemoved).toHaveLength(1);
    expect(await world.completeRuns('partner', 'keep')).toHaveLength(2);
    expect(await contains('Ayu Lestari')).toBe(false);
    expect(await s3.keys('partner', 'keep/README.txt')).toEqual(['keep/README.txt']);
  });

  it('runs each slot once, on its schedule, never for a slot before it was set', async () => {
    // 07:30 in Jakarta: today's 06:00 has passed, so the first run is tomorrow's.
    const delivery = await world.add({
      keyId,
      to: 's3://partner/daily',
      schedule: { every: '1d', atMinute: 6 * 60 },
      formats: ['csv'],
    });
    expect(delivery.nextRunAt).toBe('2026-11-27T23:00:00.000Z');
    const worker = world.worker();
    expect(await worker.runDue()).toBe(0);
    clock.set(Date.parse('2026-11-27T23:00:20Z'));
    expect(await worker.runDue()).toBe(1);
    expect(await world.worker().runDue()).toBe(0);
    expect(await world.completeRuns('partner', 'daily')).toEqual(['2026-11-27T23-00-00Z']);
  });

  it('retries a failed run with backoff, and says why in words', async () => {
    const _delivery = await world.add({
      keyId,
      to: 's3://no-such-bucket/x',
      schedule: { every: '1h' },
      formats: ['csv'],
    });
    clock.set(Date.parse('2026-11-28T01:00:05Z'));
    const worker = world.worker();
    expect(await worker.runDue()).toBe(1);
    const [failed] = await listExports(world.settings, keyId);
    expect(failed?.lastRun).toMatchObject({
      state: 'failed',
      attempts: 1,
      nextAttemptAt: '2026-11-28T01:01:05.000Z',
    });
    expect(failed?.lastRun?.error).toMatch(/^NoSuchBucket \(HTTP 404\): the bucket does not exist/);
    expect(await worker.runDue()).toBe(0);
    clock.advance(MINUTE);
    expect(await worker.runDue()).toBe(1);
    expect((await listExports(world.settings, keyId))[0]?.lastRun?.attempts).toBe(2);
  });

  it('takes over a run whose node died, and stops once the key is not in force', async () => {
    const delivery = await world.add({
      keyId,
      to: 's3://partner/takeover',
      schedule: { every: '1h' },
      formats: ['csv'],
    });
    clock.set(Date.parse('2026-11-28T02:00:01Z'));
    const slot = { exportId: delivery.id, runAt: Date.parse('2026-11-28T02:00:00Z') };
    // A node claimed the slot and died before its manifest.
    expect(await claimRun(store.db, slot, clock.now(), 2 * MINUTE)).toMatchObject({ attempt: 1 });
    const worker = world.worker();
    expect(await worker.runDue()).toBe(0);
    clock.advance(2 * MINUTE + 1_000);
    expect(await worker.runDue()).toBe(1);
    expect(await world.completeRuns('partner', 'takeover')).toEqual(['2026-11-28T02-00-00Z']);
    expect((await listExports(world.settings, keyId))[0]?.lastRun).toMatchObject({
      state: 'done',
      attempts: 2,
    });

    await revokeKey(store, clock, keyId);
    clock.set(Date.parse('2026-11-28T03:00:01Z'));
    expect(await worker.runDue()).toBe(1);
    const [stopped] = await listExports(world.settings, keyId);
    expect(stopped?.lastRun).toMatchObject({ state: 'failed', nextAttemptAt: null });
    expect(stopped?.lastRun?.error).toMatch(/no longer in force/);
    clock.advance(10 * MINUTE);
    expect(await worker.runDue()).toBe(0);
  });
});
