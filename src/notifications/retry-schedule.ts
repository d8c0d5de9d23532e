const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * The first attempt goes at once; after each failure the next waits this long (plus or minus
 * JITTER), so a delivery is tried 10 times over about three days before it is given up.
 */
export const RETRY_DELAYS_MS = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  14 * HOUR,
  20 * HOUR,
  24 * HOUR,
] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** Retries spread by up to this share of their delay, so failures of one moment do not return together. */
export const JITTER = 0.1;

/** Days an endpoint may fail without one success before it is disabled. */
export const DISABLE_AFTER_FAILING_DAYS = 5;

/** An endpoint that has failed for this long without one success is disabled. */
export const DISABLE_AFTER_FAILING_MS = DISABLE_AFTER_FAILING_DAYS * 24 * HOUR;

/**
 * When a delivery that has failed `attempts` times is tried next, or undefined when it is given
 * up. `random` is in [0, 1).
 */
export function nextAttemptAt(
  attempts: number,
  failedAt: number,
  random: () => number = Math.random,
): number | undefined {
  const delay = RETRY_DELAYS_MS[attempts - 1];
  if (delay === undefined) return undefined;
  return failedAt + Math.round(delay * (1 + JITTER * (2 * random() - 1)));
}
