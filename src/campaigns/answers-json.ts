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
  const picked: Array<string | undefined> = new Array(projection.fieldKeys.length);
  const seen = new Set<string>();
  const end = text.length;
  let at = skipSpaces(text, 0);
  if (text.charCodeAt(at) !== OPEN_BRACE) throw NOT_PLAIN;
  at = skipSpaces(text, at + 1);
  if (text.charCodeAt(at) === CLOSE_BRACE) return '{}';
  for (;;) {
    const keyEnd = stringEnd(text, at);
    const key = text.slice(at + 1, keyEnd);
    if (seen.has(key)) throw NOT_PLAIN;
    seen.add(key);
    at = skipSpaces(text, keyEnd + 1);
    if (text.charCodeAt(at) !== COLON) throw NOT_PLAIN;
    at = skipSpaces(text, at + 1);
    let value: string;
    if (text.charCodeAt(at) === QUOTE) {
      const valueEnd = stringEnd(text, at);
      if (valueEnd === at + 1 || !startsVisible(text.charCodeAt(at + 1))) throw NOT_PLAIN;
      value = text.slice(at, valueEnd + 1);
      at = valueEnd + 1;
    } else if (text.charCodeAt(at) === OPEN_BRACKET) {
      const items: string[] = [];
      at = skipSpaces(text, at + 1);
      if (text.charCodeAt(at) === CLOSE_BRACKET) throw NOT_PLAIN;
      for (;;) {
        if (text.charCodeAt(at) !== QUOTE) throw NOT_PLAIN;
        const itemEnd = stringEnd(text, at);
        if (itemEnd === at + 1 || !startsVisible(text.charCodeAt(at + 1))) throw NOT_PLAIN;
        items.push(text.slice(at, itemEnd + 1));
        at = skipSpaces(text, itemEnd + 1);
        const next = text.charCodeAt(at);
        if (next === CLOSE_BRACKET) break;
        if (next !== COMMA) throw NOT_PLAIN;
        at = skipSpaces(text, at + 1);
      }
      value = `[${items.join(',')}]`;
      at += 1;
    } else {
      throw NOT_PLAIN;
    }
    const position = positions.get(key);
    if (position !== undefined) {
      picked[position] = `"${key}":${value}`;
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
  let fields = '';
  for (const member of picked) {
    if (member === undefined) continue;
    fields = fields === '' ? member : `${fields},${member}`;
  }
  return `{${fields}}`;
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
