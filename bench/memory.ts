import {
  clientHeaders,
  type Engine,
  MIXED_LOAD,
  PAGE_ONE_PATH,
  PROCESS_DEFAULTS,
  serverEnv,
} from './cases.ts';
import { measureCpuSplit } from './cpu-split.ts';
import { inTurn, type Load, load, median, type Pair } from './load.ts';
import { startHadir } from './processes.ts';

/** The mixed load on a server with the memory settings (b) and one with the runtime's own (a). */
export interface MemoryRow {
  engine: Engine;
  cached: boolean;
  pair: Pair;
  /** Server and PostgreSQL CPU per request, in ms (medians of loads in turn): a, then b. */
  cpuMs: [number, number];
}

/**
 * Whether the memory settings `serve` starts with (src/process-memory.ts) hold its peak within
 * bounds at little cost: two servers of one engine, one as the CLI starts it and one left to
 * V8's and glibc's defaults, loaded in turn with the mixed load, without and with the cache.
 */
export async function measureMemory(options: {
  engine: Engine;
  databaseUrl: string;
  key: string;
  pairs: { rounds: number; seconds: number; warmupSeconds: number; serverWarmupSeconds: number };
  log: (line: string) => void;
}): Promise<MemoryRow[]> {
  const { engine, databaseUrl, key, pairs, log } = options;
  const headers = clientHeaders(key);
  const mixed: Load = {
    path: MIXED_LOAD[0] as string,
    mix: MIXED_LOAD,
    headers,
    expectStatus: 200,
  };
  const rows: MemoryRow[] = [];
  for (const cached of [false, true]) {
    const env = serverEnv(databaseUrl, cached);
    const defaults = await startHadir({ ...env, ...PROCESS_DEFAULTS });
    const settings = await startHadir(env);
    try {
      for (const server of [defaults, settings]) {
        await load(
          server,
          { path: PAGE_ONE_PATH, headers, expectStatus: 200 },
          pairs.serverWarmupSeconds,
        );
      }
      const pair = await inTurn(
        { server: defaults, request: mixed },
        { server: settings, request: mixed },
        pairs,
      );
      // CPU per request is steadier here than requests per second: medians of loads in turn.
      const cpu: [number[], number[]] = [[], []];
      for (let round = 0; round < pairs.rounds; round++) {
        for (const [index, server] of [defaults, settings].entries()) {
          const split = await measureCpuSplit(server, mixed, pairs.seconds);
          cpu[index]?.push(split.serverMs + split.postgresMs);
        }
      }
      const cpuMs: [number, number] = [median(cpu[0]), median(cpu[1])];
      rows.push({ engine, cached, pair, cpuMs });
      const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
      log(
        `  ${engine.padEnd(8)} mixed${cached ? ', cached' : ''}: peak ${mb(pair.b.peakRssBytes)} MB against ${mb(pair.a.peakRssBytes)} MB with the defaults, ${Math.round(pair.b.requestsPerSecond)} against ${Math.round(pair.a.requestsPerSecond)} req/s, ${cpuMs[1].toFixed(3)} against ${cpuMs[0].toFixed(3)} CPU ms per request`,
      );
    } finally {
      await defaults.stop();
      await settings.stop();
    }
  }
  return rows;
}
