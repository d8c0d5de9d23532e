import { clientHeaders, LIMIT, serverEnv } from './cases.ts';
import { type CpuSplit, measureCpuSplit } from './cpu-split.ts';
import { inTurn, type Load, load, type Pair } from './load.ts';
import { startConventional, startHadir, startOtlpSink } from './processes.ts';
import { CAMPAIGNS } from './seed.ts';

/** Page 1 of any of the bench's campaigns, drawn at random for each request. */
function drawPageOne(): string {
  const index = Math.floor(Math.random() * CAMPAIGNS);
  return `/developer/v1/campaigns/bench-${String(index).padStart(3, '0')}/respondents?limit=${LIMIT}`;
}

/** Page 1 of a campaign drawn afresh for each request, with the bench's key. */
const pageOneRequest = (key: string): Load => ({
  path: drawPageOne(),
  draw: drawPageOne,
  headers: clientHeaders(key),
  expectStatus: 200,
});

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
  const request = pageOneRequest(key);
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

export interface TracedPages {
  /** a: Hadir as deployed, uncached; b: the same with traces sampled at 10 %. */
  pair: Pair;
  /** b's throughput over a's: the share traces leave. */
  throughputRatio: number;
}

/**
 * The distinct-pages load on Hadir without traces and with them (OTLP to a receiver that keeps
 * nothing, in a low-priority process of its own, sampled at 10 %), in turn.
 */
export async function measureTracedPages(options: {
  databaseUrl: string;
  key: string;
  pairs: { rounds: number; seconds: number; warmupSeconds: number; serverWarmupSeconds: number };
  log: (line: string) => void;
}): Promise<TracedPages> {
  const { databaseUrl, key, pairs, log } = options;
  const request = pageOneRequest(key);
  const sink = await startOtlpSink();
  const plain = await startHadir(serverEnv(databaseUrl, false));
  const traced = await startHadir({
    ...serverEnv(databaseUrl, false),
    OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
    OTEL_TRACES_SAMPLER_ARG: '0.1',
  });
  try {
    await load(plain, request, pairs.serverWarmupSeconds);
    await load(traced, request, pairs.serverWarmupSeconds);
    const pair = await inTurn({ server: plain, request }, { server: traced, request }, pairs);
    log(
      `  distinct page 1s: ${Math.round(pair.a.requestsPerSecond)} req/s without traces, ${Math.round(pair.b.requestsPerSecond)} with 10 % sampled (${pair.ratio.toFixed(3)}×)`,
    );
    return { pair, throughputRatio: pair.ratio };
  } finally {
    await traced.stop();
    await plain.stop();
    await sink.stop();
  }
}
