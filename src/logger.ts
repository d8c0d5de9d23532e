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

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } });
}
