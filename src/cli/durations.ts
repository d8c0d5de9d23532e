import { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS } from '../time-units.ts';
import { UsageError } from './usage-error.ts';

const UNIT_MS = { s: SECOND_MS, m: MINUTE_MS, h: HOUR_MS, d: DAY_MS } as const;

/** Reads `30s`, `5m`, `24h` or `90d` as milliseconds; a bare `0` is none. */
export function parseDuration(text: string, option: string): number {
  if (text.trim() === '0') return 0;
  const match = /^(\d+)([smhd])$/.exec(text.trim());
  if (!match) {
    throw new UsageError(`${option} takes a duration like 0, 30s, 15m, 24h or 90d, got '${text}'`);
  }
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}
