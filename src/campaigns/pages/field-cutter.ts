import type { Projection } from '../field-projection.ts';

const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const SPACE = 0x20;

/**
 * Whether a string's first character is one `String#trim` keeps: then the string is not blank.
 * (Strings starting with any kind of space take the general path, which trims them properly.)
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

/** An allow-list's keys by length, so a key in the text is matched without slicing it out. */
type KeysByLength = Array<Array<{ index: number; key: string }> | undefined>;

const keysByLengthOf = new WeakMap<Projection, KeysByLength>();

function keysByLength(projection: Projection): KeysByLength {
  let table = keysByLengthOf.get(projection);
  if (!table) {
    table = [];
    projection.fieldKeys.forEach((key, index) => {
      const bucket = table?.[key.length] ?? [];
      bucket.push({ index, key });
      (table as KeysByLength)[key.length] = bucket;
    });
    keysByLengthOf.set(projection, table);
  }
  return table;
}

/**
 * Projects a respondent's stored answers straight from their JSON text to the JSON text of the
 * served `fields` object, without building objects: the hot path of every page.
 *
 * Answers are stored in served form by the import: a flat object of non-blank strings and
 * non-empty lists of non-blank strings, as JSON.stringify wrote it (or as jsonb printed it, with a
 * space after each colon and comma, for rows PostgreSQL held as jsonb before migration 0003). In
 * such text without a backslash, every quote opens or closes a string, so the scanner jumps from
 * quote to quote with indexOf.
 * Anything else (escapes, numbers, blanks, nesting, other spacing) returns undefined and the
 * caller takes the general path, so the bytes never depend on which path ran.
 */
export function projectAnswersJson(
  text: string,
  projection: Projection,
  served: boolean[],
): string | undefined {
  if (text.charCodeAt(0) !== OPEN_BRACE || text.includes('\\')) return undefined;
  const keys = keysByLength(projection);
  const picked: Array<string | undefined> = [];
  const last = text.length - 1;
  let at = 1;
  if (text.charCodeAt(at) === CLOSE_BRACE) return at === last ? '{}' : undefined;
  for (;;) {
    // A member: "key": value
    if (text.charCodeAt(at) !== QUOTE) return undefined;
    const keyClose = text.indexOf('"', at + 1);
    if (keyClose < 0) return undefined;
    const index = indexOfKey(keys, text, at + 1, keyClose);
    at = keyClose + 1;
    if (text.charCodeAt(at) !== COLON) return undefined;
    at = skipSpace(text, at + 1);
    const valueStart = at;
    let compact = true;
    if (text.charCodeAt(at) === OPEN_BRACKET) {
      at += 1;
      for (;;) {
        const close = plainStringEnd(text, at);
        if (close < 0) return undefined;
        at = close + 1;
        const next = text.charCodeAt(at);
        if (next === CLOSE_BRACKET) break;
        if (next !== COMMA) return undefined;
        at += 1;
        if (text.charCodeAt(at) === SPACE) {
          compact = false;
          at += 1;
        }
      }
    } else {
      at = plainStringEnd(text, at);
      if (at < 0) return undefined;
    }
    at += 1;
    // A repeated key keeps its last value, as in JSON.parse.
    if (index >= 0) {
      picked[index] = compact ? text.slice(valueStart, at) : compactList(text, valueStart);
      served[index] = true;
    }
    const next = text.charCodeAt(at);
    if (next === CLOSE_BRACE) {
      if (at !== last) return undefined;
      break;
    }
    if (next !== COMMA) return undefined;
    at = skipSpace(text, at + 1);
  }
  const members = projection.memberPrefixes;
  let fields = '';
  for (let index = 0; index < picked.length; index++) {
    const value = picked[index];
    if (value === undefined) continue;
    const member = (members[index] as string) + value;
    fields = fields === '' ? member : `${fields},${member}`;
  }
  return `{${fields}}`;
}

/**
 * The list opening at `from` (plain strings, as the scan found) without the spaces after its
 * commas. Item by item: an item may itself be `, `, and replacing `", "` in the whole text would
 * take that item's quotes for a separator.
 */
function compactList(text: string, from: number): string {
  const items: string[] = [];
  let at = from + 1;
  for (;;) {
    const close = text.indexOf('"', at + 1);
    items.push(text.slice(at, close + 1));
    at = close + 1;
    if (text.charCodeAt(at) === CLOSE_BRACKET) break;
    at = skipSpace(text, at + 1);
  }
  return `[${items.join(',')}]`;
}

function indexOfKey(keys: KeysByLength, text: string, start: number, end: number): number {
  const bucket = keys[end - start];
  if (bucket === undefined) return -1;
  for (const { index, key } of bucket) if (text.startsWith(key, start)) return index;
  return -1;
}

function skipSpace(text: string, at: number): number {
  return text.charCodeAt(at) === SPACE ? at + 1 : at;
}

/** Where the non-blank string opening at `from` closes, or -1 when it is not one. */
function plainStringEnd(text: string, from: number): number {
  if (text.charCodeAt(from) !== QUOTE) return -1;
  const first = text.charCodeAt(from + 1);
  if (first === QUOTE || !startsVisible(first)) return -1;
  return text.indexOf('"', from + 1);
}
