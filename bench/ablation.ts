import type { Engine } from '../src/db/connect.ts';
import { type CaseName, PAGE_ONE_PATH, type PairedRun, serverEnv } from './cases.ts';
import { inTurn, load, type Pair } from './load.ts';
import { type ServerProcess, startHadir } from './processes.ts';

/**
 * A speed device, the environment that switches it off, and the cases it can change. Each is
 * measured off against all on, on each of those cases, the two servers loaded in turn.
 */
export interface Device {
  name: string;
  off: Record<string, string>;
  cases: CaseName[];
  /** Where the device does nothing at all (remembered reads need SQLite's change stamp). */
  engines?: Engine[];
}

export const DEVICES: Device[] = [
  {
    name: 'quote-jumping cutter',
    off: { SPEEDUPS_OFF: 'quote-jumping-cutter' },
    cases: ['page 1'],
  },
  {
    name: 'turn batching',
    off: { SPEEDUPS_OFF: 'turn-batching' },
    cases: [
      'page 1',
      'mixed load',
      'repeated page',
      'repeated page, 304',
      'summary',
      'campaign list',
    ],
  },
  {
    name: 'remembered reads',
    off: { SPEEDUPS_OFF: 'remembered-reads' },
    cases: ['repeated page', 'repeated page, 304', 'summary', 'campaign list'],
    engines: ['sqlite'],
  },
  {
    name: 'single-flight',
    off: { SPEEDUPS_OFF: 'single-flight' },
    cases: ['repeated page', 'repeated page, 304', 'summary', 'campaign list'],
  },
  {
    name: 'read-ahead',
    off: { SPEEDUPS_OFF: 'read-ahead' },
    cases: ['summary', 'summary, 1 connection', 'repeated page, 304', 'page 1'],
    engines: ['postgres'],
  },
  {
    name: 'response cache',
    off: { RESPONSE_CACHE_MB: '0' },
    cases: ['repeated page', 'repeated page, 304', 'summary'],
  },
];

export interface AblationRow {
  engine: Engine;
  device: string;
  case: CaseName;
  /** a: the device off; b: all on. */
  pair: Pair;
}

/** What a device's row says: the share more that all on serves, and memory with and without. */
export function gain(row: AblationRow): { throughput: number; memory: number } {
  return {
    throughput: row.pair.ratio - 1,
    memory: 1 - row.pair.b.peakRssBytes / row.pair.a.peakRssBytes,
  };
}

/** A device keeps its place where it gains at least this much on some case, in throughput or memory. */
export const EARNS_ITS_PLACE = 0.1;

/** Starts a server and serves uncached pages for a while: threads started, code compiled. */
async function warmServer(
  env: Record<string, string>,
  headers: Record<string, string>,
  seconds: number,
) {
  const server = await startHadir(env);
  await load(server, { path: PAGE_ONE_PATH, headers, expectStatus: 200 }, seconds);
  return server;
}

export async function runAblation(options: PairedRun): Promise<AblationRow[]> {
  const { engine, databaseUrl, cases, headers, log } = options;
  const rows: AblationRow[] = [];
  const allOn = new Map<boolean, ServerProcess>();
  const onServer = async (cached: boolean) => {
    let server = allOn.get(cached);
    if (!server) {
      server = await warmServer(
        serverEnv(databaseUrl, cached),
        headers,
        options.serverWarmupSeconds,
      );
      allOn.set(cached, server);
    }
    return server;
  };
  try {
    for (const device of DEVICES) {
      if (device.engines && !device.engines.includes(engine)) continue;
      const offServers = new Map<boolean, ServerProcess>();
      try {
        for (const name of device.cases) {
          const benchCase = cases.find((c) => c.name === name);
          if (!benchCase) throw new Error(`no bench case ${name}`);
          const on = await onServer(benchCase.cached);
          let off = offServers.get(benchCase.cached);
          if (!off) {
            const env = { ...serverEnv(databaseUrl, benchCase.cached), ...device.off };
            off = await warmServer(env, headers, options.serverWarmupSeconds);
            offServers.set(benchCase.cached, off);
          }
          const pair = await inTurn(
            { server: off, request: await benchCase.request(off) },
            { server: on, request: await benchCase.request(on) },
            options,
          );
          rows.push({ engine, device: device.name, case: name, pair });
          log(
            `  ${engine.padEnd(8)} ${device.name.padEnd(20)} ${name.padEnd(20)} off ${Math.round(pair.a.requestsPerSecond)} / on ${Math.round(pair.b.requestsPerSecond)} req/s (${((pair.ratio - 1) * 100).toFixed(0)} %)`,
          );
        }
      } finally {
        for (const server of offServers.values()) await server.stop();
      }
    }
  } finally {
    for (const server of allOn.values()) await server.stop();
  }
  return rows;
}
