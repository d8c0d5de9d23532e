// npm run bench: seeds (once) a million respondents on SQLite and on a throwaway PostgreSQL
// cluster, measures a plain node:http ceiling, loads each case with autocannon, and writes the
// table to bench/results/latest.json and latest.md.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import pg from 'pg';
import { type Engine, openStore } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { startPostgresCluster } from '../test/helpers/postgres-cluster.ts';
import {
  type ServerProcess,
  sampleRss,
  startCeiling,
  startHadir,
  startStoreRead,
} from './processes.ts';
import {
  type BenchCase,
  evaluate,
  type Measurement,
  renderMarkdown,
  renderTable,
  STORE_READ_CASE,
} from './report.ts';
import { BIG_CAMPAIGN, BIG_CAMPAIGN_ROWS, FIRST_SUBMISSION_MS, seedOnce } from './seed.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const DATA = join(ROOT, 'bench', '.data');
const RESULTS = join(ROOT, 'bench', 'results');
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_S = 2;
/**
 * A fresh server first serves uncached pages this long, unmeasured: its reader threads start and
 * its code is compiled, so the first case is measured in the same steady state as the rest.
 */
const SERVER_WARMUP_S = 10;
const CONNECTIONS = 50;
const LIMIT = 200;
const DEEPEST_PAGE = Math.ceil(BIG_CAMPAIGN_ROWS / LIMIT) - 1;

const log = (line: string) => process.stdout.write(`${line}\n`);

async function prepare(engine: Engine, url: string): Promise<string> {
  const store = openStore(url);
  try {
    await migrateToLatest(store);
    const started = Date.now();
    const manifest = await seedOnce(store, join(DATA, `${engine}.json`), log);
    if (Date.now() - started > 5_000) {
      log(`  ${engine}: seeded in ${Math.round((Date.now() - started) / 1000)} s`);
    }
    // Fresh data or a migration that rewrote a table: statistics for the planner, and on
    // PostgreSQL a visibility map so counting reads the index alone (autovacuum does both in
    // production). Quick when nothing changed.
    await sql.raw(engine === 'postgres' ? 'VACUUM ANALYZE' : 'ANALYZE').execute(store.db);
    return manifest.key;
  } finally {
    await store.close();
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

interface Load {
  path: string;
  headers: Record<string, string>;
  expectStatus: number;
  connections?: number;
}

async function load(server: ServerProcess, request: Load, seconds: number) {
  const stopSampling = sampleRss(server.pid);
  const result = await autocannon({
    url: `${server.url}${request.path}`,
    connections: request.connections ?? CONNECTIONS,
    duration: seconds,
    headers: request.headers,
  });
  const rss = stopSampling();
  const statuses = result.statusCodeStats as unknown as Record<string, { count: number }>;
  const unexpected = Object.entries(statuses)
    .filter(([status]) => Number(status) !== request.expectStatus)
    .reduce((sum, [, { count }]) => sum + count, 0);
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts + unexpected,
    peakRssBytes: rss,
  };
}

/** The ceiling server, loaded right before each case: this machine's speed drifts over minutes. */
let ceilingServer: ServerProcess;

async function measure(
  engine: Engine,
  server: ServerProcess,
  benchCase: BenchCase,
  request: Load,
): Promise<Measurement> {
  const ceilingLoad: Load = { path: '/', headers: {}, expectStatus: 200 };
  await load(ceilingServer, ceilingLoad, WARMUP_S);
  const ceiling = await load(ceilingServer, ceilingLoad, DURATION_S);
  await load(server, request, WARMUP_S);
  const result = await load(server, request, DURATION_S);
  log(
    `  ${engine.padEnd(8)} ${benchCase.padEnd(22)} ${Math.round(result.requestsPerSecond)
      .toString()
      .padStart(
        6,
      )} req/s  p50 ${result.p50Ms} ms  (ceiling ${Math.round(ceiling.requestsPerSecond)} req/s)`,
  );
  return {
    engine,
    case: benchCase,
    ...result,
    ceilingRequestsPerSecond: ceiling.requestsPerSecond,
  };
}

const ALTERNATING_ROUNDS = 3;
const ALTERNATING_SECONDS = 4;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** p50s of two requests loaded in turn for a few short rounds; see Measurement.alternating. */
async function alternate(server: ServerProcess, deepest: Load, pageOne: Load) {
  const deepestP50s: number[] = [];
  const pageOneP50s: number[] = [];
  for (let round = 0; round < ALTERNATING_ROUNDS; round++) {
    deepestP50s.push((await load(server, deepest, ALTERNATING_SECONDS)).p50Ms);
    pageOneP50s.push((await load(server, pageOne, ALTERNATING_SECONDS)).p50Ms);
  }
  return {
    deepestP50Ms: median(deepestP50s),
    pageOneP50Ms: median(pageOneP50s),
    rounds: ALTERNATING_ROUNDS,
  };
}

async function fetchOk(url: string, headers: Record<string, string>): Promise<Response> {
  const response = await fetch(url, { headers });
  if (!response.ok) throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
  return response;
}

async function benchEngine(
  engine: Engine,
  databaseUrl: string,
  key: string,
  pageBytes: number,
): Promise<Measurement[]> {
  const auth = { authorization: `Bearer ${key}` };
  const base = `/developer/v1/campaigns/${BIG_CAMPAIGN}`;
  const sinceMiddle = new Date(FIRST_SUBMISSION_MS + 1_500_000_000).toISOString();
  const measurements: Measurement[] = [];

  // Uncached: every request reads and serialises its rows (the response cache is off).
  const uncached = await startHadir({ DATABASE_URL: databaseUrl, RESPONSE_CACHE_MB: '0' });
  try {
    const pageOnePath = `${base}/respondents?limit=${LIMIT}`;
    const pageOneLoad: Load = { path: pageOnePath, headers: auth, expectStatus: 200 };
    await load(uncached, pageOneLoad, SERVER_WARMUP_S);
    const cases: Array<[BenchCase, string, number?]> = [
      ['page 1', pageOnePath],
      [`page ${DEEPEST_PAGE}`, `${base}/respondents?limit=${LIMIT}&page=${DEEPEST_PAGE}`],
      ['since page', `${base}/respondents?limit=${LIMIT}&since=${sinceMiddle}`],
      ['summary', `${base}/summary`],
      ['summary, 1 connection', `${base}/summary`, 1],
      ['campaign list', '/developer/v1/campaigns'],
    ];
    for (const [name, path, connections] of cases) {
      const measurement = await measure(engine, uncached, name, {
        path,
        headers: auth,
        expectStatus: 200,
        ...(connections ? { connections } : {}),
      });
      if (name === `page ${DEEPEST_PAGE}`) {
        measurement.alternating = await alternate(uncached, { ...pageOneLoad, path }, pageOneLoad);
      }
      measurements.push(measurement);
    }
  } finally {
    await uncached.stop();
  }

  // PostgreSQL sends the rows from another process: reading them and writing a page's bytes
  // already costs a share of this machine, which the reference shows.
  if (engine === 'postgres') {
    const storeRead = await startStoreRead(databaseUrl, BIG_CAMPAIGN, LIMIT, pageBytes);
    try {
      const request: Load = { path: '/', headers: {}, expectStatus: 200 };
      measurements.push({
        ...(await measure(engine, storeRead, STORE_READ_CASE, request)),
        reference: true,
      });
    } finally {
      await storeRead.stop();
    }
  }

  // Cached, as deployed: a repeated page from the body cache, and revalidated with its ETag.
  const cached = await startHadir({ DATABASE_URL: databaseUrl });
  try {
    const path = `${base}/respondents?limit=${LIMIT}&page=2`;
    const etag = (await fetchOk(`${cached.url}${path}`, auth)).headers.get('etag') as string;
    await load(cached, { path, headers: auth, expectStatus: 200 }, SERVER_WARMUP_S);
    measurements.push(
      await measure(engine, cached, 'repeated page', { path, headers: auth, expectStatus: 200 }),
      await measure(engine, cached, 'repeated page, 304', {
        path,
        headers: { ...auth, 'if-none-match': etag },
        expectStatus: 304,
      }),
    );
  } finally {
    await cached.stop();
  }
  return measurements;
}

/** The bytes of page 1 (limit 200) of the big campaign, as Hadir serves them. */
async function firstPage(databaseUrl: string, key: string): Promise<Buffer> {
  const server = await startHadir({ DATABASE_URL: databaseUrl });
  try {
    const url = `${server.url}/developer/v1/campaigns/${BIG_CAMPAIGN}/respondents?limit=${LIMIT}`;
    return Buffer.from(
      await (await fetchOk(url, { authorization: `Bearer ${key}` })).arrayBuffer(),
    );
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  log('Building the server (npm run build:server)');
  execFileSync('npm', ['run', '--silent', 'build:server'], { cwd: ROOT, stdio: 'inherit' });
  mkdirSync(DATA, { recursive: true });
  mkdirSync(RESULTS, { recursive: true });
  log('Seeding (cached in bench/.data after the first run)');
  const sqliteUrl = `sqlite:${join(DATA, 'bench.sqlite')}`;
  const sqliteKey = await prepare('sqlite', sqliteUrl);
  const cluster = await startPostgresCluster({ keepIn: join(DATA, 'postgres') });
  try {
    await ensureDatabase(cluster.url('postgres'), 'hadir_bench');
    const postgresUrl = cluster.url('hadir_bench');
    const postgresKey = await prepare('postgres', postgresUrl);

    const page = await firstPage(sqliteUrl, sqliteKey);
    const bodyFile = join(tmpdir(), `hadir-ceiling-${process.pid}.json`);
    writeFileSync(bodyFile, page);
    ceilingServer = await startCeiling(bodyFile);
    const started = Date.now();
    log(
      `Loading: ${CONNECTIONS} connections, ${DURATION_S} s per case after ${WARMUP_S} s warm-up (${SERVER_WARMUP_S} s for a fresh server), each right after the ceiling`,
    );
    let measurements: Measurement[];
    try {
      measurements = [
        ...(await benchEngine('sqlite', sqliteUrl, sqliteKey, page.length)),
        ...(await benchEngine('postgres', postgresUrl, postgresKey, page.length)),
      ];
    } finally {
      await ceilingServer.stop();
    }

    const report = evaluate(measurements, {
      deepestPage: DEEPEST_PAGE,
      pageBytes: page.length,
      connections: CONNECTIONS,
      durationSeconds: DURATION_S,
      loadSeconds: Math.round((Date.now() - started) / 1000),
    });
    writeFileSync(join(RESULTS, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(RESULTS, 'latest.md'), renderMarkdown(report));
    log('');
    log(renderTable(report));
    log('Written to bench/results/latest.json and bench/results/latest.md');
    process.exitCode = report.allTargetsMet ? 0 : 1;
  } finally {
    await cluster.stop();
  }
}

await main();
