import { IdListBuilder, NO_IDS } from '../../disclosures/id-list.ts';
import { type CachedResponse, fromJsonText, tagged } from '../../http/response-cache.ts';
import type { CursorCodec } from '../../paging/page-cursor.ts';
import type { Narrowing, PageMetaCore } from '../../paging/page-query.ts';
import { compileProjection, type Projection } from '../field-projection.ts';
import { ByteWriter } from './byte-writer.ts';
import type { Position } from './respondent-line.ts';
import { type LineParts, lineParts, positionOf, writeRespondent } from './respondent-line.ts';

/** One page to write: where it starts, and everything its bytes depend on besides the rows. */
export interface PageRequest {
  campaignId: string;
  sinceMs: number | undefined;
  /** The filters the page's rows match, carried by its cursor. */
  narrowing: Narrowing;
  /** Rows strictly after this position; null for the first page. */
  after: Position | null;
  limit: number;
  /** The key's allow-list there, as compiled (see compileProjection). */
  fieldKeys: readonly string[];
  /** `meta` of the page but nextCursor, which depends on the rows. */
  meta: PageMetaCore;
}

/** The page as served, and where it ends when it is full (for the next page's start). */
export interface Page {
  response: CachedResponse;
  end: Position | undefined;
}

/** How a page's body is written: the key its cursor is signed with, and which cutter cuts. */
export interface PageWriting {
  cursors: CursorCodec<Position>;
  /** The quote-jumping field cutter (see field-cutter.ts); off, each row's answers are parsed. */
  quoteJumping: boolean;
}

/** The bytes of a page with no rows. */
export function emptyPage(meta: PageRequest['meta']): CachedResponse {
  return fromJsonText(`{"data":[],"meta":${JSON.stringify({ ...meta, nextCursor: null })}}`, {
    fieldKeys: [],
    rows: 0,
  });
}

const projections = new Map<string, Projection>();

function projectionOf(fieldKeys: readonly string[]): Projection {
  const identity = JSON.stringify(fieldKeys);
  let projection = projections.get(identity);
  if (!projection) {
    projection = compileProjection(fieldKeys);
    // Allow-lists are few; the bound only guards against a pathological number of them.
    if (projections.size >= 1_000) projections.clear();
    projections.set(identity, projection);
  }
  return projection;
}

/** The bytes are written here and copied out; a page past this size gets a buffer of its own. */
const KEPT_WRITER_BYTES = 1 << 20;

const writer = new ByteWriter(KEPT_WRITER_BYTES);

/**
 * Writes the body of a page from its text (the page's rows and the one after it, which tells
 * whether another page follows, as lines: see respondent-line.ts): each row's JSON written
 * straight from its line into the body's bytes, then `meta` with the cursor of the rows after it.
 * The bytes are JSON.stringify's for the page's object, without a string or object per row.
 */
export function writePage(text: string, request: PageRequest, writing: PageWriting): Page {
  const { campaignId, sinceMs, narrowing, limit, meta } = request;
  const projection = projectionOf(request.fieldKeys);
  const served = new Array<boolean>(projection.fieldKeys.length).fill(false);
  const escapes = text.includes('\\');
  const out = writer;
  out.reset(KEPT_WRITER_BYTES);
  out.text('{"data":[');
  let count = 0;
  let lineStart = 0;
  let lastLine: LineParts | undefined;
  // Who the page carries, for the disclosure record: each line's id without its quotes (a
  // record id needs no escapes, see record-ids.ts).
  const ids = new IdListBuilder();
  while (count < limit && lineStart < text.length) {
    const line = lineParts(text, lineStart);
    if (count > 0) out.text(',');
    writeRespondent(text, line, projection, served, escapes, writing.quoteJumping, out);
    ids.addSlice(text, line.statusEnd + 2, line.separator - 1);
    lastLine = line;
    count++;
    lineStart = line.end + 1;
  }
  let end: Position | undefined;
  let nextCursor: string | null = null;
  if (count === limit && lastLine) {
    end = positionOf(text, lastLine);
    if (lineStart < text.length) {
      nextCursor = writing.cursors.encode({
        campaignId,
        sinceMs,
        limit,
        narrowing,
        after: end,
        page: meta.page + 1,
      });
    }
  }
  out.text(`],"meta":${JSON.stringify({ ...meta, nextCursor })}}`);
  const response = tagged(out.finish(), {
    fieldKeys: projection.fieldKeys.filter((_, index) => served[index]),
    rows: count,
    disclosed: { fields: request.fieldKeys, rowIds: ids.finish(), removalIds: NO_IDS },
  });
  return { response, end };
}
