import { UsageError } from './usage-error.ts';

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Reads `30s`, `5m`, `24h` or `90d` as milliseconds; a bare `0` is none. */
export function parseDuration(text: string, option: string): number {
  if (text.trim() === '0') return 0;
  const match = /^(\d+)([smhd])$/.exec(text.trim());
  if (!match) {
    throw new UsageError(`${option} takes a duration like 0, 30s, 15m, 24h or 90d, got '${text}'`);
  }
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}
