import autocannon from 'autocannon';
import { type ServerProcess, sampleRss } from './processes.ts';

export const CONNECTIONS = 50;

/** What one load sends: a path on a server, with its headers and the status every answer has. */
export interface Load {
  path: string;
  /** A mixed load: each connection sends these in turn, over and over (path is then the first). */
  mix?: string[];
  headers: Record<string, string>;
  expectStatus: number;
  connections?: number;
  /** Requests per second in all, held steady: an equal load for servers of unequal speed. */
  rate?: number;
  /** Each request's path, drawn anew for every request (a load nothing can share). */
  draw?: () => string;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Failed requests, timeouts and answers of another status. */
  errors: number;
  peakRssBytes: number;
}

/** Loads `server` with `request` for `seconds` (autocannon), sampling the server's memory. */
export async function load(
  server: ServerProcess,
  request: Load,
  seconds: number,
): Promise<LoadResult> {
  const stopSampling = sampleRss(server.pid);
  const result = await autocannon({
    url: `${server.url}${request.path}`,
    connections: request.connections ?? CONNECTIONS,
    duration: seconds,
    headers: request.headers,
    ...(request.rate ? { overallRate: request.rate } : {}),
    ...(request.mix ? { requests: request.mix.map((path) => ({ method: 'GET', path })) } : {}),
    ...(request.draw
      ? {
          requests: [
            {
              method: 'GET',
              setupRequest: (sent: autocannon.Request) => ({
                ...sent,
                path: (request.draw as () => string)(),
              }),
            },
          ],
        }
      : {}),
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

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** Two servers (or two requests) measured side by side: medians of loads taken in turn. */
export interface Pair {
  a: LoadResult;
  b: LoadResult;
  rounds: number;
  /** b's requests per second over a's: above 1, b serves more. */
  ratio: number;
}

function medianOf(results: LoadResult[]): LoadResult {
  return {
    requestsPerSecond: median(results.map((r) => r.requestsPerSecond)),
    p50Ms: median(results.map((r) => r.p50Ms)),
    p99Ms: median(results.map((r) => r.p99Ms)),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
    peakRssBytes: Math.max(...results.map((r) => r.peakRssBytes)),
  };
}

/**
 * Loads `a` then `b`, `rounds` times over, each for `seconds` after a short warm-up of its own.
 * This machine's speed drifts two- to threefold over minutes, so two things are compared from
 * loads taken in turn, never from loads minutes apart.
 */
export async function inTurn(
  a: { server: ServerProcess; request: Load },
  b: { server: ServerProcess; request: Load },
  options: { rounds: number; seconds: number; warmupSeconds: number },
): Promise<Pair> {
  const aResults: LoadResult[] = [];
  const bResults: LoadResult[] = [];
  for (let round = 0; round < options.rounds; round++) {
    for (const [side, results] of [
      [a, aResults],
      [b, bResults],
    ] as const) {
      await load(side.server, side.request, options.warmupSeconds);
      results.push(await load(side.server, side.request, options.seconds));
    }
  }
  const aMedian = medianOf(aResults);
  const bMedian = medianOf(bResults);
  return {
    a: aMedian,
    b: bMedian,
    rounds: options.rounds,
    ratio: bMedian.requestsPerSecond / aMedian.requestsPerSecond,
  };
}
