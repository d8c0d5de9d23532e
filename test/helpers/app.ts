import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { inject } from 'vitest';
import type { Engine, Store } from '../../src/db/connect.ts';
import type { DisclosureRecorder } from '../../src/disclosures/disclosure-log.ts';
import type { ConnectionTimeouts } from '../../src/http/connections.ts';
import type { Metrics } from '../../src/http/metrics.ts';
import type { KeyUsage } from '../../src/keys/key-usage.ts';
import { createLoggers } from '../../src/logger.ts';
import type { Mailer } from '../../src/mail/mailer.ts';
import type { Resolver } from '../../src/notifications/webhook-sender.ts';
import type { ServerSecrets } from '../../src/secrets.ts';
import { buildApp } from '../../src/serving/app.ts';
import { assembleServices, type Services } from '../../src/serving/services.ts';
import type { Speedups } from '../../src/speedups.ts';
import { ManualClock } from './clock.ts';
import { createTestStore } from './stores.ts';

export interface TestApp {
  app: FastifyInstance;
  /** What the app serves with (see assembleServices); closed by `close`. */
  services: Services;
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

/**
 * The suite runs twice (see package.json): the second time with HADIR_TEST_REDIS=1, and then
 * rate limits count in the run's redis-server (see global-setup.ts). Each app gets keys of its
 * own, as its in-process counters would be.
 */
async function connectSuiteRedis(): Promise<Redis | undefined> {
  const url = inject('redisServer');
  if (!url) return undefined;
  const redis = new Redis(url, {
    keyPrefix: `test-${randomUUID()}:`,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    lazyConnect: true,
  });
  await redis.connect();
  return redis;
}

/** Fixed secrets for tests; never used outside them. */
export const TEST_SECRETS: ServerSecrets = {
  codeHmacKey: Buffer.alloc(32, 1),
  keySealKey: Buffer.alloc(32, 2),
  cursorKey: Buffer.alloc(32, 3),
};

/** For tests that send no mail: any attempt fails loudly. */
const refusingMailer: Mailer = {
  send: () => Promise.reject(new Error('this test does not expect mail')),
  close: () => {},
};

/** A stream that keeps every JSON line written to it, raw and parsed. */
export function lineCapture() {
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
  return { logs, raw, stream };
}

export function logCapture() {
  const { logs, raw, stream } = lineCapture();
  // The service's own loggers, so tests see the lines production writes.
  return { logs, raw, ...createLoggers('info', stream) };
}

export async function startTestApp(
  engineOrStore: Engine | Store,
  options: {
    rateLimitPerMinute?: number;
    anonymousRateLimitPerMinute?: number;
    clock?: ManualClock;
    mailer?: Mailer;
    addressAttemptsPerMinute?: number;
    /** Lets the portal add endpoints on 127.0.0.1 (receivers in tests). */
    webhooksAllowPrivateNetworks?: boolean;
    /** How the portal resolves an endpoint's host as it is added (none: the URL alone). */
    resolveWebhookHost?: Resolver;
    redis?: Redis;
    metrics?: Metrics;
    responseCacheBytes?: number;
    maxEventLoopDelayMs?: number;
    overloadSampleIntervalMs?: number;
    connectionTimeouts?: Partial<ConnectionTimeouts>;
    maxConnections?: number;
    outageTimings?: { probeIntervalMs?: number; reportIntervalMs?: number };
    trustProxy?: string;
    /** Browser origins the hosted MCP endpoint takes. */
    mcpAllowedOrigins?: string[];
    requireForwardedHttps?: boolean;
    speedups?: Speedups;
    keyUsage?: KeyUsage;
    /** Where the doors record what they hand over (one writing to the store when not given). */
    disclosures?: DisclosureRecorder;
    /** The ingest API on this app, with its bound on batches at once. */
    ingest?: {
      maxConcurrentBatches: number;
      scrubAfterMs?: number;
      refusedTokensPerMinute?: number;
    };
    /** Where holders reach the service (the get-started page shows it). */
    publicUrl?: () => string;
    /** Where the installable client tarballs are. */
    packagesFolder?: string;
  } = {},
): Promise<TestApp> {
  const store =
    typeof engineOrStore === 'string' ? await createTestStore(engineOrStore) : engineOrStore;
  // In the suite's Redis pass every app counts in Redis, unless the test brings its own.
  const suiteRedis = options.redis ? undefined : await connectSuiteRedis();
  const redis = options.redis ?? suiteRedis;
  const clock = options.clock ?? new ManualClock();
  const { logs, logger, accessLogger } = logCapture();
  const services = await assembleServices({
    store,
    clock,
    logger,
    accessLogger,
    secrets: TEST_SECRETS,
    mailer: options.mailer ?? refusingMailer,
    portal: {
      publicUrl: options.publicUrl ?? (() => 'http://127.0.0.1:3000'),
      sessionIdleMs: 30 * 60_000,
      sessionAbsoluteMs: 12 * 3_600_000,
      addressAttemptsPerMinute: options.addressAttemptsPerMinute ?? 100_000,
      webhooksAllowPrivateNetworks: options.webhooksAllowPrivateNetworks ?? false,
      ...(options.resolveWebhookHost ? { resolveWebhookHost: options.resolveWebhookHost } : {}),
    },
    config: {
      rateLimitPerMinute: options.rateLimitPerMinute ?? 100_000,
      anonymousRateLimitPerMinute: options.anonymousRateLimitPerMinute ?? 100_000,
      ...(options.responseCacheBytes !== undefined
        ? { responseCacheBytes: options.responseCacheBytes }
        : {}),
      // The overload guard sheds on the event loop's delay, which a loaded test machine has
      // for reasons of its own: only the tests of the guard give it the production bound.
      maxEventLoopDelayMs: options.maxEventLoopDelayMs ?? 60_000,
      ...(options.maxConnections !== undefined ? { maxConnections: options.maxConnections } : {}),
      ...(options.trustProxy ? { trustProxy: options.trustProxy } : {}),
      ...(options.mcpAllowedOrigins ? { mcpAllowedOrigins: options.mcpAllowedOrigins } : {}),
      ...(options.speedups ? { speedups: options.speedups } : {}),
    },
    ...(options.requireForwardedHttps ? { requireForwardedHttps: true } : {}),
    ...(options.connectionTimeouts ? { connectionTimeouts: options.connectionTimeouts } : {}),
    ...(options.outageTimings ? { outageTimings: options.outageTimings } : {}),
    ...(redis ? { redis } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.keyUsage ? { keyUsage: options.keyUsage } : {}),
    ...(options.disclosures ? { disclosures: options.disclosures } : {}),
    ...(options.ingest ? { ingest: options.ingest } : {}),
    ...(options.packagesFolder ? { packagesFolder: options.packagesFolder } : {}),
    ...(options.overloadSampleIntervalMs
      ? { overloadSampleIntervalMs: options.overloadSampleIntervalMs }
      : {}),
  });
  const app = await buildApp(services);
  return {
    app,
    services,
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
      await services.close();
      await store.close();
      suiteRedis?.disconnect();
    },
  };
}
