import { ConfigError } from './errors.ts';
import { DEFAULT_TIMEOUTS, defaultMaxConnections, openFileLimit } from './http/connections.ts';
import { isSpeedup, SPEEDUPS, Speedups } from './speedups.ts';

/** Everything the process reads from its environment, validated once and then passed down. */
export interface Config {
  readonly databaseUrl: string;
  readonly host: string;
  readonly port: number;
  /** Data-API budget per key (spec, Limits: 120 per minute). */
  readonly rateLimitPerMinute: number;
  /** Budget per client address for requests without a valid key. */
  readonly anonymousRateLimitPerMinute: number;
  readonly logLevel: string;
  /** JSON lines for programs (the default), or one short line each for a person (the demo). */
  readonly logFormat: 'json' | 'text';
  readonly production: boolean;
  /**
   * Whom to believe about the client address (X-Forwarded-For) behind a reverse proxy: `true`
   * or comma-separated proxy addresses or subnets. Off by default.
   */
  readonly trustProxy: boolean | string;
  /**
   * Where holders reach the service, as they type it (https://hadir.example.com): links in mail
   * and the portal's examples use it, never a request's Host header. Required in production; in
   * development the address `serve` listens on.
   */
  readonly publicUrl?: string;
  /**
   * Browser origins that may call the hosted MCP endpoint (https://app.example.com), from the
   * comma list MCP_ALLOWED_ORIGINS; none by default, so only agents that send no Origin may.
   */
  readonly mcpAllowedOrigins: readonly string[];
  /** Respondents of a campaign are deleted this many days after its eventDate (off when unset). */
  readonly retentionDaysAfterEvent?: number;
  /** Tombstones of removed respondents are kept this many days (the removals feed's reach). */
  readonly removalsRetentionDays: number;
  /** Lines of the disclosure record are kept this many days (see docs/privacy.md). */
  readonly disclosuresRetentionDays: number;
  /**
   * No disclosure record is written (DISCLOSURE_RECORD_OFF=1): only to measure what it costs
   * (the bench runs servers as in production); every start says so in its log.
   */
  readonly disclosureRecordOff: boolean;
  /** SMTP server for one-time codes; without it, development mail goes to ./data/outbox. */
  readonly smtpUrl?: string;
  readonly mailFrom: string;
  /** Server secrets (64 hex each); in development generated once under ./data when absent. */
  readonly codeHmacSecret?: string;
  readonly keySealSecret?: string;
  readonly sessionIdleMinutes: number;
  readonly sessionAbsoluteHours: number;
  /** Memory for serialised data responses; 0 turns the response cache off. */
  readonly responseCacheBytes: number;
  /** Shares rate-limit counters between instances, so the limit holds across all of them. */
  readonly redisUrl?: string;
  /** A PostgreSQL replica for data-API reads; writes and the portal use DATABASE_URL. */
  readonly databaseReadUrl?: string;
  /** How far behind DATABASE_READ_URL's replica may be before reads leave it (ms). */
  readonly databaseReadMaxLagMs: number;
  /**
   * PostgreSQL itself, for the one connection that needs a session (the notification worker's
   * LISTEN) when DATABASE_URL names a transaction pooler (`?pgbouncer=true`).
   */
  readonly databaseListenUrl?: string;
  /** Prometheus metrics at /metrics on this port (off when unset), bound to METRICS_HOST. */
  readonly metricsPort?: number;
  readonly metricsHost: string;
  /**
   * The platform's ingest API (/ingest/v1) on a listener of its own, bound to INGEST_HOST, so that
   * it can stay on a private network; on the main listener when unset.
   */
  readonly ingestPort?: number;
  readonly ingestHost: string;
  /** Ingest batches applied at once; one more is answered 429 (see docs/ingesting.md). */
  readonly ingestMaxConcurrentBatches: number;
  /** Server processes on this machine (node:cluster); 1 runs in this process. */
  readonly workers: number;
  /** Event-loop delay (ms) past which data requests are shed with 503 and Retry-After. */
  readonly maxEventLoopDelayMs: number;
  /** Client connections at once per process; past it new ones are refused (see connections.ts). */
  readonly maxConnections: number;
  /** How long an idle keep-alive connection is kept for its next request. */
  readonly keepAliveTimeoutMs: number;
  /** Speed mechanisms switched off, for the benchmark's ablation (see speedups.ts). */
  readonly speedups: Speedups;
  /**
   * Notifications may go to loopback and private addresses, and over plain `http://`
   * (WEBHOOKS_ALLOW_PRIVATE_NETWORKS=1): for development and tests only, refused in production.
   */
  readonly webhooksAllowPrivateNetworks: boolean;
  /**
   * Set by the cluster's primary on the one worker that runs the jobs SQLite wants a single
   * writer for (see src/serving/workers.ts).
   */
  readonly clusterHousekeeper: boolean;
  /** The certificate (chain) and private key `serve` listens with, as PEM files (see transportOf). */
  readonly tls?: { readonly certFile: string; readonly keyFile: string };
}

export const DEFAULT_DATABASE_URL = 'sqlite:./data/hadir.sqlite';
/** Ingest batches applied at once by default (see docs/performance.md, "Ingest, notifications and mirrors"). */
export const DEFAULT_INGEST_CONCURRENT_BATCHES = 4;

/** In the environment of the one cluster worker of a machine that is its housekeeper. */
export const CLUSTER_HOUSEKEEPER = 'HADIR_CLUSTER_HOUSEKEEPER';

/** Days the removals feed reaches back, unless REMOVALS_RETENTION_DAYS says. */
export const DEFAULT_REMOVALS_RETENTION_DAYS = 90;

/**
 * Days the disclosure record is kept, unless DISCLOSURES_RETENTION_DAYS says: a guest who asks
 * after last season's events is still answered in full (docs/privacy.md).
 */
export const DEFAULT_DISCLOSURES_RETENTION_DAYS = 730;

/** The retention settings a configuration names (see retention.ts). */
export function retentionOf(config: Config) {
  return {
    daysAfterEvent: config.retentionDaysAfterEvent,
    removalsDays: config.removalsRetentionDays,
    disclosuresDays: config.disclosuresRetentionDays,
  };
}

/** Memory for serialised pages and summaries, per process, unless RESPONSE_CACHE_MB says. */
export const DEFAULT_RESPONSE_CACHE_MB = 64;

/** Event-loop delay past which data requests are shed with 503 rather than queued. */
export const DEFAULT_MAX_EVENT_LOOP_DELAY_MS = 1000;

const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/** RESPONSE_CACHE_MB, checked; also read before start-up (see process-memory.ts). */
export function readResponseCacheMb(env: NodeJS.ProcessEnv): number {
  return readInteger(env, 'RESPONSE_CACHE_MB', DEFAULT_RESPONSE_CACHE_MB, 0, 4096);
}

/** The only reader of `process.env`; throws a `ConfigError` naming the variable that is wrong. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!LOG_LEVELS.has(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${[...LOG_LEVELS].join(', ')}`);
  }
  const workers = readInteger(env, 'WORKERS', 1, 1, 64);
  const webhooksAllowPrivateNetworks = readFlag(env, 'WEBHOOKS_ALLOW_PRIVATE_NETWORKS');
  if (webhooksAllowPrivateNetworks && env.NODE_ENV === 'production') {
    throw new ConfigError(
      'WEBHOOKS_ALLOW_PRIVATE_NETWORKS is for development and tests only; unset it in production',
    );
  }
  return Object.freeze({
    databaseUrl: env.DATABASE_URL || DEFAULT_DATABASE_URL,
    host: env.HOST || '127.0.0.1',
    port: readInteger(env, 'PORT', 3000, 0, 65535),
    rateLimitPerMinute: readInteger(env, 'RATE_LIMIT_PER_MINUTE', 120, 1, 1_000_000_000),
    anonymousRateLimitPerMinute: readInteger(
      env,
      'ANONYMOUS_RATE_LIMIT_PER_MINUTE',
      60,
      1,
      1_000_000_000,
    ),
    logLevel,
    logFormat: readLogFormat(env),
    production: env.NODE_ENV === 'production',
    trustProxy: readTrustProxy(env.TRUST_PROXY),
    ...(env.PUBLIC_URL ? { publicUrl: readPublicUrl(env.PUBLIC_URL) } : {}),
    mcpAllowedOrigins: readOrigins(env.MCP_ALLOWED_ORIGINS),
    ...(env.RETENTION_DAYS_AFTER_EVENT
      ? {
          retentionDaysAfterEvent: readInteger(env, 'RETENTION_DAYS_AFTER_EVENT', 0, 1, 36_500),
        }
      : {}),
    removalsRetentionDays: readInteger(
      env,
      'REMOVALS_RETENTION_DAYS',
      DEFAULT_REMOVALS_RETENTION_DAYS,
      1,
      36_500,
    ),
    disclosuresRetentionDays: readInteger(
      env,
      'DISCLOSURES_RETENTION_DAYS',
      DEFAULT_DISCLOSURES_RETENTION_DAYS,
      1,
      36_500,
    ),
    disclosureRecordOff: readFlag(env, 'DISCLOSURE_RECORD_OFF'),
    ...(env.SMTP_URL ? { smtpUrl: env.SMTP_URL } : {}),
    mailFrom: env.MAIL_FROM || 'Hadir <no-reply@hadir.local>',
    ...(env.CODE_HMAC_SECRET ? { codeHmacSecret: env.CODE_HMAC_SECRET } : {}),
    ...(env.KEY_SEAL_SECRET ? { keySealSecret: env.KEY_SEAL_SECRET } : {}),
    sessionIdleMinutes: readInteger(env, 'SESSION_IDLE_MINUTES', 30, 1, 24 * 60),
    sessionAbsoluteHours: readInteger(env, 'SESSION_ABSOLUTE_HOURS', 12, 1, 24 * 30),
    responseCacheBytes: readResponseCacheMb(env) * 1024 * 1024,
    ...(env.REDIS_URL ? { redisUrl: readRedisUrl(env.REDIS_URL) } : {}),
    ...(env.DATABASE_READ_URL ? { databaseReadUrl: readReplicaUrl(env.DATABASE_READ_URL) } : {}),
    databaseReadMaxLagMs: readInteger(env, 'DATABASE_READ_MAX_LAG_SECONDS', 5, 1, 3600) * 1000,
    ...(env.DATABASE_LISTEN_URL
      ? { databaseListenUrl: readPostgresUrl('DATABASE_LISTEN_URL', env.DATABASE_LISTEN_URL) }
      : {}),
    ...(env.METRICS_PORT ? { metricsPort: readInteger(env, 'METRICS_PORT', 0, 0, 65535) } : {}),
    metricsHost: env.METRICS_HOST || '127.0.0.1',
    ...(env.INGEST_PORT ? { ingestPort: readInteger(env, 'INGEST_PORT', 0, 0, 65535) } : {}),
    ingestHost: env.INGEST_HOST || '127.0.0.1',
    ingestMaxConcurrentBatches: readInteger(
      env,
      'INGEST_MAX_CONCURRENT_BATCHES',
      DEFAULT_INGEST_CONCURRENT_BATCHES,
      1,
      256,
    ),
    workers,
    maxEventLoopDelayMs: readInteger(
      env,
      'MAX_EVENT_LOOP_DELAY_MS',
      DEFAULT_MAX_EVENT_LOOP_DELAY_MS,
      10,
      60_000,
    ),
    maxConnections: readInteger(
      env,
      'MAX_CONNECTIONS',
      defaultMaxConnections(openFileLimit()),
      1,
      Number.MAX_SAFE_INTEGER,
    ),
    ...readTls(env),
    webhooksAllowPrivateNetworks,
    clusterHousekeeper: env[CLUSTER_HOUSEKEEPER] === '1',
    speedups: readSpeedups(env.SPEEDUPS_OFF),
    keepAliveTimeoutMs:
      readInteger(env, 'KEEP_ALIVE_TIMEOUT_SECONDS', DEFAULT_TIMEOUTS.keepAliveMs / 1000, 1, 3600) *
      1000,
  });
}

/** A switch: 1 or true turns it on, 0, false or unset off; anything else is refused. */
function readFlag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw new ConfigError(`${name} must be 1 or 0, got '${raw}'`);
}

function readInteger(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got '${raw}'`);
  }
  return value;
}

function readSpeedups(raw: string | undefined): Speedups {
  const names = (raw ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.find((name) => !isSpeedup(name));
  if (unknown !== undefined) {
    throw new ConfigError(`SPEEDUPS_OFF names ${unknown}; known: ${SPEEDUPS.join(', ')}`);
  }
  return new Speedups(names.filter(isSpeedup));
}

function readTls(env: NodeJS.ProcessEnv): Pick<Config, 'tls'> {
  const certFile = env.TLS_CERT_FILE || undefined;
  const keyFile = env.TLS_KEY_FILE || undefined;
  if (certFile && keyFile) return { tls: { certFile, keyFile } };
  if (certFile || keyFile) {
    throw new ConfigError(
      `TLS_CERT_FILE and TLS_KEY_FILE go together: ${certFile ? 'TLS_KEY_FILE' : 'TLS_CERT_FILE'} is missing`,
    );
  }
  return {};
}

function readPublicUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(
      `PUBLIC_URL must be an address such as https://hadir.example.com, got '${raw}'`,
    );
  }
  if (
    !['http:', 'https:'].includes(url.protocol) ||
    url.pathname !== '/' ||
    url.search ||
    url.hash
  ) {
    throw new ConfigError(`PUBLIC_URL must be http(s)://host[:port] with no path, got '${raw}'`);
  }
  return url.origin;
}

function readRedisUrl(raw: string): string {
  if (!/^rediss?:\/\//.test(raw)) {
    throw new ConfigError(`REDIS_URL must start with redis:// or rediss://, got '${raw}'`);
  }
  return raw;
}

function readPostgresUrl(name: string, raw: string): string {
  if (!/^postgres(ql)?:\/\//.test(raw)) {
    throw new ConfigError(`${name} must be a postgres:// URL, straight to PostgreSQL`);
  }
  return raw;
}

function readReplicaUrl(raw: string): string {
  if (!/^postgres(ql)?:\/\//.test(raw)) {
    throw new ConfigError('DATABASE_READ_URL must be a postgres:// URL (a PostgreSQL replica)');
  }
  return raw;
}

function readTrustProxy(raw: string | undefined): boolean | string {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  return raw === 'true' ? true : raw;
}

/** The server secrets named by the configuration (see secrets.ts for the development fallback). */

function readLogFormat(env: NodeJS.ProcessEnv): 'json' | 'text' {
  const format = env.LOG_FORMAT ?? 'json';
  if (format !== 'json' && format !== 'text') {
    throw new ConfigError(`LOG_FORMAT must be json or text, got '${format}'`);
  }
  return format;
}

/** MCP_ALLOWED_ORIGINS: origins as browsers send them (scheme://host[:port]), comma-separated. */
function readOrigins(raw: string | undefined): readonly string[] {
  if (!raw?.trim()) return [];
  return raw.split(',').map((text) => {
    const origin = text.trim();
    let url: URL | undefined;
    try {
      url = new URL(origin);
    } catch {}
    if (!url || url.origin !== origin || !['http:', 'https:'].includes(url.protocol)) {
      throw new ConfigError(
        `MCP_ALLOWED_ORIGINS must list origins such as https://app.example.com (scheme, host and port, no path), got '${origin}'`,
      );
    }
    return origin;
  });
}
