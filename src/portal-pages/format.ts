import { jakartaDateTime } from '../jakarta-time.ts';
import type { Language } from './messages.ts';
import { MESSAGES } from './messages.ts';

/** An instant as the holder reads it: Jakarta time with the zone named; "never" for none. */
export function dateTime(language: Language, at: number | null): string {
  if (at === null) return MESSAGES[language].times.never;
  return jakartaDateTime(language, at);
}

const DATES: Record<Language, Intl.DateTimeFormat> = {
  id: new Intl.DateTimeFormat('id-ID', { timeZone: 'Asia/Jakarta', dateStyle: 'medium' }),
  en: new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Jakarta', dateStyle: 'medium' }),
};

/** The Jakarta day of an instant, as "12 Mar 2027". */
export function day(language: Language, at: number): string {
  return DATES[language].format(at);
}

const DAYS: Record<Language, Intl.DateTimeFormat> = {
  id: new Intl.DateTimeFormat('id-ID', { timeZone: 'UTC', day: 'numeric', month: 'short' }),
  en: new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'short' }),
};

/** A calendar day (YYYY-MM-DD, already a Jakarta day) as "23 Nov". */
export function shortDay(language: Language, day: string): string {
  return DAYS[language].format(Date.parse(`${day}T00:00:00Z`));
}

export function count(language: Language, value: number): string {
  return value.toLocaleString(language);
}
