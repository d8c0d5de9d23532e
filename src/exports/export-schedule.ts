import { DAY_MS, HOUR_MS, JAKARTA_OFFSET_MS, MINUTE_MS, SECOND_MS } from '../time-units.ts';

/** How often a delivery runs: each hour on the hour, or each day at a time in Jakarta. */
export type Schedule = { every: '1h' } | { every: '1d'; atMinute: number };

export const EVERY = ['1h', '1d'] as const;

/** `HH:MM` on a 24-hour clock as minutes after midnight, or undefined when it is not one. */
export function minutesOf(text: string): number | undefined {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text);
  return match ? Number(match[1]) * 60 + Number(match[2]) : undefined;
}

/** Minutes after midnight as `HH:MM`. */
export const clockTime = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

const periodOf = (schedule: Schedule) => (schedule.every === '1h' ? HOUR_MS : DAY_MS);

/** The newest slot of the schedule at or before `now`: the instant a run is due for. */
export function slotAt(schedule: Schedule, now: number): number {
  if (schedule.every === '1h') return Math.floor(now / HOUR_MS) * HOUR_MS;
  // Jakarta keeps UTC+7 all year: its midnight is a fixed instant of each UTC day.
  const midnight = Math.floor((now + JAKARTA_OFFSET_MS) / DAY_MS) * DAY_MS - JAKARTA_OFFSET_MS;
  const slot = midnight + schedule.atMinute * MINUTE_MS;
  return slot > now ? slot - DAY_MS : slot;
}

/** The slot after the one at or before `now`. */
export const nextSlotAfter = (schedule: Schedule, now: number) =>
  slotAt(schedule, now) + periodOf(schedule);

/** A run asked for now, not by the schedule: its slot is this second. */
export const slotOfNow = (now: number) => Math.floor(now / SECOND_MS) * SECOND_MS;

/**
 * A run's folder: its slot's UTC time, `2026-11-27T01-00-00Z`, so that a bucket's listing (in
 * byte order) sorts runs by time.
 */
export function runName(runAt: number): string {
  return `${new Date(runAt).toISOString().slice(0, 19).replaceAll(':', '-')}Z`;
}

/** A folder name that is a run's, and nothing else a bucket's prefix may hold. */
export const RUN_NAME = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z$/;

/** The schedule in words, for the CLI and the portal: `every hour`, `every day at 07:00 WIB`. */
export function scheduleText(schedule: Schedule): string {
  return schedule.every === '1h'
    ? 'every hour, on the hour'
    : `every day at ${clockTime(schedule.atMinute)} Asia/Jakarta`;
}
