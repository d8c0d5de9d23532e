/**
 * Lengths of time in milliseconds, each said once. A day is 24 hours: Hadir keeps UTC instants,
 * and a calendar day (Jakarta's, for usage charts) is made from these where it is needed.
 */
export const SECOND_MS = 1_000;
export const MINUTE_MS = 60 * SECOND_MS;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** Asia/Jakarta (WIB) is UTC+7 all year: no daylight saving. */
export const JAKARTA_OFFSET_MS = 7 * HOUR_MS;
