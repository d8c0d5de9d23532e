import type { Projection } from '../field-projection.ts';
import type { ByteWriter } from './byte-writer.ts';

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

/**
 * What the cutter keeps per allow-list: its keys by length and their served prefixes (`"key":`)
 * as bytes, and where each member was found in the row at hand.
 */
interface Cutting {
  keys: KeysByLength;
  prefixes: Uint8Array[];
  /** Per allow-listed key, where its member starts in the text (its key's opening quote). */
  keyStarts: Int32Array;
  /** Where its value starts; -1 when the row has none. */
  starts: Int32Array;
  /** Where it ends (exclusive). */
  ends: Int32Array;
  /** How it is spaced: VERBATIM, or SPACED_LIST / SPACED_COLON bits (as jsonb printed it). */
  spacing: Uint8Array;
}

/** A member written exactly as it is served: `"key":value`, no space anywhere. */
const VERBATIM = 0;
/** A list with a space after its commas. */
const SPACED_LIST = 1;
/** A space after the colon. */
const SPACED_COLON = 2;

const cuttings = new WeakMap<Projection, Cutting>();

function cuttingOf(projection: Projection): Cutting {
  let cutting = cuttings.get(projection);
  if (!cutting) {
    const keys: KeysByLength = [];
    projection.fieldKeys.forEach((key, index) => {
      const bucket = keys[key.length] ?? [];
      bucket.push({ index, key });
      keys[key.length] = bucket;
    });
    const count = projection.fieldKeys.length;
    cutting = {
      keys,
      prefixes: projection.memberPrefixes.map((prefix) => Buffer.from(prefix)),
      keyStarts: new Int32Array(count),
      starts: new Int32Array(count),
      ends: new Int32Array(count),
      spacing: new Uint8Array(count),
    };
    cuttings.set(projection, cutting);
  }
  return cutting;
}

/**
 * Writes the served `fields` object of a respondent's stored answers, `text[from, to)`, straight
 * from their JSON text into `out`, without a string or object per answer: the hot path of every
 * page. Returns false, having written nothing, when the text is not in the form it reads.
 *
 * Answers are stored in served form by the import: a flat object of non-blank strings and
 * non-empty lists of non-blank strings, as JSON.stringify wrote it (or as jsonb printed it, with a
 * space after each colon and comma, for rows PostgreSQL held as jsonb before migration 0003). In
 * such text without a backslash, every quote opens or closes a string, so the scanner jumps from
 * quote to quote with indexOf; the caller has made sure there is no backslash in the range.
 * Anything else (escapes, numbers, blanks, nesting, other spacing) returns false and the caller
 * takes the general path, so the bytes never depend on which path ran.
 */
export function cutAnswers(
  text: string,
  from: number,
  to: number,
  projection: Projection,
  served: boolean[],
  out: ByteWriter,
): boolean {
  if (text.charCodeAt(from) !== OPEN_BRACE) return false;
  const cutting = cuttingOf(projection);
  const { keys, keyStarts, starts, ends, spacing } = cutting;
  starts.fill(-1);
  const last = to - 1;
  let at = from + 1;
  if (text.charCodeAt(at) === CLOSE_BRACE) {
    if (at !== last) return false;
  } else {
    for (;;) {
      // A member: "key": value
      if (text.charCodeAt(at) !== QUOTE) return false;
      const keyStart = at;
      const keyClose = text.indexOf('"', at + 1);
      if (keyClose < 0 || keyClose >= to) return false;
      const index = indexOfKey(keys, text, at + 1, keyClose);
      at = keyClose + 1;
      if (text.charCodeAt(at) !== COLON) return false;
      at = skipSpace(text, at + 1);
      const valueStart = at;
      let compact = true;
      const colonSpaced = valueStart !== keyClose + 2;
      if (text.charCodeAt(at) === OPEN_BRACKET) {
        at += 1;
        for (;;) {
          const close = plainStringEnd(text, at, to);
          if (close < 0) return false;
          at = close + 1;
          const next = text.charCodeAt(at);
          if (next === CLOSE_BRACKET) break;
          if (next !== COMMA) return false;
          at += 1;
          if (text.charCodeAt(at) === SPACE) {
            compact = false;
            at += 1;
          }
        }
      } else {
        at = plainStringEnd(text, at, to);
        if (at < 0) return false;
      }
      at += 1;
      // A repeated key keeps its last value, as in JSON.parse.
      if (index >= 0) {
        keyStarts[index] = keyStart;
        starts[index] = valueStart;
        ends[index] = at;
        spacing[index] = (compact ? VERBATIM : SPACED_LIST) | (colonSpaced ? SPACED_COLON : 0);
      }
      const next = text.charCodeAt(at);
      if (next === CLOSE_BRACE) {
        if (at !== last) return false;
        break;
      }
      if (next !== COMMA) return false;
      at = skipSpace(text, at + 1);
    }
  }
  writeFields(text, from, to, cutting, served, out);
  return true;
}

/**
 * Writes the members found, in allow-list order. Members served verbatim that also follow each
 * other in the stored text (the common case: both in form order) are copied as one run.
 */
function writeFields(
  text: string,
  from: number,
  to: number,
  cutting: Cutting,
  served: boolean[],
  out: ByteWriter,
): void {
  const { prefixes, keyStarts, starts, ends, spacing } = cutting;
  out.reserve(2 + to - from);
  out.ascii(OPEN_BRACE);
  let written = false;
  // The run of verbatim members being gathered, as a range of the text; none while runTo < 0.
  let runFrom = 0;
  let runTo = -1;
  for (let index = 0; index < starts.length; index++) {
    const start = starts[index] as number;
    if (start < 0) continue;
    served[index] = true;
    const end = ends[index] as number;
    const verbatim = spacing[index] === VERBATIM;
    const keyStart = keyStarts[index] as number;
    // Next in the text too, with nothing but a comma between: the run grows.
    if (verbatim && runTo >= 0 && keyStart === runTo + 1) {
      runTo = end;
      continue;
    }
    if (runTo >= 0) {
      if (written) out.ascii(COMMA);
      out.range(text, runFrom, runTo);
      written = true;
      runTo = -1;
    }
    if (verbatim) {
      runFrom = keyStart;
      runTo = end;
      continue;
    }
    if (written) out.ascii(COMMA);
    out.bytes(prefixes[index] as Uint8Array);
    if ((spacing[index] as number) & SPACED_LIST) writeCompactList(text, start, out);
    else out.range(text, start, end);
    written = true;
  }
  if (runTo >= 0) {
    if (written) out.ascii(COMMA);
    out.range(text, runFrom, runTo);
  }
  out.ascii(CLOSE_BRACE);
}

/**
 * Writes the list opening at `from` (plain strings, as the scan found) without the spaces after
 * its commas. Item by item: an item may itself be `, `, and dropping every `", "` in the text
 * would take that item's quotes for a separator. The caller has reserved room for the text.
 */
function writeCompactList(text: string, from: number, out: ByteWriter): void {
  out.ascii(OPEN_BRACKET);
  let at = from + 1;
  for (;;) {
    const close = text.indexOf('"', at + 1);
    out.range(text, at, close + 1);
    at = close + 1;
    if (text.charCodeAt(at) === CLOSE_BRACKET) break;
    out.ascii(COMMA);
    at = skipSpace(text, at + 1);
  }
  out.ascii(CLOSE_BRACKET);
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

/** Where the non-blank string opening at `from` closes before `to`, or -1 when it is not one. */
function plainStringEnd(text: string, from: number, to: number): number {
  if (text.charCodeAt(from) !== QUOTE) return -1;
  const first = text.charCodeAt(from + 1);
  if (first === QUOTE || !startsVisible(first)) return -1;
  const close = text.indexOf('"', from + 1);
  return close < to ? close : -1;
}
