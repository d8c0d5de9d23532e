import { Writable } from 'node:stream';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { buildApp } from '../../src/app.ts';
import type { Engine, Store } from '../../src/db/connect.ts';
import { ManualClock } from './clock.ts';
import { createTestStore } from './stores.ts';

export interface TestApp {
  app: FastifyInstance;
  store: Store;
  clock: ManualClock;
  /** Every log line the app wrote, parsed. */
  logs: Array<Record<string, unknown>>;
  /** GET with a bearer key; the response body parsed as JSON. */
  get(url: string, key?: string, headers?: Record<string, string>): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface TestResponse {
  status: number;
  headers: LightMyRequestResponse['headers'];
  body: any;
  raw: string;
}

export function logCapture() {
  const logs: Array<Record<string, unknown>> = [];
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split('\n')) {
        if (!line) continue;
        raw.push(line);
        logs.push(JSON.parse(line));
      }
      done();
    },
  });
  return {
    logs,
    raw,
    logger: pino({ level: 'info', redact: ['req.headers.authorization'] }, stream),
  };
}

export async function startTestApp(
  engineOrStore: Engine | Store,
  options: {
    rateLimitPerMinute?: number;
    anonymousRateLimitPerMinute?: number;
    clock?: ManualClock;
  } = {},
): Promise<TestApp> {
  const store =
    typeof engineOrStore === 'string' ? await createTestStore(engineOrStore) : engineOrStore;
  const clock = options.clock ?? new ManualClock();
  const { logs, logger } = logCapture();
  const app = await buildApp({
    store,
    clock,
    logger,
    config: {
      rateLimitPerMinute: options.rateLimitPerMinute ?? 100_000,
      anonymousRateLimitPerMinute: options.anonymousRateLimitPerMinute ?? 100_000,
    },
  });
  return {
    app,
    store,
    clock,
    logs,
    async get(url, key, headers = {}) {
      const response = await app.inject({
        method: 'GET',
        url,
        headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
      });
      let body: unknown;
      try {
        body = JSON.parse(response.body);
      } catch {
        body = undefined;
      }
      return { status: response.statusCode, headers: response.headers, body, raw: response.body };
    },
    async close() {
      await app.close();
      await store.close();
    },
  };
}
