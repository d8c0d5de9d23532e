import pino, { type Logger } from 'pino';

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

/**
 * JSON lines on standard output. Written asynchronously: a busy server's lines share one write
 * instead of costing a system call each (an access line per request adds up); pino flushes what
 * is pending when the process exits.
 */
export function createLogger(level: string): Logger {
  return pino(
    { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } },
    pino.destination({ dest: 1, sync: false }),
  );
}
