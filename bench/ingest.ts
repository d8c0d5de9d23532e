// The ingest API at full tilt: senders posting batches of respondents as fast as they are
// answered, against the floor of the same upserts written straight into a plain table.
import { sql } from 'kysely';
import pg from 'pg';
import { systemClock } from '../src/clock.ts';
import { type Engine, openStore } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { importDocument } from '../src/import/import.service.ts';
import { createIngestToken } from '../src/ingest/ingest-tokens.service.ts';
import { watchCpu } from './cpu-split.ts';
import { type ServerProcess, startHadir } from './processes.ts';

/** Senders at once, each with one batch in flight. */
export const SENDERS = 4;
export const BATCH_ROWS = 500;
const CAMPAIGNS = 20;
/** Respondents written per pass: 200 batches. */
export const INGEST_ROWS = 100_000;
const CHOICES = ['Sate', 'Soto', 'Rendang', 'Gado-gado', 'Nasi uduk'];

/** The ten questions of every campaign: the shapes an RSVP form asks. */
const FIELDS = [
  { key: 'nama', label: 'Nama', type: 'TEXT' },
  { key: 'email', label: 'Surel', type: 'EMAIL' },
  { key: 'telepon', label: 'Telepon', type: 'PHONE' },
  { key: 'jumlah', label: 'Jumlah tamu', type: 'NUMBER' },
  { key: 'sesi', label: 'Sesi', type: 'RADIO' },
  { key: 'menu', label: 'Menu', type: 'CHECKBOX' },
  { key: 'alergi', label: 'Alergi', type: 'CHECKBOX' },
  { key: 'kota', label: 'Kota', type: 'TEXT' },
  { key: 'transport', label: 'Transportasi', type: 'RADIO' },
  { key: 'ucapan', label: 'Ucapan', type: 'TEXTAREA' },
] as const;

/** Respondent `n`'s row at `version`: ten answers, two of them lists. */
function respondent(n: number, version: number) {
  return {
    type: 'respondent',
    id: `ingest-${n}`,
    campaignId: `ingest-${n % CAMPAIGNS}`,
    submittedAt: new Date(Date.UTC(2026, 10, 1) + n * 1000 + version * 60_000).toISOString(),
    attendanceStatus: (n + version) % 4 === 0 ? 'NO' : 'YES',
    version,
    answers: {
      nama: `Tamu ${n} v${version}`,
      email: `tamu${n}@example.com`,
      telepon: `+62812${String(n).padStart(7, '0')}`,
      jumlah: String(1 + ((n + version) % 4)),
      sesi: version % 2 ? 'Akad' : 'Resepsi',
      menu: [CHOICES[n % 5], CHOICES[(n + version) % 5]].filter(
        (v, i, all) => all.indexOf(v) === i,
      ),
      alergi: n % 7 === 0 ? ['Kacang'] : [],
      kota: ['Jakarta', 'Bandung', 'Surabaya'][n % 3],
      transport: n % 2 ? 'Mobil' : 'Kereta',
      ucapan: `Selamat menempuh hidup baru, dari tamu ${n} (${version})`,
    },
  };
}

type Row = ReturnType<typeof respondent>;

/** The pass's batches: INGEST_ROWS respondents at `version`, BATCH_ROWS at a time. */
function batchesOf(version: number): Row[][] {
  const batches: Row[][] = [];
  for (let first = 0; first < INGEST_ROWS; first += BATCH_ROWS) {
    batches.push(
      Array.from({ length: BATCH_ROWS }, (_, offset) => respondent(first + offset, version)),
    );
  }
  return batches;
}

export interface PassRow {
  pass: string;
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  p50BatchMs: number;
  p99BatchMs: number;
  /** CPU per thousand rows: the serving process (none for the floor) and PostgreSQL's. */
  serverMsPer1000Rows: number;
  postgresMsPer1000Rows: number;
}

export interface IngestRow {
  engine: Engine;
  /** The revision that served, when not this one. */
  revision?: string;
  passes: PassRow[];
  /** The same rows straight into a plain table, no HTTP (PostgreSQL only). */
  floor?: PassRow[];
  /** The same, with this schema's indexes and each row's values kept as the filters keep them. */
  schemaFloor?: PassRow[];
}

function percentile(sorted: number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? Number.NaN;
}

/** Runs `send` on each batch, SENDERS at a time, timing each one and the whole pass. */
async function pass(
  name: string,
  batches: Row[][],
  send: (batch: Row[], index: number) => Promise<void>,
  serverPid: number,
): Promise<PassRow> {
  const times: number[] = [];
  let next = 0;
  const cpu = watchCpu(serverPid);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: SENDERS }, async () => {
      for (let index = next++; index < batches.length; index = next++) {
        const sent = performance.now();
        await send(batches[index] as Row[], index);
        times.push(performance.now() - sent);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const spent = cpu();
  const rows = batches.length * BATCH_ROWS;
  times.sort((a, b) => a - b);
  return {
    pass: name,
    rows,
    seconds,
    rowsPerSecond: Math.round(rows / seconds),
    p50BatchMs: Math.round(percentile(times, 0.5)),
    p99BatchMs: Math.round(percentile(times, 0.99)),
    serverMsPer1000Rows: serverPid === process.pid ? 0 : (spent.serverMs * 1000) / rows,
    postgresMsPer1000Rows: (spent.postgresMs * 1000) / rows,
  };
}

/**
 * The passes, in order: every row new, every row at the next version, then the first versions
 * again in another order, each of them stale (the version check must keep the newer row).
 */
const PASSES = [
  { name: 'new rows', version: 1, shuffled: false },
  { name: 'version + 1', version: 2, shuffled: false },
  { name: 'stale replay', version: 1, shuffled: true },
] as const;

/** Each pass through `send`, which gets a batch and a key no other batch of the run has. */
async function passes(
  who: string,
  send: (batch: Row[], key: string) => Promise<void>,
  serverPid: number,
  log: (line: string) => void,
): Promise<PassRow[]> {
  const rows: PassRow[] = [];
  for (const [number, { name, version, shuffled }] of PASSES.entries()) {
    const batches = batchesOf(version);
    if (shuffled) shuffle(batches);
    const row = await pass(
      name,
      batches,
      (batch, index) => send(batch, `bench-${number}-${index}`),
      serverPid,
    );
    rows.push(row);
    log(describe(who, row));
  }
  return rows;
}

/** Fisher–Yates with a fixed seed: the same order in every run. */
function shuffle<T>(items: T[]): void {
  let seed = 61;
  // xorshift32: enough to scatter batches, and the same scatter every run.
  const random = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32;
  };
  for (let last = items.length - 1; last > 0; last--) {
    const other = Math.floor(random() * (last + 1));
    [items[last], items[other]] = [items[other] as T, items[last] as T];
  }
}

/** A database ready for the run: the campaigns, and an ingest token. */
export async function prepareIngest(databaseUrl: string): Promise<string> {
  const store = openStore(databaseUrl);
  try {
    await migrateToLatest(store);
    await importDocument(store, systemClock, {
      campaigns: Array.from({ length: CAMPAIGNS }, (_, n) => ({
        id: `ingest-${n}`,
        slug: `ingest-${n}`,
        title: `Ingest ${n}`,
        eventDate: null,
        location: null,
        fields: FIELDS.map((field) => ({ ...field })),
      })),
    });
    return (await createIngestToken(store, systemClock, 'bench senders', 'bench')).token;
  } finally {
    await store.close();
  }
}

/**
 * Hadir's ingest API on `databaseUrl` (prepared by prepareIngest), as deployed: new rows, then
 * each again at the next version. `root` names another checkout to serve instead.
 */
export async function measureIngest(options: {
  engine: Engine;
  databaseUrl: string;
  token: string;
  root?: string;
  log: (line: string) => void;
}): Promise<PassRow[]> {
  const server: ServerProcess = await startHadir(
    { DATABASE_URL: options.databaseUrl, LOG_LEVEL: 'warn' },
    options.root,
  );
  try {
    return await passes(
      options.engine,
      async (batch, key) => {
        const response = await fetch(`${server.url}/ingest/v1/batches`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${options.token}`,
            'content-type': 'application/x-ndjson',
            'idempotency-key': key,
            // As the TLS-terminating proxy in front of it adds (see startHadir).
            'x-forwarded-proto': 'https',
          },
          body: batch.map((record) => JSON.stringify(record)).join('\n'),
        });
        const text = await response.text();
        if (response.status !== 200) {
          throw new Error(`batch ${key}: ${response.status} ${text.slice(0, 300)}`);
        }
      },
      server.pid,
      options.log,
    );
  } finally {
    await server.stop();
  }
}

/**
 * The floor: the same batches as one statement each, from SENDERS connections, into a plain
 * table of the same shape with the same version check, no HTTP and nothing else kept. With
 * `values`, the floor of this schema: the respondents table with both its indexes, and the
 * statement also replaces each applied row's values (worked out here, as the filters keep
 * them) in a table shaped and indexed as answer_values.
 */
export async function measureIngestFloor(
  databaseUrl: string,
  values: boolean,
  log: (line: string) => void,
): Promise<PassRow[]> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: SENDERS });
  try {
    await pool.query(`DROP TABLE IF EXISTS floor_respondents, floor_values;
      CREATE TABLE floor_respondents (id text PRIMARY KEY, campaign_id text NOT NULL,
        submitted_at bigint NOT NULL, attendance_status text NOT NULL, answers text NOT NULL,
        version bigint NOT NULL);
      CREATE TABLE floor_values (campaign_id text NOT NULL, field_key text NOT NULL,
        folded text NOT NULL, respondent_id text NOT NULL)`);
    if (values) {
      await pool.query(`CREATE UNIQUE INDEX ON floor_respondents (campaign_id, submitted_at, id);
        CREATE INDEX ON floor_values (campaign_id, field_key, substr(folded, 1, 200));
        CREATE INDEX ON floor_values (respondent_id)`);
    }
    const upsert = `INSERT INTO floor_respondents
        SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[],
          $6::bigint[])
      ON CONFLICT (id) DO UPDATE SET campaign_id = excluded.campaign_id,
        submitted_at = excluded.submitted_at, attendance_status = excluded.attendance_status,
        answers = excluded.answers, version = excluded.version
      WHERE floor_respondents.version < excluded.version`;
    // One statement: the old values of the rows applied go, their new ones come.
    const withValues = `WITH applied AS (${upsert} RETURNING id),
      gone AS (DELETE FROM floor_values AS v USING applied WHERE v.respondent_id = applied.id)
      INSERT INTO floor_values
        SELECT v.* FROM unnest($7::text[], $8::text[], $9::text[], $10::text[])
          AS v (campaign_id, field_key, folded, respondent_id)
        JOIN applied ON applied.id = v.respondent_id`;
    return await passes(
      values ? 'floor with values' : 'floor',
      async (batch) => {
        const rows = [
          batch.map((r) => r.id),
          batch.map((r) => r.campaignId),
          batch.map((r) => Date.parse(r.submittedAt)),
          batch.map((r) => r.attendanceStatus),
          batch.map((r) => JSON.stringify(r.answers)),
          batch.map((r) => r.version),
        ];
        if (!values) {
          await pool.query(upsert, rows);
          return;
        }
        const kept = batch.flatMap((r) =>
          Object.entries(r.answers).flatMap(([key, answer]) =>
            [
              ...new Set(
                (Array.isArray(answer) ? answer : [answer]).map((v) => String(v).toLowerCase()),
              ),
            ].map((folded) => [r.campaignId, key, folded, r.id]),
          ),
        );
        await pool.query(withValues, [...rows, ...[0, 1, 2, 3].map((n) => kept.map((v) => v[n]))]);
      },
      process.pid,
      log,
    );
  } finally {
    await pool.end();
  }
}

/**
 * What the database holds after the passes: every row at the last version, and the filters'
 * index holding exactly the values of those rows (one per text answer and per choice).
 */
export async function checkIngested(databaseUrl: string): Promise<{
  rowsAtLastVersion: number;
  answerValues: number;
  answerValuesExpected: number;
}> {
  const store = openStore(databaseUrl);
  try {
    // The second version's answers name it: `"Tamu 7 v2"`.
    const last = await store.db
      .selectFrom('respondents')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('id', 'like', 'ingest-%')
      .where(sql`cast(answers as text)`, 'like', '%v2"%')
      .executeTakeFirstOrThrow();
    const values = await store.db
      .selectFrom('answer_values')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('respondent_id', 'like', 'ingest-%')
      .executeTakeFirstOrThrow();
    let expected = 0;
    for (let n = 0; n < INGEST_ROWS; n++) {
      for (const value of Object.values(respondent(n, 2).answers)) {
        expected += Array.isArray(value) ? value.length : 1;
      }
    }
    return {
      rowsAtLastVersion: Number(last.n),
      answerValues: Number(values.n),
      answerValuesExpected: expected,
    };
  } finally {
    await store.close();
  }
}

function describe(who: string, row: PassRow): string {
  return `  ${who}, ${row.pass}: ${row.rowsPerSecond.toLocaleString('en')} rows/s, batch p50 ${row.p50BatchMs} ms, p99 ${row.p99BatchMs} ms; per 1,000 rows ${row.serverMsPer1000Rows.toFixed(0)} ms server CPU, ${row.postgresMsPer1000Rows.toFixed(0)} ms PostgreSQL CPU`;
}
