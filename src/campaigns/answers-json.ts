import type { Projection } from './field-projection.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const SPACE = 0x20;

/** Thrown inside the scanner when the text is not in the plain served form; never escapes it. */
const NOT_PLAIN = Symbol('not plain');

/**
 * Whether a string's first character is one `String#trim` keeps: then the string is not blank.
 * (Strings starting with any kind of space take the slow path, which trims them properly.)
 */
function startsVisible(code: number): boolean {
  if (code <= SPACE) return false;
  if (code < 0xa0) return true;
  return !(
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/**
 * Projects a respondent's stored answers straight from their JSON text to the JSON text of the
 * served `fields` object, without building objects: the hot path of every page.
 *
 * Answers are stored in served form by the import (non-blank strings and non-empty lists of
 * non-blank strings), as JSON text from SQLite or from PostgreSQL's jsonb (which adds spaces).
 * The scanner accepts exactly that shape with strings free of escapes, and emits the same bytes
 * `JSON.stringify` would; anything else (escapes, numbers, blanks, duplicates) returns undefined
 * and the caller takes the general path, so the result never depends on which path ran.
 */
export function projectAnswersJson(
  text: string,
  projection: Projection,
  served: boolean[],
): string | undefined {
  try {
    return scan(text, projection, served);
  } catch (error) {
    if (error === NOT_PLAIN) return undefined;
    throw error;
  }
}

function scan(text: string, projection: Projection, served: boolean[]): string {
  const positions = projection.positionOf;
  let picked: Array<string | undefined> | undefined;
  const end = text.length;
  let at = skipSpaces(text, 0);
  if (text.charCodeAt(at) !== OPEN_BRACE) throw NOT_PLAIN;
  at = skipSpaces(text, at + 1);
  if (text.charCodeAt(at) === CLOSE_BRACE) return '{}';
  for (;;) {
    const keyEnd = stringEnd(text, at);
    const position = positions.get(text.slice(at + 1, keyEnd));
    at = skipSpaces(text, keyEnd + 1);
    if (text.charCodeAt(at) !== COLON) throw NOT_PLAIN;
    at = skipSpaces(text, at + 1);
    const valueStart = at;
    let compact = true;
    if (text.charCodeAt(at) === QUOTE) {
      at = plainStringEnd(text, at) + 1;
    } else if (text.charCodeAt(at) === OPEN_BRACKET) {
      at += 1;
      if (text.charCodeAt(at) === SPACE) compact = false;
      at = skipSpaces(text, at);
      if (text.charCodeAt(at) === CLOSE_BRACKET) throw NOT_PLAIN;
      for (;;) {
        at = plainStringEnd(text, at) + 1;
        if (text.charCodeAt(at) === SPACE) compact = false;
        at = skipSpaces(text, at);
        const next = text.charCodeAt(at);
        if (next === CLOSE_BRACKET) break;
        if (next !== COMMA) throw NOT_PLAIN;
        if (text.charCodeAt(at + 1) === SPACE) compact = false;
        at = skipSpaces(text, at + 1);
      }
      at += 1;
    } else {
      throw NOT_PLAIN;
    }
    // Only a served key's value is copied; a repeated key keeps its last value, as in JSON.parse.
    if (position !== undefined) {
      const raw = text.slice(valueStart, at);
      picked ??= new Array(projection.fieldKeys.length);
      picked[position] = `"${projection.fieldKeys[position]}":${compact ? raw : compactList(raw)}`;
      served[position] = true;
    }
    at = skipSpaces(text, at);
    const next = text.charCodeAt(at);
    if (next === CLOSE_BRACE) {
      if (skipSpaces(text, at + 1) !== end) throw NOT_PLAIN;
      break;
    }
    if (next !== COMMA) throw NOT_PLAIN;
    at = skipSpaces(text, at + 1);
  }
  if (!picked) return '{}';
  let fields = '';
  for (const member of picked) {
    if (member === undefined) continue;
    fields = fields === '' ? member : `${fields},${member}`;
  }
  return `{${fields}}`;
}

/** `["a", "b"]` (jsonb's spacing) as `["a","b"]`; the strings hold no quotes or escapes. */
function compactList(raw: string): string {
  let out = '';
  let inString = false;
  for (let at = 0; at < raw.length; at++) {
    const code = raw.charCodeAt(at);
    if (code === QUOTE) inString = !inString;
    if (code === SPACE && !inString) continue;
    out += raw[at];
  }
  return out;
}

/** Where a non-blank, escape-free string opening at `from` closes. */
function plainStringEnd(text: string, from: number): number {
  const close = stringEnd(text, from);
  if (close === from + 1 || !startsVisible(text.charCodeAt(from + 1))) throw NOT_PLAIN;
  return close;
}

function skipSpaces(text: string, from: number): number {
  let at = from;
  while (text.charCodeAt(at) === SPACE) at += 1;
  return at;
}

/** The index of the quote closing the string that opens at `from`; escapes are not plain. */
function stringEnd(text: string, from: number): number {
  if (text.charCodeAt(from) !== QUOTE) throw NOT_PLAIN;
  for (let at = from + 1; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) return at;
    if (code === BACKSLASH || code < SPACE) throw NOT_PLAIN;
  }
  throw NOT_PLAIN;
}
