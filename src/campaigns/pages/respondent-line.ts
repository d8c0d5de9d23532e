import { toIso } from '../../instant.ts';
import type { PositionFormat } from '../../paging/page-cursor.ts';
import type { Projection } from '../field-projection.ts';
import { projectAnswersJson } from './field-cutter.ts';

/**
 * A respondent as the store sends it: one line of text, so a page arrives as a few strings rather
 * than a row object per respondent. `submittedAt,attendanceStatus,"id"`, a unit separator
 * (U+001F), then the answers' JSON text. The id is JSON-quoted by the store; neither a quoted
 * string nor JSON text holds a raw control character, so the separators are unambiguous.
 */

/** Where a respondent line's parts are. */
interface LineParts {
  /** End of the decimal submittedAt. */
  timeEnd: number;
  /** End of the attendance status. */
  statusEnd: number;
  /** The unit separator between the quoted id and the answers. */
  separator: number;
}

const UNIT_SEPARATOR = '\u001f';

/** Between the lines of a page joined as one text; no line holds a raw control character. */
const RECORD_SEPARATOR = '\u001e';

/** A page's lines as one text, to hand them to another thread (see splitLines). */
export function joinLines(lines: readonly string[]): string {
  return lines.join(RECORD_SEPARATOR);
}

/** The lines joined by joinLines. */
export function splitLines(text: string): string[] {
  return text === '' ? [] : text.split(RECORD_SEPARATOR);
}

function partsOf(line: string): LineParts {
  const timeEnd = line.indexOf(',');
  const statusEnd = line.indexOf(',', timeEnd + 1);
  const separator = line.indexOf(UNIT_SEPARATOR, statusEnd + 1);
  if (timeEnd < 1 || statusEnd < 0 || separator < 0) {
    throw new Error('a respondent line from the store is not in the expected form');
  }
  return { timeEnd, statusEnd, separator };
}

/**
 * The id as JSON.stringify writes it. The stores quote ids the same way unless the id needs
 * escapes, where their spellings may differ (e.g. `\u0009` or `\t`): those are re-quoted.
 */
function servedId(quoted: string): string {
  return quoted.includes('\\') ? JSON.stringify(JSON.parse(quoted)) : quoted;
}

/**
 * The served JSON text of the respondent on `line`: the bytes JSON.stringify gives for the
 * Respondent, built from the line's parts without an object per row. Marks served fields.
 */
export function respondentJson(
  line: string,
  projection: Projection,
  served: boolean[],
  quoteJumping = true,
): string {
  const { timeEnd, statusEnd, separator } = partsOf(line);
  const answers = line.slice(separator + 1);
  const fields =
    (quoteJumping ? projectAnswersJson(answers, projection, served) : undefined) ??
    JSON.stringify(projection.project(JSON.parse(answers), served));
  const id = servedId(line.slice(statusEnd + 1, separator));
  const submittedAt = toIso(Number(line.slice(0, timeEnd)));
  const status = line.slice(timeEnd + 1, statusEnd);
  return `{"id":${id},"submittedAt":"${submittedAt}","attendanceStatus":"${status}","fields":${fields}}`;
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
  const { timeEnd, statusEnd, separator } = partsOf(line);
  return {
    submittedAt: Number(line.slice(0, timeEnd)),
    id: JSON.parse(line.slice(statusEnd + 1, separator)) as string,
  };
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
