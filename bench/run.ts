// npm run bench [-- --only cases,reference,memory,ablation,compare,import,removals,fullsync,notifications,hostile,live,ingest,partner,agents,ask,downloads,deliveries,compression,pgbouncer,distinct,traces,disclosures,cli]
// [--against REF]: seeds (once) a million respondents on SQLite and on a throwaway PostgreSQL
// cluster; loads every case (each right after a plain node:http ceiling); loads PostgreSQL's
// first and deepest pages in turn with a conventional Fastify + pg server, and splits the CPU of
// each and of a bare reference (reference); loads the mixed load on serve as started and left to
// the runtime's memory defaults (memory);
// switches each speed device off in turn (the ablation); with --against, loads every case on
// another revision in turn with this one; measures an incremental sync after removals (removals)
// and a first sync of 100,000 rows against the rate limit's bound (fullsync). Writes
// bench/results/latest.json and latest.md, removals-DATE.json and full-sync-DATE.json.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { type Engine, openStore } from '../src/db/connect.ts';
import { migrateDatabase } from '../src/db/migrate.ts';
import { recordPathOf } from '../src/db/sqlite-record-file.ts';
import { startPostgresCluster } from '../test/helpers/postgres-cluster.ts';
import { type AblationRow, runAblation } from './ablation.ts';
import {
  type ComparisonRow,
  prepareCheckout,
  prepareOtherDatabase,
  runComparison,
  sqliteCopy,
} from './against.ts';
import { measureAgents } from './agents.ts';
import { measureAskServer } from './ask-server.ts';
import { benchCases, clientHeaders, LIMIT, PAGE_ONE_PATH, serverEnv } from './cases.ts';
import { measureCliStart } from './cli-start.ts';
import { measureCompression } from './compression.ts';
import { perRequest, watchCpu } from './cpu-split.ts';
import { measureDeliveries } from './deliveries.ts';
import { measureRecordCost, measureRecordedDelivery, measureReportTimes } from './disclosures.ts';
import { measureDistinctPages, measureTracedPages } from './distinct-pages.ts';
import { measureDownloads } from './downloads.ts';
import { FULL_SYNC_ROWS, measureFullSync } from './full-sync.ts';
import { measureHostileReceivers } from './hostile-receivers.ts';
import { type ImportRow, importFiles, measureImport } from './import.ts';
import {
  BATCH_ROWS,
  checkIngested,
  INGEST_ROWS,
  type IngestRow,
  measureIngest,
  measureIngestFloor,
  prepareIngest,
  SENDERS,
} from './ingest.ts';
import { type IngestRateRow, measureIngestRate, measureLive, measureLiveKills } from './live.ts';
import { CONNECTIONS, inTurn, type Load, load } from './load.ts';
import { type MemoryRow, measureMemory } from './memory.ts';
import { measureNotifications, type NotificationsRow } from './notifications.ts';
import { measurePartnerMirror } from './partner-mirror.ts';
import { measurePgBouncer } from './pgbouncer.ts';
import { measurePostgresPages, type PostgresPages } from './postgres-pages.ts';
import { type ServerProcess, startCeiling, startHadir } from './processes.ts';
import { measureRemovals, REMOVED, type RemovalsRow } from './removals.ts';
import { type CaseRow, evaluate, renderMarkdown } from './report.ts';
import { seedOnce } from './seed.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const DATA = join(ROOT, 'bench', '.data');
const RESULTS = join(ROOT, 'bench', 'results');

const { values: args } = parseArgs({
  options: {
    only: {
      type: 'string',
      default:
        'cases,memory,ablation,compare,import,removals,fullsync,notifications,hostile,live,ingest,partner,agents,ask,downloads,deliveries,compression,pgbouncer,distinct,traces,disclosures,cli',
    },
    against: { type: 'string' },
  },
});
const parts = new Set((args.only ?? '').split(','));

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10);

/**
 * The cases a comparison loads: every one, or those BENCH_CASES names (separated by semicolons,
 * as the report names them), to load again the cases a run found past its bound.
 */
function comparedCases(key: string) {
  const named = process.env.BENCH_CASES?.split(';').map((name) => name.trim());
  const cases = benchCases(key);
  if (!named) return cases;
  const unknown = named.filter((name) => !cases.some((benchCase) => benchCase.name === name));
  if (unknown.length > 0) throw new Error(`BENCH_CASES names no case ${unknown.join(', ')}`);
  return cases.filter((benchCase) => named.includes(benchCase.name));
}
const WARMUP_S = 2;
/** A fresh server first serves uncached pages this long, unmeasured: threads up, code compiled. */
const SERVER_WARMUP_S = 10;
const PAIRS = { rounds: 3, seconds: 5, warmupSeconds: 1, serverWarmupSeconds: SERVER_WARMUP_S };

const log = (line: string) => process.stdout.write(`${line}\n`);

async function prepare(engine: Engine, url: string): Promise<string> {
  // As a server migrates before it serves: without a statement timeout (a migration may fill a
  // table from a million respondents).
  await migrateDatabase(url);
  const store = openStore(url);
  try {
    const started = Date.now();
    const manifest = await seedOnce(store, join(DATA, `${engine}.json`), log);
    if (Date.now() - started > 5_000) {
      log(`  ${engine}: seeded in ${Math.round((Date.now() - started) / 1000)} s`);
    }
    // Statistics for the planner, and on PostgreSQL a visibility map so counting reads the index
    // alone (autovacuum does both in production). Quick when nothing changed; after a run that
    // was stopped midway it may take longer than the service's statement timeout, so PostgreSQL's
    // runs on a connection of its own, without one.
    if (engine === 'postgres') await vacuumAnalyze(url);
    else await sql.raw('ANALYZE').execute(store.db);
    return manifest.key;
  } finally {
    await store.close();
  }
}

async function vacuumAnalyze(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('VACUUM ANALYZE');
  } finally {
    await client.end();
  }
}

async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
}

/** A case, loaded right after the ceiling server: this machine's speed drifts over minutes. */
async function measureCase(
  ceiling: ServerProcess,
  server: ServerProcess,
  request: Load,
): Promise<Omit<CaseRow, 'engine' | 'case' | 'cached'>> {
  const ceilingLoad: Load = { path: '/', headers: {}, expectStatus: 200 };
  await load(ceiling, ceilingLoad, WARMUP_S);
  const ceilingResult = await load(ceiling, ceilingLoad, DURATION_S);
  await load(server, request, WARMUP_S);
  const spent = watchCpu(server.pid);
  const result = await load(server, request, DURATION_S);
  const { serverMs, postgresMs } = perRequest(spent(), result.requestsPerSecond * DURATION_S);
  return {
    ...result,
    ceilingRequestsPerSecond: ceilingResult.requestsPerSecond,
    cpu: { serverMs, postgresMs },
  };
}

async function runCases(options: {
  engine: Engine;
  databaseUrl: string;
  key: string;
  ceiling: ServerProcess;
}): Promise<CaseRow[]> {
  const { engine, databaseUrl, key, ceiling } = options;
  const headers = clientHeaders(key);
  const rows: CaseRow[] = [];
  const cases = benchCases(key);
  for (const cached of [false, true]) {
    const server = await startHadir(serverEnv(databaseUrl, cached));
    try {
      const pageOne: Load = { path: PAGE_ONE_PATH, headers, expectStatus: 200 };
      await load(server, pageOne, SERVER_WARMUP_S);
      for (const benchCase of cases.filter((c) => c.cached === cached)) {
        const request = await benchCase.request(server);
        const row: CaseRow = {
          engine,
          case: benchCase.name,
          cached,
          ...(await measureCase(ceiling, server, request)),
        };
        if (benchCase.name === 'deepest page') {
          row.deepestAgainstPageOne = await inTurn(
            { server, request },
            { server, request: pageOne },
            PAIRS,
          );
        }
        rows.push(row);
        log(
          `  ${engine.padEnd(8)} ${benchCase.name.padEnd(22)} ${Math.round(row.requestsPerSecond).toString().padStart(6)} req/s  p50 ${row.p50Ms} ms  (ceiling ${Math.round(row.ceilingRequestsPerSecond)} req/s)`,
        );
      }
    } finally {
      await server.stop();
    }
  }
  return rows;
}

/** The bytes of page 1 (limit 200) of the big campaign, as Hadir serves them. */
async function firstPage(databaseUrl: string, key: string): Promise<Buffer> {
  const server = await startHadir(serverEnv(databaseUrl, true));
  try {
    const response = await fetch(`${server.url}${PAGE_ONE_PATH}`, { headers: clientHeaders(key) });
    if (!response.ok) throw new Error(`page 1 answered ${response.status}`);
    return Buffer.from(await response.arrayBuffer());
  } finally {
    await server.stop();
  }
}

/**
 * The million-row export imported into an empty database of each engine, as a document and as
 * JSON Lines, each by `hadir import` in a process of its own whose peak memory is followed.
 */
async function runImports(postgresAdminUrl: string, postgresUrl: (name: string) => string) {
  log('Import: a generated million-row export (kept in bench/.data)');
  const files = await importFiles(DATA);
  const rows: ImportRow[] = [];
  const runs = [
    ...(['sqlite', 'postgres'] as const).flatMap((engine) =>
      (['json', 'jsonl'] as const).map((format) => ({
        engine,
        format,
        heap: 'import settings' as const,
      })),
    ),
    // The heap settings switched off: do they still pay?
    { engine: 'sqlite' as const, format: 'json' as const, heap: 'V8 defaults' as const },
  ];
  for (const { engine, format, heap } of runs) {
    {
      let databaseUrl: string;
      if (engine === 'sqlite') {
        const path = join(DATA, 'import', 'import.sqlite');
        rmSync(join(DATA, 'import'), { recursive: true, force: true });
        mkdirSync(join(DATA, 'import'), { recursive: true });
        databaseUrl = `sqlite:${path}`;
      } else {
        await recreateDatabase(postgresAdminUrl, 'hadir_import');
        databaseUrl = postgresUrl('hadir_import');
      }
      const row = await measureImport({ engine, databaseUrl, file: files[format], format, heap });
      rows.push(row);
      log(
        `  ${engine.padEnd(8)} ${format.padEnd(5)} ${heap.padEnd(15)} ${row.records.toLocaleString('en')} records in ${row.seconds.toFixed(0)} s, peak RSS ${Math.round(row.peakRssBytes / 1024 / 1024)} MB`,
      );
    }
  }
  return rows;
}

async function recreateDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name}`);
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
}

/**
 * Ingest: SENDERS senders posting batches of BATCH_ROWS as fast as they are answered, on a
 * PostgreSQL that waits for the disk at each commit (and on SQLite), beside the floor of the same
 * upserts with no HTTP; with --against, the other revision on the same rows in the same run.
 */
async function runIngest(): Promise<void> {
  log(
    `Ingest: ${SENDERS} senders, batches of ${BATCH_ROWS}, ${INGEST_ROWS.toLocaleString('en')} new rows, each at version + 1, then the first versions again, shuffled`,
  );
  const rows: IngestRow[] = [];
  const checks: Record<string, Awaited<ReturnType<typeof checkIngested>>> = {};
  const cluster = await startPostgresCluster({ durable: true });
  try {
    const other = args.against ? prepareCheckout(ROOT, DATA, args.against, log) : undefined;
    const fresh = async (name: string) => {
      await recreateDatabase(cluster.url('postgres'), name);
      return cluster.url(name);
    };
    const sqliteUrl = async (name: string) => {
      mkdirSync(join(DATA, 'sqlite'), { recursive: true });
      const path = join(DATA, 'sqlite', `${name}.sqlite`);
      for (const file of [path, recordPathOf(path)]) {
        for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
      }
      return `sqlite:${path}`;
    };
    for (const engine of ['postgres', 'sqlite'] as const) {
      const url = engine === 'postgres' ? await fresh('hadir_ingest') : await sqliteUrl('ingest');
      const token = await prepareIngest(url);
      if (other) {
        const otherUrl =
          engine === 'postgres' ? await fresh('hadir_ingest_against') : await sqliteUrl('against');
        const otherToken = await prepareIngest(otherUrl);
        // A copy taken back to the migrations that revision knows, with the same token.
        const otherCopy = await prepareOtherDatabase(engine, otherUrl, other, log);
        log(`  ${other.commit.slice(0, 12)}:`);
        rows.push({
          engine,
          revision: other.commit,
          passes: await measureIngest({
            engine,
            databaseUrl: otherCopy,
            token: otherToken,
            root: other.folder,
            log,
          }),
        });
      }
      const passes = await measureIngest({ engine, databaseUrl: url, token, log });
      checks[engine] = await checkIngested(url);
      if (engine === 'postgres') {
        const floor = await measureIngestFloor(await fresh('ingest_floor'), false, log);
        const schemaFloor = await measureIngestFloor(await fresh('ingest_floor'), true, log);
        rows.push({ engine, passes, floor, schemaFloor });
      } else {
        rows.push({ engine, passes });
      }
    }
  } finally {
    await cluster.stop();
  }
  const goals = { rowsPerSecond: 20_000, p99BatchMs: 250, shareOfFloor: 0.5 };
  log(`  held after the passes: ${JSON.stringify(checks)}`);
  const exact = Object.values(checks).every(
    (check) =>
      check.rowsAtLastVersion === INGEST_ROWS && check.answerValues === check.answerValuesExpected,
  );
  if (!exact) process.exitCode = 1;
  writeDated('ingest', goals, { rows, checks });
}

/** One part's result, with its goals, as bench/results/NAME-DAY.json. */
function writeDated(name: string, goals: Record<string, number>, row: unknown): void {
  const day = new Date().toISOString().slice(0, 10);
  writeFileSync(
    join(RESULTS, `${name}-${day}.json`),
    `${JSON.stringify({ goals, rows: [row] }, null, 2)}\n`,
  );
}

async function main(): Promise<void> {
  log('Building the server (npm run build:server)');
  execFileSync('npm', ['run', '--silent', 'build:server'], { cwd: ROOT, stdio: 'inherit' });
  mkdirSync(DATA, { recursive: true });
  // The PostgreSQL cluster in here runs as its own user (when the bench runs as root), which must
  // pass through; the SQLite database keeps a private folder of its own (see file-modes.ts).
  chmodSync(DATA, 0o711);
  mkdirSync(RESULTS, { recursive: true });
  // The SQLite databases' folder: a store is never made in a folder that does not exist.
  mkdirSync(join(DATA, 'sqlite'), { recursive: true, mode: 0o700 });
  const other =
    parts.has('compare') && args.against
      ? prepareCheckout(ROOT, DATA, args.against, log)
      : undefined;
  if (parts.has('notifications')) {
    log('Notifications: an import of 10,000 rows over 20 campaigns, heard by 100 endpoints');
    const cluster = await startPostgresCluster({ keepIn: join(DATA, 'postgres') });
    try {
      await recreateDatabase(cluster.url('postgres'), 'hadir_notify');
      const sqlitePath = join(DATA, 'sqlite', 'notify.sqlite');
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${sqlitePath}${suffix}`, { force: true });
      const rows: NotificationsRow[] = [];
      for (const [engine, databaseUrl] of [
        ['sqlite', `sqlite:${sqlitePath}`],
        ['postgres', cluster.url('hadir_notify')],
      ] as const) {
        rows.push(await measureNotifications({ engine, databaseUrl, log }));
      }
      const day = new Date().toISOString().slice(0, 10);
      writeFileSync(
        join(RESULTS, `notifications-${day}.json`),
        `${JSON.stringify({ goals: { p99Ms: 1000, watchP99Ms: 3000, lost: 0 }, rows }, null, 2)}\n`,
      );
    } finally {
      await cluster.stop();
    }
    // Notifications alone need no seeded million rows.
    if (parts.size === 1) return;
  }
  if (parts.has('partner')) {
    const seconds = Number(process.env.BENCH_PARTNER_SECONDS ?? 120);
    log(
      `Partner mirror: hadir-sync watch on the default budget, a stream through the ingest API for ${seconds} s`,
    );
    const rows = [];
    const rates = (process.env.BENCH_PARTNER_RATES ?? '5,20').split(',').map(Number);
    for (const changesPerSecond of rates) {
      rows.push(await measurePartnerMirror({ changesPerSecond, seconds, log }));
    }
    // The latency goal is the steady stream's (5 a second); a faster one must only converge.
    const goals = { p99Ms: 2500, rateLimited: 0, countedPerMinute: 60, missed: 0, differing: 0 };
    const steady = rows.find((row) => row.changesPerSecond === 5);
    const met =
      (steady === undefined || steady.p99Ms <= goals.p99Ms) &&
      rows.every(
        (row) =>
          row.rateLimited === 0 &&
          row.countedPeakMinute <= goals.countedPerMinute &&
          row.missed === 0 &&
          row.differing === 0,
      );
    log(`Partner mirror goals ${met ? 'met' : 'MISSED'}`);
    if (!met) process.exitCode = 1;
    const day = new Date().toISOString().slice(0, 10);
    writeFileSync(
      join(RESULTS, `partner-mirror-${day}.json`),
      `${JSON.stringify({ goals, rows }, null, 2)}\n`,
    );
    if (parts.size === 1) return;
  }
  if (parts.has('live')) {
    const seconds = Number(process.env.BENCH_LIVE_SECONDS ?? 300);
    log(
      `Live: a platform writing 1,000 changes a second for ${seconds} s, relayed to Hadir on PostgreSQL`,
    );
    const cluster = await startPostgresCluster({ keepIn: join(DATA, 'postgres') });
    try {
      const fresh = async (name: string) => {
        await recreateDatabase(cluster.url('postgres'), name);
        return cluster.url(name);
      };
      const stream = await measureLive({
        hadirUrl: await fresh('hadir_live'),
        platformUrl: await fresh('platform_live'),
        seconds,
        log,
      });
      log('  the same, with the relays and serve killed every minute');
      stream.kills = await measureLiveKills({
        hadirUrl: await fresh('hadir_live'),
        platformUrl: await fresh('platform_live'),
        seconds,
        log,
      });
      log('Ingest rate: 60,000 queued changes drained as fast as they go');
      const rates: IngestRateRow[] = [];
      // Batches in flight at once, to choose INGEST_MAX_CONCURRENT_BATCHES by.
      for (const engine of ['postgres', 'sqlite'] as const) {
        for (const relays of [1, 2, 4, 8]) {
          const sqlitePath = join(DATA, 'sqlite', 'ingest-rate.sqlite');
          for (const suffix of ['', '-wal', '-shm'])
            rmSync(`${sqlitePath}${suffix}`, { force: true });
          rates.push(
            await measureIngestRate({
              engine,
              relays,
              hadirUrl: engine === 'postgres' ? await fresh('hadir_rate') : `sqlite:${sqlitePath}`,
              platformUrl: await fresh('platform_rate'),
              log,
            }),
          );
        }
      }
      const goals = { readableP99Ms: 1000, mirroredP99Ms: 2000, lost: 0, staleOverwrites: 0 };
      const met =
        stream.readable.p99Ms <= goals.readableP99Ms &&
        stream.mirrored.p99Ms <= goals.mirroredP99Ms &&
        stream.mirroredUntimed === 0 &&
        [stream.kills, stream.kills.atHadir].every(
          (held) => held.lost === 0 && held.staleOverwrites === 0 && held.notRemoved === 0,
        );
      log(`Live goals ${met ? 'met' : 'MISSED'}`);
      if (!met) process.exitCode = 1;
      const day = new Date().toISOString().slice(0, 10);
      writeFileSync(
        join(RESULTS, `live-${day}.json`),
        `${JSON.stringify(
          {
            goals,
            stream,
            rates,
          },
          null,
          2,
        )}\n`,
      );
    } finally {
      await cluster.stop();
    }
    if (parts.size === 1) return;
  }
  if (parts.has('ingest')) {
    await runIngest();
    if (parts.size === 1) return;
  }
  if (parts.has('ask')) {
    log('Ask the server: a filtered page against page 1, and the hosted MCP endpoint, 10 agents');
    const rows = [];
    const sqlitePath = join(DATA, 'sqlite', 'ask.sqlite');
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${sqlitePath}${suffix}`, { force: true });
    mkdirSync(join(DATA, 'sqlite'), { recursive: true });
    rows.push(await measureAskServer('sqlite', `sqlite:${sqlitePath}`, log));
    const cluster = await startPostgresCluster({ keepIn: join(DATA, 'postgres') });
    try {
      await recreateDatabase(cluster.url('postgres'), 'hadir_ask');
      rows.push(await measureAskServer('postgres', cluster.url('hadir_ask'), log));
    } finally {
      await cluster.stop();
    }
    const day = new Date().toISOString().slice(0, 10);
    writeFileSync(
      join(RESULTS, `ask-server-${day}.json`),
      `${JSON.stringify({ goals: { filteredOverUnfiltered: 0.5, hostedP95Ms: 100 }, rows }, null, 2)}\n`,
    );
    if (parts.size === 1) return;
  }
  if (parts.has('agents')) {
    log('Agents: hadir-mcp installed from its tarball, and the vegetarian question on the demo');
    const row = await measureAgents(log);
    writeDated('agents', { mcpFirstToolsListMs: 1000, calls: 2, characters: 8000 }, row);
    if (parts.size === 1) return;
  }
  if (parts.has('cli')) {
    log('The CLI: how long a command takes from the shell, on the build');
    writeDated('cli-start', { medianMs: 500 }, measureCliStart(log));
    if (parts.size === 1) return;
  }
  if (parts.has('downloads')) {
    log('Downloads: guest lists from the portal, as Excel and CSV');
    const row = await measureDownloads(log);
    writeDated('downloads', { excel10kP95Ms: 2000, peakRssBytes: 250 * 1024 * 1024 }, row);
    if (parts.size === 1) return;
  }
  if (parts.has('deliveries')) {
    log('Deliveries: 100,000 respondents to a bucket as Parquet and CSV, from a serving process');
    const row = await measureDeliveries(log);
    writeDated(
      'deliveries',
      { seconds: 10, peakRssBytes: 250 * 1024 * 1024, duringOverRestP50: 1.2 },
      row,
    );
    if (parts.size === 1) return;
  }
  if (parts.has('hostile')) {
    log('Hostile receivers: the data API while 200 notifications go to 8 receivers that hold on');
    const sqlitePath = join(DATA, 'sqlite', 'hostile.sqlite');
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${sqlitePath}${suffix}`, { force: true });
    const row = await measureHostileReceivers({ databaseUrl: `sqlite:${sqlitePath}`, log });
    const day = new Date().toISOString().slice(0, 10);
    writeFileSync(
      join(RESULTS, `hostile-receivers-${day}.json`),
      `${JSON.stringify({ goals: { p50Ratio: 1.2 }, rows: [row] }, null, 2)}\n`,
    );
    if (parts.size === 1) return;
  }
  log('Seeding (kept in bench/.data after the first run)');
  const sqliteUrl = `sqlite:${join(DATA, 'sqlite', 'bench.sqlite')}`;
  const keys = { sqlite: await prepare('sqlite', sqliteUrl), postgres: '' };
  const cluster = await startPostgresCluster({ keepIn: join(DATA, 'postgres') });
  try {
    await ensureDatabase(cluster.url('postgres'), 'hadir_bench');
    const postgresUrl = cluster.url('hadir_bench');
    keys.postgres = await prepare('postgres', postgresUrl);
    const urls = { sqlite: sqliteUrl, postgres: postgresUrl };
    const engines: Engine[] = ['sqlite', 'postgres'];
    const page = await firstPage(sqliteUrl, keys.sqlite);
    const started = Date.now();
    if (parts.has('compression')) {
      log('Compression: page 1 as it is, gzip and brotli, with the response cache on and off');
      const rows = [];
      for (const engine of engines) {
        log(`  ${engine}`);
        rows.push(
          ...(await measureCompression({
            engine,
            databaseUrl: urls[engine],
            key: keys[engine],
            seconds: DURATION_S,
            log,
          })),
        );
      }
      writeDated('compression', {}, rows);
      if (parts.size === 1) return;
    }
    if (parts.has('distinct')) {
      log('Distinct pages: page 1 of a campaign drawn at random, Hadir and a conventional server');
      const row = await measureDistinctPages({
        databaseUrl: postgresUrl,
        key: keys.postgres,
        pairs: PAIRS,
        log,
      });
      writeDated('distinct-pages', { throughputRatio: 1.3, cpuRatio: 0.75 }, row);
      if (parts.size === 1) return;
    }
    if (parts.has('traces')) {
      log(
        'Traces: the distinct-pages load without traces and with 10 % sampled to an OTLP receiver',
      );
      const row = await measureTracedPages({
        databaseUrl: postgresUrl,
        key: keys.postgres,
        pairs: PAIRS,
        log,
      });
      writeDated('traces', { throughputRatio: 0.95 }, row);
      if (parts.size === 1) return;
    }
    if (parts.has('disclosures')) {
      log('Disclosure record: what it costs distinct pages and a bucket delivery, and its reports');
      const cost = await measureRecordCost({
        databaseUrl: postgresUrl,
        key: keys.postgres,
        pairs: PAIRS,
        log,
      });
      // A request that waits for its line lets more requests meet in one turn, where they share
      // reads: without turn batching and single flight, what the line itself costs.
      log('  the same, turn batching and single flight off on both');
      const costAlone = await measureRecordCost({
        databaseUrl: postgresUrl,
        key: keys.postgres,
        pairs: PAIRS,
        log,
        env: { SPEEDUPS_OFF: 'turn-batching,single-flight' },
      });
      const delivery = await measureRecordedDelivery(log);
      const sqlitePath = join(DATA, 'sqlite', 'disclosures.sqlite');
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${sqlitePath}${suffix}`, { force: true });
      await recreateDatabase(cluster.url('postgres'), 'hadir_disclosures');
      const reports = [
        await measureReportTimes('sqlite', `sqlite:${sqlitePath}`, log),
        await measureReportTimes('postgres', cluster.url('hadir_disclosures'), log),
      ];
      writeDated(
        'disclosures',
        {
          throughputRatio: 0.95,
          postgresCpuRatio: 1.05,
          deliveryTimeRatio: 1.05,
          respondentReportMs: 1_000,
          keyReportMs: 10_000,
        },
        { cost, costAlone, delivery, reports },
      );
      if (parts.size === 1) return;
    }
    if (parts.has('pgbouncer')) {
      log('PgBouncer: the mixed load at a steady rate, straight to PostgreSQL and through it');
      const row = await measurePgBouncer({ databaseUrl: postgresUrl, key: keys.postgres, log });
      writeDated('pgbouncer', { p50Ratio: 1.1 }, row);
      if (parts.size === 1) return;
    }

    const cases: CaseRow[] = [];
    let postgresPages: PostgresPages | undefined;
    if (parts.has('cases')) {
      const bodyFile = join(tmpdir(), `hadir-ceiling-${process.pid}.json`);
      writeFileSync(bodyFile, page);
      const ceiling = await startCeiling(bodyFile);
      log(`Cases: ${CONNECTIONS} connections, ${DURATION_S} s each, right after the ceiling`);
      try {
        for (const engine of engines) {
          cases.push(
            ...(await runCases({ engine, databaseUrl: urls[engine], key: keys[engine], ceiling })),
          );
        }
      } finally {
        await ceiling.stop();
      }
    }
    if (parts.has('cases') || parts.has('reference')) {
      log('PostgreSQL pages: Hadir, a conventional Fastify + pg server and the bare reference');
      postgresPages = await measurePostgresPages({
        databaseUrl: postgresUrl,
        key: keys.postgres,
        pageBytes: page.length,
        pairs: PAIRS,
        log,
      });
    }
    let memory: MemoryRow[] | undefined;
    if (parts.has('memory')) {
      log('Memory: the mixed load on serve as started, and left to the runtime defaults, in turn');
      memory = [];
      for (const engine of engines) {
        memory.push(
          ...(await measureMemory({
            engine,
            databaseUrl: urls[engine],
            key: keys[engine],
            // A few per cent are read here, on a machine whose speed drifts: five rounds.
            pairs: { ...PAIRS, rounds: 5 },
            log,
          })),
        );
      }
    }
    let ablation: AblationRow[] | undefined;
    if (parts.has('ablation')) {
      log('Ablation: each speed device off against all on, loaded in turn');
      ablation = [];
      for (const engine of engines) {
        ablation.push(
          ...(await runAblation({
            engine,
            databaseUrl: urls[engine],
            cases: benchCases(keys[engine]),
            headers: clientHeaders(keys[engine]),
            ...PAIRS,
            log,
          })),
        );
      }
    }
    if (parts.has('removals')) {
      log(
        `Removals: ${REMOVED} respondents leave; one incremental hadir-sync; removals page against page 1`,
      );
      const removals: RemovalsRow[] = [];
      for (const engine of engines) {
        removals.push(
          await measureRemovals({
            engine,
            databaseUrl: urls[engine],
            key: keys[engine],
            pairs: PAIRS,
            log,
          }),
        );
      }
      const day = new Date().toISOString().slice(0, 10);
      writeFileSync(
        join(RESULTS, `removals-${day}.json`),
        `${JSON.stringify({ removed: REMOVED, limit: LIMIT, rows: removals }, null, 2)}\n`,
      );
    }
    if (parts.has('fullsync')) {
      const ratePerMinute = Number(process.env.BENCH_FULL_SYNC_RATE ?? 240);
      log(
        `Full sync: hadir-sync mirrors ${FULL_SYNC_ROWS} rows at ${ratePerMinute} requests a minute`,
      );
      const row = await measureFullSync({ dataFolder: DATA, ratePerMinute, log });
      const day = new Date().toISOString().slice(0, 10);
      writeFileSync(join(RESULTS, `full-sync-${day}.json`), `${JSON.stringify(row, null, 2)}\n`);
    }
    const imports = parts.has('import')
      ? await runImports(cluster.url('postgres'), (name) => cluster.url(name))
      : undefined;
    let comparison: { against: string; rows: ComparisonRow[] } | undefined;
    let comparisonFailure: unknown;
    // A comparison that fails (the other revision cannot start, say) must not lose the parts
    // measured before it: they are written, and the run fails.
    if (other)
      try {
        log(`Against ${other.commit.slice(0, 12)}: every case, the two revisions loaded in turn`);
        const rows: ComparisonRow[] = [];
        for (const engine of engines) {
          const otherDatabaseUrl = await prepareOtherDatabase(engine, urls[engine], other, log);
          // This revision on a copy made the same way as the other's (see sqliteCopy).
          const selfUrl =
            engine === 'sqlite' ? await sqliteCopy(urls[engine], 'self') : urls[engine];
          rows.push(
            ...(await runComparison({
              engine,
              databaseUrl: selfUrl,
              otherDatabaseUrl,
              otherFolder: other.folder,
              cases: comparedCases(keys[engine]),
              headers: clientHeaders(keys[engine]),
              ...PAIRS,
              log,
            })),
          );
        }
        comparison = { against: other.commit, rows };
      } catch (error) {
        comparisonFailure = error;
        log(`The comparison failed: ${(error as Error).message}`);
      }

    const report = evaluate({
      settings: {
        connections: CONNECTIONS,
        durationSeconds: DURATION_S,
        pageBytes: page.length,
        pairSeconds: PAIRS.seconds,
        pairRounds: PAIRS.rounds,
      },
      cases,
      ...(postgresPages ? { postgresPages } : {}),
      ...(memory ? { memory } : {}),
      ...(ablation ? { ablation } : {}),
      ...(imports ? { imports } : {}),
      ...(comparison ? { comparison } : {}),
    });
    log(`Loaded for ${Math.round((Date.now() - started) / 60_000)} minutes`);
    // A run of some parts only must not replace the full table.
    const name = parts.has('cases') && parts.has('ablation') ? 'latest' : 'partial';
    writeFileSync(join(RESULTS, `${name}.json`), `${JSON.stringify(report, null, 2)}\n`);
    const markdown = renderMarkdown(report);
    writeFileSync(join(RESULTS, `${name}.md`), markdown);
    log('');
    log(markdown);
    log(`Written to bench/results/${name}.json and bench/results/${name}.md`);
    process.exitCode = report.allTargetsMet && comparisonFailure === undefined ? 0 : 1;
  } finally {
    await cluster.stop();
  }
}

await main();
