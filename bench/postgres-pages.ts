import { clientHeaders, DEEPEST_PAGE, LIMIT, PAGE_ONE_PATH, serverEnv } from './cases.ts';
import { type CpuSplit, measureCpuSplit } from './cpu-split.ts';
import { inTurn, type Load, load, type Pair } from './load.ts';
import { CONVENTIONAL_POOL, startConventional, startHadir, startStoreRead } from './processes.ts';
import { BIG_CAMPAIGN } from './seed.ts';

/**
 * Uncached PostgreSQL pages of four servers: Hadir, as deployed and with one read per request
 * (turn batching off); a conventional Fastify + pg implementation
 * (a: in each pair); and the bare reference, which runs the page query and writes its text with
 * nothing else, so that its PostgreSQL CPU is the page query's alone.
 */
export interface PostgresPages {
  pageOne: Pair;
  /** Page 1 on Hadir with turn batching off: one read per request, shared with none. */
  pageOnePerRead: Pair;
  deepestPage: Pair;
  cpu: { reference: CpuSplit; conventional: CpuSplit; hadir: CpuSplit; hadirPerRead: CpuSplit };
}

export async function measurePostgresPages(options: {
  databaseUrl: string;
  key: string;
  pageBytes: number;
  pairs: { rounds: number; seconds: number; warmupSeconds: number; serverWarmupSeconds: number };
  log: (line: string) => void;
}): Promise<PostgresPages> {
  const { databaseUrl, key, pageBytes, pairs, log } = options;
  const headers = clientHeaders(key);
  const pageOne: Load = { path: PAGE_ONE_PATH, headers, expectStatus: 200 };
  // The conventional server's OFFSET reads half a million rows per request: with 50 connections
  // on its pool of 10, none would finish within a load. As many connections as its pool, then.
  const deepest: Load = {
    path: `${PAGE_ONE_PATH}&page=${DEEPEST_PAGE}`,
    headers,
    expectStatus: 200,
    connections: CONVENTIONAL_POOL,
  };
  const reference = await startStoreRead(databaseUrl, BIG_CAMPAIGN, LIMIT, pageBytes);
  const conventional = await startConventional(databaseUrl);
  const hadir = await startHadir(serverEnv(databaseUrl, false));
  const hadirPerRead = await startHadir({
    ...serverEnv(databaseUrl, false),
    SPEEDUPS_OFF: 'turn-batching',
  });
  try {
    await load(hadir, pageOne, pairs.serverWarmupSeconds);
    await load(hadirPerRead, pageOne, pairs.serverWarmupSeconds);
    await load(conventional, pageOne, pairs.warmupSeconds);
    const pageOnePair = await inTurn(
      { server: conventional, request: pageOne },
      { server: hadir, request: pageOne },
      pairs,
    );
    const perReadPair = await inTurn(
      { server: conventional, request: pageOne },
      { server: hadirPerRead, request: pageOne },
      pairs,
    );
    const deepestPair = await inTurn(
      { server: conventional, request: deepest },
      { server: hadir, request: deepest },
      pairs,
    );
    const root: Load = { path: '/', headers: {}, expectStatus: 200 };
    const cpu = {
      reference: await measureCpuSplit(reference, root, pairs.seconds),
      conventional: await measureCpuSplit(conventional, pageOne, pairs.seconds),
      hadir: await measureCpuSplit(hadir, pageOne, pairs.seconds),
      hadirPerRead: await measureCpuSplit(hadirPerRead, pageOne, pairs.seconds),
    };
    log(
      `  postgres page 1: Hadir ${Math.round(pageOnePair.b.requestsPerSecond)} against conventional ${Math.round(pageOnePair.a.requestsPerSecond)} req/s (${pageOnePair.ratio.toFixed(2)}×; one read per request ${perReadPair.ratio.toFixed(2)}×); deepest page ${deepestPair.ratio.toFixed(1)}×`,
    );
    for (const [name, split] of Object.entries(cpu)) {
      log(
        `  ${name.padEnd(12)} CPU ms per request: server ${split.serverMs.toFixed(2)}, PostgreSQL ${split.postgresMs.toFixed(2)}, load ${split.loadMs.toFixed(2)}`,
      );
    }
    return { pageOne: pageOnePair, pageOnePerRead: perReadPair, deepestPage: deepestPair, cpu };
  } finally {
    await reference.stop();
    await conventional.stop();
    await hadir.stop();
    await hadirPerRead.stop();
  }
}
