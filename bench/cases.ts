import type { Engine } from '../src/db/connect.ts';
import type { Load } from './load.ts';
import type { ServerProcess } from './processes.ts';
import { BIG_CAMPAIGN, BIG_CAMPAIGN_ROWS, FIRST_SUBMISSION_MS } from './seed.ts';

export const LIMIT = 200;
export const DEEPEST_PAGE = Math.ceil(BIG_CAMPAIGN_ROWS / LIMIT) - 1;

export type CaseName =
  | 'page 1'
  | 'deepest page'
  | 'since page'
  | 'summary'
  | 'summary, 1 connection'
  | 'campaign list'
  | 'repeated page'
  | 'repeated page, 304'
  | 'mixed load'
  | 'mixed load, cached';

/** What a run of paired loads needs: the engine's database, its cases, and how long to load. */
export interface PairedRun {
  engine: Engine;
  databaseUrl: string;
  cases: BenchCase[];
  headers: Record<string, string>;
  rounds: number;
  seconds: number;
  warmupSeconds: number;
  /** A fresh server first serves uncached pages this long, unmeasured: threads up, code compiled. */
  serverWarmupSeconds: number;
  log: (line: string) => void;
}

/** One thing the bench loads, on a server with the response cache off (uncached) or on. */
export interface BenchCase {
  name: CaseName;
  /** Whether the server it runs on keeps the response cache (as deployed) or not. */
  cached: boolean;
  /** The request, for this server (a 304 needs the server's own ETag). */
  request(server: ServerProcess): Promise<Load>;
}

const BASE = `/developer/v1/campaigns/${BIG_CAMPAIGN}`;
export const PAGE_ONE_PATH = `${BASE}/respondents?limit=${LIMIT}`;
const SINCE_MIDDLE = new Date(FIRST_SUBMISSION_MS + 1_500_000_000).toISOString();

/**
 * What a server sees from many clients at once: first, middle and last pages, incremental pages,
 * summaries, the campaign list and field definitions, each connection sending them in turn.
 */
export const MIXED_LOAD = [
  PAGE_ONE_PATH,
  `${BASE}/respondents?limit=${LIMIT}&page=2`,
  `${BASE}/respondents?limit=${LIMIT}&page=${Math.round(DEEPEST_PAGE / 2)}`,
  `${BASE}/respondents?limit=${LIMIT}&page=${DEEPEST_PAGE}`,
  `${BASE}/respondents?limit=${LIMIT}&since=${SINCE_MIDDLE}`,
  `${BASE}/respondents?limit=${LIMIT}&since=${SINCE_MIDDLE}&page=2`,
  `${BASE}/summary`,
  '/developer/v1/campaigns',
  `${BASE}/fields`,
];

/** A client behind the TLS-terminating proxy the bench's production servers trust. */
export function clientHeaders(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}`, 'x-forwarded-proto': 'https' };
}

async function etagOf(server: ServerProcess, path: string, headers: Record<string, string>) {
  const response = await fetch(`${server.url}${path}`, { headers });
  if (!response.ok)
    throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
  return response.headers.get('etag') as string;
}

/** Every case, for a key of the bench's data set. */
export function benchCases(key: string): BenchCase[] {
  const headers = clientHeaders(key);
  const plain = (
    name: CaseName,
    cached: boolean,
    path: string,
    connections?: number,
  ): BenchCase => ({
    name,
    cached,
    request: async () => ({
      path,
      headers,
      expectStatus: 200,
      ...(connections ? { connections } : {}),
    }),
  });
  const repeated = `${BASE}/respondents?limit=${LIMIT}&page=2`;
  const mixed = (name: CaseName, cached: boolean): BenchCase => ({
    name,
    cached,
    request: async () => ({
      path: MIXED_LOAD[0] as string,
      mix: MIXED_LOAD,
      headers,
      expectStatus: 200,
    }),
  });
  return [
    plain('page 1', false, PAGE_ONE_PATH),
    plain('deepest page', false, `${BASE}/respondents?limit=${LIMIT}&page=${DEEPEST_PAGE}`),
    plain('since page', false, `${BASE}/respondents?limit=${LIMIT}&since=${SINCE_MIDDLE}`),
    plain('summary', false, `${BASE}/summary`),
    plain('summary, 1 connection', false, `${BASE}/summary`, 1),
    plain('campaign list', false, '/developer/v1/campaigns'),
    plain('repeated page', true, repeated),
    {
      name: 'repeated page, 304',
      cached: true,
      request: async (server) => ({
        path: repeated,
        headers: { ...headers, 'if-none-match': await etagOf(server, repeated, headers) },
        expectStatus: 304,
      }),
    },
    mixed('mixed load', false),
    mixed('mixed load, cached', true),
  ];
}

/** The environment of a bench server for `engine`'s store, with or without the response cache. */
export function serverEnv(databaseUrl: string, cached: boolean): Record<string, string> {
  return { DATABASE_URL: databaseUrl, ...(cached ? {} : { RESPONSE_CACHE_MB: '0' }) };
}

/**
 * A server process left to V8's and glibc's own memory sizing: a semi-space size or an arena
 * count of 0 asks each for its default, and being given, keeps the CLI from setting its own
 * (src/process-memory.ts). Page threads as many as before they were sized for memory.
 */
export const PROCESS_DEFAULTS = { NODE_OPTIONS: '--max-semi-space-size=0', MALLOC_ARENA_MAX: '0' };

export type { Engine };
