import { toIso } from '../../instant.ts';
import type { PositionFormat } from '../../paging/page-cursor.ts';
import { DAY_MS } from '../../time-units.ts';
import type { Projection } from '../field-projection.ts';
import type { ByteWriter } from './byte-writer.ts';
import { cutAnswers } from './field-cutter.ts';

/**
 * A respondent as the store sends it: one line of text, so a page arrives as a few strings rather
 * than a row object per respondent. `submittedAt,attendanceStatus,"id"`, a unit separator
 * (U+001F), then the answers' JSON text. The id is JSON-quoted by the store; neither a quoted
 * string nor JSON text holds a raw control character, so the separators are unambiguous.
 */

/** Where a respondent line's parts are in the text that holds it. */
export interface LineParts {
  start: number;
  /** End of the decimal submittedAt. */
  timeEnd: number;
  /** End of the attendance status. */
  statusEnd: number;
  /** The unit separator between the quoted id and the answers. */
  separator: number;
  /** Where the line ends: the record separator after it, or the end of the text. */
  end: number;
}

const UNIT_SEPARATOR = '\u001f';

/** Between the lines of a page's text; no line holds a raw control character. */
const RECORD_SEPARATOR = '\u001e';

/** The lines of a page's text. */
export function splitLines(text: string): string[] {
  return text === '' ? [] : text.split(RECORD_SEPARATOR);
}

/** The parts of the line starting at `start` in `text`. */
export function lineParts(text: string, start: number): LineParts {
  let end = text.indexOf(RECORD_SEPARATOR, start);
  if (end < 0) end = text.length;
  const timeEnd = text.indexOf(',', start);
  const statusEnd = text.indexOf(',', timeEnd + 1);
  const separator = text.indexOf(UNIT_SEPARATOR, statusEnd + 1);
  if (timeEnd <= start || statusEnd < 0 || separator < 0 || separator >= end) {
    throw new Error('a respondent line from the store is not in the expected form');
  }
  return { start, timeEnd, statusEnd, separator, end };
}

function partsOf(line: string): LineParts {
  return lineParts(line, 0);
}

/** The submittedAt of a line, read from its digits. */
function submittedAtOf(text: string, line: LineParts): number {
  const negative = text.charCodeAt(line.start) === 0x2d;
  let value = 0;
  for (let at = negative ? line.start + 1 : line.start; at < line.timeEnd; at++) {
    value = value * 10 + text.charCodeAt(at) - 0x30;
  }
  return negative ? -value : value;
}

/** The date part of the last instant written (`2026-11-27T`), as a page's rows share a few days. */
let writtenDay = Number.NaN;
let writtenDayPrefix = '';

/** Writes an instant as toIso does (`2026-11-27T08:00:00.000Z`), digit by digit. */
function writeInstant(ms: number, out: ByteWriter): void {
  if (ms < 0 || ms >= 253_402_300_800_000) {
    out.text(toIso(ms));
    return;
  }
  const day = Math.floor(ms / DAY_MS);
  if (day !== writtenDay) {
    writtenDay = day;
    writtenDayPrefix = toIso(day * DAY_MS).slice(0, 11);
  }
  const inDay = ms - day * DAY_MS;
  const seconds = Math.floor(inDay / 1000);
  out.reserve(24);
  out.range(writtenDayPrefix, 0, 11);
  out.digits(Math.floor(seconds / 3600), 2);
  out.ascii(0x3a);
  out.digits(Math.floor(seconds / 60) % 60, 2);
  out.ascii(0x3a);
  out.digits(seconds % 60, 2);
  out.ascii(0x2e);
  out.digits(inDay % 1000, 3);
  out.ascii(0x5a);
}

/** Whether `text[from, to)` holds a backslash, where `escapes` says whether the text has any. */
function hasBackslash(text: string, from: number, to: number, escapes: boolean): boolean {
  if (!escapes) return false;
  const at = text.indexOf('\\', from);
  return at >= 0 && at < to;
}

/**
 * Writes the served JSON of the respondent on `line` into `out`: the bytes JSON.stringify gives
 * for the Respondent, built from the line's parts without an object per row. Marks served fields.
 * `escapes` says whether the text holds a backslash anywhere (then each row is checked).
 */
export function writeRespondent(
  text: string,
  line: LineParts,
  projection: Projection,
  served: boolean[],
  escapes: boolean,
  quoteJumping: boolean,
  out: ByteWriter,
): void {
  const { statusEnd, separator, end } = line;
  out.text('{"id":');
  // The stores quote ids the same way unless the id needs escapes, where their spellings may
  // differ (e.g. `\u0009` or `\t`): those are quoted again.
  if (hasBackslash(text, statusEnd + 1, separator, escapes)) {
    out.text(JSON.stringify(JSON.parse(text.slice(statusEnd + 1, separator))));
  } else {
    out.reserve(separator - statusEnd);
    out.range(text, statusEnd + 1, separator);
  }
  out.text(',"submittedAt":"');
  writeInstant(submittedAtOf(text, line), out);
  out.text('","attendanceStatus":"');
  out.reserve(statusEnd - line.timeEnd);
  out.range(text, line.timeEnd + 1, statusEnd);
  out.text('","fields":');
  const cut =
    quoteJumping &&
    !hasBackslash(text, separator + 1, end, escapes) &&
    cutAnswers(text, separator + 1, end, projection, served, out);
  if (!cut) {
    const answers = JSON.parse(text.slice(separator + 1, end)) as Record<string, unknown>;
    out.text(JSON.stringify(projection.project(answers, served)));
  }
  out.text('}');
}

/** The respondent's place in the spec order, from its line in `text`. */
export function positionOf(text: string, line: LineParts): Position {
  return {
    submittedAt: submittedAtOf(text, line),
    id: JSON.parse(text.slice(line.statusEnd + 1, line.separator)) as string,
  };
}

/** A respondent as the key may read it, with its time as epoch milliseconds. */
export interface ProjectedRespondent {
  id: string;
  submittedAtMs: number;
  attendanceStatus: string;
  fields: Record<string, string | string[]>;
}

/** The respondent on `line` as an object, its fields picked by `projection`. */
export function projectedRespondent(
  line: string,
  projection: Projection,
  served: boolean[],
): ProjectedRespondent {
  const { timeEnd, statusEnd, separator } = partsOf(line);
  return {
    id: JSON.parse(line.slice(statusEnd + 1, separator)) as string,
    submittedAtMs: Number(line.slice(0, timeEnd)),
    attendanceStatus: line.slice(timeEnd + 1, statusEnd),
    fields: projection.project(JSON.parse(line.slice(separator + 1)), served),
  };
}

/** The respondent's place in the spec order, for cursors and remembered page ends. */
export function linePosition(line: string): Position {
  return positionOf(line, partsOf(line));
}

/** A place in the spec order (submittedAt, id): rows strictly after it come next. */
export interface Position {
  submittedAt: number;
  id: string;
}

/** How a respondents cursor holds its position. */
export const RESPONDENT_POSITIONS: PositionFormat<Position> = {
  list: 'respondents',
  toPair: (position) => [position.submittedAt, position.id],
  fromPair: (submittedAt, id) => ({ submittedAt, id }),
};
