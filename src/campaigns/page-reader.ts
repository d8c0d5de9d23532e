import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { type BodyPool, releasing } from '../http/body-pool.ts';
import { type CachedResponse, fromJsonText, tagged } from '../http/response-cache.ts';
import { findRespondentLines, type Position } from './campaigns.repository.ts';
import type { PageMeta } from './campaigns.service.ts';
import { compileProjection, type Projection } from './field-projection.ts';
import type { CursorCodec } from './page-cursor.ts';
import { linePosition, respondentJson } from './respondent-lines.ts';

/** One page to read: where it starts, and everything its bytes depend on besides the rows. */
export interface PageRequest {
  campaignId: string;
  sinceMs: number | undefined;
  /** Rows strictly after this position; null for the first page. */
  after: Position | null;
  limit: number;
  /** The key's allow-list there, as compiled (see compileProjection). */
  fieldKeys: readonly string[];
  /** `meta` of the page but nextCursor, which depends on the rows. */
  meta: Omit<PageMeta, 'nextCursor'>;
}

/** The page as served, and where it ends when it is full (for the next page's start). */
export interface PageRead {
  response: CachedResponse;
  end: Position | undefined;
}

/** A page read with a pool: the pool's buffer its body was written into, if it was lent one. */
export interface PooledPageRead extends PageRead {
  lent?: ArrayBuffer;
}

/** Reads and serialises pages; either here (`readPageHere`) or in page threads (page-readers.ts). */
export type PageReader = (request: PageRequest) => Promise<PageRead>;

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

/**
 * Reads one page from `db` and writes its body (see writePage), into a buffer of `pool` when
 * given; one row more than the page is read, to tell whether another page follows. The caller
 * gives a lent buffer back (see body-pool.ts).
 */
export async function readPageHere(
  db: Kysely<Database>,
  request: PageRequest,
  cursors: CursorCodec,
  pool?: BodyPool,
): Promise<PooledPageRead> {
  return writePage(await readPageLines(db, request), request, cursors, pool);
}

/** The respondent lines of the page and of the row after it, in spec order. */
export function readPageLines(db: Kysely<Database>, request: PageRequest): Promise<string[]> {
  const { campaignId, sinceMs, after, limit } = request;
  return findRespondentLines(db, { campaignId, sinceMs, after }, limit + 1);
}

/**
 * Writes the body of the page from its lines (see readPageLines): each row as JSON text straight
 * from its line (see respondentJson), into a buffer of `pool` when given.
 */
export function writePage(
  lines: readonly string[],
  request: PageRequest,
  cursors: CursorCodec,
  pool?: BodyPool,
): PooledPageRead {
  const { campaignId, sinceMs, limit, meta } = request;
  const count = Math.min(lines.length, limit);
  let end: Position | undefined;
  let nextCursor: string | null = null;
  if (count === limit) {
    end = linePosition(lines[count - 1] as string);
    if (lines.length > limit) {
      nextCursor = cursors.encode(
        { after: end, page: meta.page + 1 },
        { campaignId, sinceMs, limit },
      );
    }
  }
  const projection = projectionOf(request.fieldKeys);
  const served = new Array<boolean>(projection.fieldKeys.length).fill(false);
  const data = new Array<string>(count);
  for (let index = 0; index < count; index++) {
    data[index] = respondentJson(lines[index] as string, projection, served);
  }
  const json = `{"data":[${data.join(',')}],"meta":${JSON.stringify({ ...meta, nextCursor })}}`;
  const { body, lent } = pool ? pool.encode(json) : { body: Buffer.from(json) };
  const response = tagged(body, {
    fieldKeys: projection.fieldKeys.filter((_, index) => served[index]),
    rows: count,
  });
  return lent ? { response, end, lent } : { response, end };
}

/** `readPageHere` on this thread: a lent body goes back to `pool` once it is sent. */
export async function readPageLending(
  db: Kysely<Database>,
  request: PageRequest,
  cursors: CursorCodec,
  pool: BodyPool,
): Promise<PageRead> {
  const { response, end, lent } = await readPageHere(db, request, cursors, pool);
  if (!lent) return { response, end };
  return { response: { ...response, release: releasing(() => pool.giveBack(lent)) }, end };
}
