import { readFileSync } from 'node:fs';

/**
 * How long clients may hold a connection without doing their part. Each timeout frees a file
 * descriptor that a slow or idle client would otherwise keep, and with them a flood of half-sent
 * requests drains away by itself instead of starving the process.
 */
export interface ConnectionTimeouts {
  /** For the request line and headers to arrive (slowloris). */
  headersMs: number;
  /** For the whole request to arrive; bodies here are a few kilobytes at most. */
  requestMs: number;
  /** For an idle keep-alive connection to send its next request. */
  keepAliveMs: number;
  /** For any traffic at all on a socket, either way (a client that stops reading its answer). */
  idleSocketMs: number;
}

export const DEFAULT_TIMEOUTS: ConnectionTimeouts = {
  headersMs: 10_000,
  requestMs: 30_000,
  // Above the idle timeout of common load balancers and proxies (60 s), so they never send a
  // request on a connection this side is closing.
  keepAliveMs: 65_000,
  idleSocketMs: 60_000,
};

/**
 * How often Node checks the headers and request timeouts. Its default, 30 s, would let a
 * 10-second headers timeout run for up to 40.
 */
export const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/** Descriptors kept for everything but client connections: pools, SQLite files, threads, logs. */
const RESERVED_DESCRIPTORS = 256;

/** The open-file limit this process may use (its soft limit), when the system says. */
export function openFileLimit(limitsFile = '/proc/self/limits'): number | undefined {
  try {
    const line = readFileSync(limitsFile, 'utf8')
      .split('\n')
      .find((row) => row.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    if (soft === 'unlimited') return Number.MAX_SAFE_INTEGER;
    const value = Number(soft);
    return Number.isInteger(value) && value > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Client connections allowed at once unless MAX_CONNECTIONS says: safely below the open-file
 * limit, so that a flood is refused at the door instead of leaving the process without a
 * descriptor for its database, its threads or its own files. Where the limit is unknown, the
 * common default of 1024 is assumed.
 */
export function defaultMaxConnections(limit: number | undefined): number {
  const files = limit ?? 1024;
  return Math.max(Math.floor(files / 2), files - RESERVED_DESCRIPTORS);
}
