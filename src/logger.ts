import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * Paths that could hold a secret in any log line. Handlers never log these, but a stray object
 * must not leak one either.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  'password',
  'key',
  'token',
  '*.password',
  '*.token',
  '*.key',
];

export interface Loggers {
  /** Everything the service logs, with REDACTED_PATHS masked. */
  logger: Logger;
  /**
   * The access log's lines (see access-log.ts), to the same destination. They are built from a
   * fixed set of fields (ids, route, field keys, counts) and never carry an object from elsewhere,
   * so they skip the redaction pass, about half of an access line's cost (measured on a 304,
   * where the whole line was a sixth of the request).
   */
  accessLogger: Logger;
}

/**
 * JSON lines on `destination`, by default standard output written asynchronously: a busy
 * server's lines share one write instead of costing a system call each (an access line per
 * request adds up); pino flushes what is pending when the process exits.
 */
export function createLoggers(
  level: string,
  destination: DestinationStream = pino.destination({ dest: 1, sync: false }),
): Loggers {
  return {
    logger: pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, destination),
    accessLogger: pino({ level }, destination),
  };
}
