import http from 'node:http';
import type { Engine } from '../src/db/connect.ts';
import { clientHeaders, PAGE_ONE_PATH, serverEnv } from './cases.ts';
import { measureCpuSplit } from './cpu-split.ts';
import { startHadir } from './processes.ts';

const CODINGS = ['identity', 'gzip', 'br'] as const;

export interface CompressionRow {
  engine: Engine;
  /** The response cache as it ships (64 MB), or off: then every answer is compressed anew. */
  cache: 'on' | 'off';
  coding: (typeof CODINGS)[number];
  bytes: number;
  requestsPerSecond: number;
  serverMsPerRequest: number;
}

/** The bytes of one answer as they travel (no decompression on the way). */
function wireBytes(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (response) => {
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
        });
        response.on('end', () => resolve(bytes));
      })
      .on('error', reject);
  });
}

/**
 * Page 1 of the big campaign (200 rows) asked for as it is, gzip and brotli: the bytes of an
 * answer, and requests per second and the server's CPU per request under the bench's load, with
 * the response cache on (a repeated page is compressed once) and off (every answer anew).
 */
export async function measureCompression(options: {
  engine: Engine;
  databaseUrl: string;
  key: string;
  seconds: number;
  log: (line: string) => void;
}): Promise<CompressionRow[]> {
  const rows: CompressionRow[] = [];
  for (const cache of ['on', 'off'] as const) {
    const server = await startHadir(serverEnv(options.databaseUrl, cache === 'on'));
    try {
      for (const coding of CODINGS) {
        const headers = { ...clientHeaders(options.key), 'accept-encoding': coding };
        const bytes = await wireBytes(`${server.url}${PAGE_ONE_PATH}`, headers);
        const split = await measureCpuSplit(
          server,
          { path: PAGE_ONE_PATH, headers, expectStatus: 200 },
          options.seconds,
        );
        const row = {
          engine: options.engine,
          cache,
          coding,
          bytes,
          requestsPerSecond: Math.round(split.requestsPerSecond),
          serverMsPerRequest: Number(split.serverMs.toFixed(3)),
        };
        rows.push(row);
        options.log(
          `  cache ${cache}, ${coding}: ${bytes} bytes, ${row.requestsPerSecond} req/s, ${row.serverMsPerRequest} ms server CPU per request`,
        );
      }
    } finally {
      await server.stop();
    }
  }
  return rows;
}
