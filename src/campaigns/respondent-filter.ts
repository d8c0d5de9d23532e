import { ATTENDANCE_STATUSES, type AttendanceStatus } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import type { Narrowing } from '../paging/page-query.ts';

/**
 * The filters of the respondents list and the summary (an addition within v1):
 * `attendanceStatus=YES,MAYBE`, `answers[<fieldKey>]=<value>` (repeated: any of the values) and
 * `answers[<fieldKey>][contains]=<text>`. Every test must hold; an answer's test holds when the
 * answer (or one of a multi-select's choices) equals the value, or holds the text, case ignored.
 */
export interface RespondentFilter {
  /** Only these statuses, in the order of ATTENDANCE_STATUSES; undefined for any. */
  statuses: readonly AttendanceStatus[] | undefined;
  tests: readonly AnswerTest[];
}

export interface AnswerTest {
  fieldKey: string;
  match: 'equals' | 'contains';
  /** Any of these, as sent (the store compares them case ignored). */
  values: readonly string[];
}

/** A filter parameter's name: `answers[<fieldKey>]` or `answers[<fieldKey>][contains]`. */
export const ANSWER_PARAMETER = /^answers\[([^[\]]+)\](\[contains\])?$/;
/** The same, as the query schema's pattern. */
export const ANSWER_PARAMETER_PATTERN = ANSWER_PARAMETER.source;

/** The most values the answer tests of one request may hold, so that a cursor stays short. */
export const MAX_FILTER_VALUES = 20;
/** The longest value a test may compare. */
export const MAX_FILTER_VALUE_LENGTH = 100;
/**
 * The most bytes a request's filters may take as its cursor carries them, so that a cursor stays
 * well within the length of a URL every proxy takes (see CursorParam).
 */
export const MAX_NARROWING_BYTES = 1_500;

const STATUS_PARAMETER = 'attendanceStatus';

function refuse(message: string): never {
  throw new ApiError('invalid_parameter', message);
}

/**
 * The filter parameters of a query, each with a canonical text of its value (statuses in one
 * order, values sorted and each once), sorted by name: what a cursor carries, and what a filter
 * sent beside a cursor is compared with.
 */
export function narrowingOf(query: object): Narrowing {
  const parts: Array<[string, string]> = [];
  if (!hasFilter(query)) return parts;
  let values = 0;
  for (const [name, value] of Object.entries(query)) {
    if (name === STATUS_PARAMETER) {
      parts.push([name, statusesOf(String(value)).join(',')]);
    } else if (ANSWER_PARAMETER.test(name)) {
      const sent = [value].flat().map(String);
      // No answer holds a NUL (PostgreSQL's text cannot): refused alike on both stores.
      if (sent.some((text) => text.includes('\u0000'))) {
        refuse(`query parameter '${name}' holds a NUL character, which no answer can hold`);
      }
      values += sent.length;
      parts.push([name, JSON.stringify([...new Set(sent)].sort())]);
    }
  }
  if (values > MAX_FILTER_VALUES) {
    refuse(`the answers filters hold ${values} values; at most ${MAX_FILTER_VALUES} may be sent`);
  }
  const narrowing = parts.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const bytes = Buffer.byteLength(JSON.stringify(narrowing));
  if (bytes > MAX_NARROWING_BYTES) {
    refuse(
      `the filters take ${bytes} bytes; at most ${MAX_NARROWING_BYTES} may be sent (field keys and values together): send fewer or shorter values`,
    );
  }
  return narrowing;
}

/** Whether a query names any filter parameter: most do not, and need no more reading. */
function hasFilter(query: object): boolean {
  for (const name in query) {
    if (name === STATUS_PARAMETER || name.startsWith('answers[')) return true;
  }
  return false;
}

function statusesOf(text: string): AttendanceStatus[] {
  const named = new Set(text.split(','));
  const statuses = ATTENDANCE_STATUSES.filter((status) => named.delete(status));
  if (named.size > 0 || statuses.length === 0) {
    refuse(
      `query parameter '${STATUS_PARAMETER}' must be YES, NO or MAYBE, or a comma list of them, e.g. ${STATUS_PARAMETER}=YES,MAYBE`,
    );
  }
  return statuses;
}

/**
 * The filter a narrowing (a query's, or its cursor's) asks for, each test on a field the key may
 * read (`readable`: its allow-list's fields that the campaign's form has); undefined for none.
 * A test on any other field, whether outside the allow-list, never served or not in the form, is
 * refused in the same words, so that a filter tells a key nothing of a field it may not read.
 */
export function filterOf(
  narrowing: Narrowing,
  readable: ReadonlySet<string>,
): RespondentFilter | undefined {
  if (narrowing.length === 0) return undefined;
  let statuses: AttendanceStatus[] | undefined;
  const tests: AnswerTest[] = [];
  for (const [name, value] of narrowing) {
    if (name === STATUS_PARAMETER) {
      statuses = statusesOf(value);
      continue;
    }
    const [, fieldKey = '', contains] = ANSWER_PARAMETER.exec(name) ?? [];
    if (!readable.has(fieldKey)) {
      refuse(`query parameter '${name}' names no field this key may read in this campaign`);
    }
    tests.push({
      fieldKey,
      match: contains ? 'contains' : 'equals',
      values: JSON.parse(value) as string[],
    });
  }
  return { statuses, tests };
}

/** A filter's identity, for cache keys: equal for equal narrowings. */
export function narrowingIdentity(narrowing: Narrowing): string {
  return narrowing.length === 0 ? '' : JSON.stringify(narrowing);
}
