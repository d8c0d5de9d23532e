import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import {
  type ParsedElementInfo,
  type ParsedTokenInfo,
  Tokenizer,
  TokenParser,
  TokenType,
} from '@streamparser/json';
import { isRecordId, RECORD_ID_RULE } from '../record-ids.ts';
import { isObject, shown } from './import-records.ts';
import { lineProblem } from './record-schemas.ts';

/**
 * One thing read from an import file: a record with its place in the file (`respondents[5]`,
 * `line 12`), or a problem of the file itself (not JSON, a list that is not a list).
 */
export type ImportItem =
  | {
      kind: 'campaign' | 'respondent';
      place: string;
      record: unknown;
      /** A JSON Lines record the published schema refuses: why (see lineProblem). */
      unlike?: string;
    }
  | { kind: 'problem'; where: string; what: string };

const LISTS = { campaigns: 'campaign', respondents: 'respondent' } as const;
type ListName = keyof typeof LISTS;
const isListName = (key: unknown): key is ListName => key === 'campaigns' || key === 'respondents';

/** JSON Lines records are handed on this many at a time (see jsonDocumentItems). */
const LINES_PER_BATCH = 500;

const NOT_A_DOCUMENT = 'must be a JSON object with "campaigns" and "respondents" arrays';

/** The records of a document already in memory (the demo's, a test's). */
export function* documentItems(document: unknown): Generator<ImportItem> {
  if (!isObject(document)) {
    yield { kind: 'problem', where: 'document', what: NOT_A_DOCUMENT };
    return;
  }
  for (const [key, value] of Object.entries(document)) {
    if (!isListName(key)) {
      yield { kind: 'problem', where: 'document', what: `unknown property '${key}'` };
    } else if (!Array.isArray(value)) {
      yield { kind: 'problem', where: key, what: 'must be an array' };
    } else {
      for (const [index, record] of value.entries()) {
        yield { kind: LISTS[key], place: `${key}[${index}]`, record };
      }
    }
  }
}

/**
 * Watches the tokens of a streamed document at its top two levels, where the parser is told to
 * keep nothing: the root must be an object whose only properties are the two lists.
 */
class DocumentShape {
  private depth = 0;
  private awaiting: 'key' | 'colon' | 'value' | undefined;
  private key = '';
  private notAnObject = false;

  constructor(private readonly report: (where: string, what: string) => void) {}

  see({ token, value }: ParsedTokenInfo): void {
    if (this.depth === 0 && token !== TokenType.LEFT_BRACE) {
      this.report('document', NOT_A_DOCUMENT);
      this.notAnObject = true;
    } else if (this.depth === 0) {
      this.awaiting = 'key';
    } else if (this.depth === 1 && !this.notAnObject) {
      this.atTopLevel(token, value);
    }
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) this.depth += 1;
    if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) this.depth -= 1;
  }

  private atTopLevel(token: TokenType, value: unknown): void {
    if (this.awaiting === 'key' && token === TokenType.STRING) {
      this.key = String(value);
      this.awaiting = 'colon';
    } else if (this.awaiting === 'colon' && token === TokenType.COLON) {
      this.awaiting = 'value';
    } else if (this.awaiting === 'value') {
      if (!isListName(this.key)) this.report('document', `unknown property '${this.key}'`);
      else if (token !== TokenType.LEFT_BRACKET) this.report(this.key, 'must be an array');
      this.awaiting = undefined;
    } else if (token === TokenType.COMMA) {
      this.awaiting = 'key';
    }
  }
}

/** The parser's message, said for a person: byte offsets instead of its states. */
function syntaxProblem(message: string): string {
  if (/ended in (the )?mid|ended in the middle/i.test(message)) {
    return 'the JSON ends before the document is complete';
  }
  const at = /absolute position "(\d+)"/.exec(message)?.[1];
  const what = /^Unexpected "(.*?)"/.exec(message)?.[1];
  if (what !== undefined && at !== undefined) {
    return `the JSON has an unexpected ${JSON.stringify(what)} at byte ${at}`;
  }
  return `the JSON cannot be read: ${message}`;
}

/**
 * The records of a JSON document read as a stream, handed on a chunk's worth at a time as soon as
 * they are parsed and then dropped, so memory does not grow with the document. A syntax error
 * ends the records with a problem naming `name`.
 */
export async function* jsonDocumentItems(
  name: string,
  chunks: AsyncIterable<Uint8Array>,
): AsyncGenerator<ImportItem[]> {
  const ready: ImportItem[] = [];
  let failure: string | undefined;
  const tokenizer = new Tokenizer();
  const parser = new TokenParser({ paths: ['$.*.*'], keepStack: false });
  const shape = new DocumentShape((where, what) => ready.push({ kind: 'problem', where, what }));
  let empty = true;
  tokenizer.onToken = (token) => {
    empty = false;
    shape.see(token);
    parser.write(token);
  };
  tokenizer.onError = (error) => {
    failure ??= error.message;
  };
  parser.onError = (error) => {
    failure ??= error.message;
    if (!tokenizer.isEnded) tokenizer.error(error);
  };
  // Each ends the other, as the library's own JSONParser wires them: a document cut short is
  // found when the tokens end with the parser still inside it.
  parser.onEnd = () => {
    if (!tokenizer.isEnded) tokenizer.end();
  };
  tokenizer.onEnd = () => {
    if (!parser.isEnded) parser.end();
  };
  parser.onValue = ({ value, key, stack }: ParsedElementInfo) => {
    const list = stack[1]?.key;
    if (stack.length !== 2 || !isListName(list) || typeof key !== 'number') return;
    ready.push({ kind: LISTS[list], place: `${list}[${key}]`, record: value });
  };

  const fail = (): ImportItem => ({
    kind: 'problem',
    where: name,
    what: syntaxProblem(failure ?? ''),
  });
  for await (const chunk of chunks) {
    if (tokenizer.isEnded && failure === undefined && hasContent(chunk)) {
      failure = 'there is more after the end of the document';
    }
    if (!tokenizer.isEnded) tokenizer.write(chunk);
    if (failure !== undefined) {
      yield [...ready.splice(0), fail()];
      return;
    }
    if (ready.length > 0) yield ready.splice(0);
  }
  if (empty) {
    yield [{ kind: 'problem', where: name, what: 'holds no JSON document' }];
    return;
  }
  if (!tokenizer.isEnded) tokenizer.end();
  if (failure !== undefined) ready.push(fail());
  if (ready.length > 0) yield ready;
}

function hasContent(chunk: Uint8Array): boolean {
  return chunk.some((byte) => byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09);
}

/**
 * A JSON Lines deletion: `{"type":"deletion","respondentId":"r9"}` (or `campaignId`); a
 * respondent's may carry its `version`.
 */
function deletionItem(place: string, line: Record<string, unknown>): ImportItem {
  const targets = (['campaignId', 'respondentId'] as const).filter((key) => key in line);
  const unknown = Object.keys(line).filter(
    (key) => !['type', 'campaignId', 'respondentId', 'version'].includes(key),
  );
  if (targets.length !== 1 || unknown.length > 0) {
    return {
      kind: 'problem',
      where: place,
      what: 'a deletion names exactly one of campaignId or respondentId (and a version), and nothing else',
    };
  }
  const [target] = targets as ['campaignId' | 'respondentId'];
  const id = line[target];
  if (typeof id !== 'string' || !isRecordId(id)) {
    return { kind: 'problem', where: place, what: `'${target}' must be ${RECORD_ID_RULE}` };
  }
  const kind = target === 'campaignId' ? 'campaign' : 'respondent';
  const version = 'version' in line ? { version: line.version } : {};
  return { kind, place: `${place} (id ${id})`, record: { id, deleted: true, ...version } };
}

function lineItem(place: string, text: string): ImportItem {
  let line: unknown;
  try {
    line = JSON.parse(text);
  } catch (error) {
    return {
      kind: 'problem',
      where: place,
      what: `not valid JSON: ${(error as Error).message}`,
    };
  }
  if (!isObject(line)) {
    return { kind: 'problem', where: place, what: 'must be a JSON object with a "type"' };
  }
  const { type, ...record } = line;
  const item: ImportItem | undefined =
    type === 'campaign' || type === 'respondent'
      ? { kind: type, place, record }
      : type === 'deletion'
        ? deletionItem(place, line)
        : undefined;
  if (item?.kind === 'problem') return item;
  const unlike = lineProblem(line);
  if (item) return unlike ? { ...item, unlike } : item;
  return {
    kind: 'problem',
    where: place,
    what: `'type' must be campaign, respondent or deletion, got ${type === undefined ? 'nothing' : shown(type)}`,
  };
}

/**
 * The records of a JSON Lines file: one JSON object per line with a `type` of `campaign`,
 * `respondent` or `deletion`; blank lines are skipped. A bad line is a problem of its own and
 * the reading goes on, so one pass names every bad line.
 */
export async function* jsonLinesItems(
  chunks: AsyncIterable<Uint8Array>,
): AsyncGenerator<ImportItem[]> {
  const lines = createInterface({
    input: Readable.from(chunks),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let number = 0;
  let batch: ImportItem[] = [];
  for await (const text of lines) {
    number += 1;
    if (text.trim() === '') continue;
    batch.push(lineItem(`line ${number}`, text));
    if (batch.length === LINES_PER_BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/**
 * Whether a file's first bytes are JSON Lines: a first line that is a whole JSON object with a
 * `type`. A document's first line is never that (it has no `type`, or is not whole).
 */
export function looksLikeJsonLines(start: Uint8Array): boolean {
  const text = Buffer.from(start).toString('utf8');
  const end = text.indexOf('\n');
  if (end < 0) return false;
  try {
    const first: unknown = JSON.parse(text.slice(0, end));
    return isObject(first) && typeof first.type === 'string';
  } catch {
    return false;
  }
}
