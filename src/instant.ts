import { DAY_MS } from './time-units.ts';

/**
 * ISO-8601 date-time, extended (`2026-11-22T08:00:00.5+07:00`) or basic (`20261122T080000Z`), with
 * a seconds fraction of any length and a mandatory zone (`Z` or an offset of `±HH`, `±HHMM` or
 * `±HH:MM`). A space before the offset stands for `+`: an unencoded `+` in a query string arrives
 * as a space, and nothing else can be meant there.
 */
const ZONE = String.raw`(?:([Zz])|([+\- ])(\d{2})(?::?(\d{2}))?)`;
const EXTENDED = new RegExp(
  String.raw`^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?${ZONE}$`,
);
const BASIC = new RegExp(
  String.raw`^(\d{4})(\d{2})(\d{2})[Tt](\d{2})(\d{2})(?:(\d{2})(?:[.,](\d+))?)?${ZONE}$`,
);

/**
 * Parses an ISO-8601 date-time to epoch milliseconds, or undefined when it is not one. Digits
 * past the millisecond are dropped (rounded down): timestamps are stored to the millisecond, so
 * "strictly after" such an instant and "strictly after its millisecond" select the same rows.
 */
export function parseInstant(text: string): number | undefined {
  const match = EXTENDED.exec(text) ?? BASIC.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second = '0', fraction = '', zulu, sign, offH, offM] =
    match;
  const y = Number(year);
  const mo = Number(month);
  const d = Number(day);
  const h = Number(hour);
  const mi = Number(minute);
  const s = Number(second);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59) {
    return undefined;
  }
  let offsetMinutes = 0;
  if (!zulu) {
    const oh = Number(offH);
    const om = Number(offM ?? '0');
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (sign === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const ms = Number(fraction.padEnd(3, '0').slice(0, 3));
  const utc = Date.UTC(y, mo - 1, d, h, mi, s, ms);
  // Date.UTC maps years 0-99 to 1900-1999; ISO years are literal.
  const shifted = y < 100 ? new Date(utc).setUTCFullYear(y) : utc;
  return shifted - offsetMinutes * 60_000;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

// The date part of the last day formatted: rows of a page mostly share their day.
let lastDay = Number.NaN;
let lastDayPrefix = '';

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/**
 * `new Date(ms).toISOString()`, several times faster for the instants a page is made of: the
 * date part is reused from the previous call on the same day, the time is plain arithmetic.
 */
export function toIso(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms >= 253_402_300_800_000) {
    return new Date(ms).toISOString();
  }
  const day = Math.floor(ms / DAY_MS);
  if (day !== lastDay) {
    lastDay = day;
    lastDayPrefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
  }
  const inDay = ms - day * DAY_MS;
  const millis = inDay % 1000;
  const seconds = Math.floor(inDay / 1000);
  const fraction = millis < 10 ? `00${millis}` : millis < 100 ? `0${millis}` : String(millis);
  return `${lastDayPrefix}${pad2(Math.floor(seconds / 3600))}:${pad2(Math.floor(seconds / 60) % 60)}:${pad2(seconds % 60)}.${fraction}Z`;
}
