import { clientHeaders, LIMIT, serverEnv } from './cases.ts';
import { type CpuSplit, measureCpuSplit } from './cpu-split.ts';
import { inTurn, type Load, load, type Pair } from './load.ts';
import { startConventional, startHadir } from './processes.ts';
import { CAMPAIGNS } from './seed.ts';

/** Page 1 of any of the bench's campaigns, drawn at random for each request. */
function drawPageOne(): string {
  const index = Math.floor(Math.random() * CAMPAIGNS);
  return `/developer/v1/campaigns/bench-${String(index).padStart(3, '0')}/respondents?limit=${LIMIT}`;
}

export interface DistinctPages {
  /** a: the conventional Fastify + pg server; b: Hadir as deployed, uncached. */
  pair: Pair;
  cpu: { conventional: CpuSplit; hadir: CpuSplit };
  /** Hadir's throughput over the conventional server's, and its total CPU per request over its. */
  throughputRatio: number;
  cpuRatio: number;
}

/**
 * The mix many partners' keys make: each request reads page 1 of a campaign drawn at random from
 * the bench's 100, so no two requests of one turn can share a read. Hadir (uncached, as the
 * cache would not help either) against the conventional implementation, in turn, and the CPU
 * per request of each: server and PostgreSQL.
 */
export async function measureDistinctPages(options: {
  databaseUrl: string;
  key: string;
  pairs: { rounds: number; seconds: number; warmupSeconds: number; serverWarmupSeconds: number };
  log: (line: string) => void;
}): Promise<DistinctPages> {
  const { databaseUrl, key, pairs, log } = options;
  const request: Load = {
    path: drawPageOne(),
    draw: drawPageOne,
    headers: clientHeaders(key),
    expectStatus: 200,
  };
  const conventional = await startConventional(databaseUrl);
  const hadir = await startHadir(serverEnv(databaseUrl, false));
  try {
    await load(hadir, request, pairs.serverWarmupSeconds);
    await load(conventional, request, pairs.warmupSeconds);
    const pair = await inTurn({ server: conventional, request }, { server: hadir, request }, pairs);
    const cpu = {
      conventional: await measureCpuSplit(conventional, request, pairs.seconds),
      hadir: await measureCpuSplit(hadir, request, pairs.seconds),
    };
    const total = (split: CpuSplit) => split.serverMs + split.postgresMs;
    const cpuRatio = total(cpu.hadir) / total(cpu.conventional);
    log(
      `  distinct page 1s: Hadir ${Math.round(pair.b.requestsPerSecond)} against conventional ${Math.round(pair.a.requestsPerSecond)} req/s (${pair.ratio.toFixed(2)}×); CPU per request ${total(cpu.hadir).toFixed(2)} against ${total(cpu.conventional).toFixed(2)} ms (${cpuRatio.toFixed(2)}×)`,
    );
    for (const [name, split] of Object.entries(cpu)) {
      log(
        `  ${name.padEnd(12)} CPU ms per request: server ${split.serverMs.toFixed(2)}, PostgreSQL ${split.postgresMs.toFixed(2)}`,
      );
    }
    return { pair, cpu, throughputRatio: pair.ratio, cpuRatio };
  } finally {
    await conventional.stop();
    await hadir.stop();
  }
}
