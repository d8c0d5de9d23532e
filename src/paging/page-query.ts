import { ApiError } from '../errors.ts';
import { parseInstant } from '../instant.ts';
import type { CursorCodec } from './page-cursor.ts';

/** A paged list's query as the client sent it (its schema is in page-schemas.ts). */
export interface PageQueryInput {
  page?: number | undefined;
  limit?: number | undefined;
  since?: string | undefined;
  cursor?: string | undefined;
}

/**
 * One page request of either list, resolved: by page number, or after the position of a cursor,
 * whose `since`, `limit` and page number it then has.
 */
export interface PageQuery<P> {
  page: number;
  limit: number;
  sinceMs: number | undefined;
  /** Set when the request followed a cursor: items strictly after this place. */
  after?: P;
}

/** How a list is paged: the codec of its cursors, and its page size when none is asked for. */
export interface Paging<P> {
  cursors: CursorCodec<P>;
  defaultLimit: number;
}

/** A cursor's problem, said the same way on every list. */
function refuse(message: string): never {
  throw new ApiError('invalid_parameter', message);
}

/**
 * Resolves a client's query for a list of `campaignId`: 400 for `page` with `cursor`, for a
 * cursor this service did not issue for this list and campaign, and for a `since` or `limit`
 * sent beside a cursor that differs from the one the cursor was issued with.
 */
export function readPageQuery<P>(
  campaignId: string,
  input: PageQueryInput,
  paging: Paging<P>,
): PageQuery<P> {
  // The schema's date-time format runs parseInstant too, so this always succeeds here.
  const sinceMs = input.since === undefined ? undefined : parseInstant(input.since);
  if (input.cursor === undefined) {
    return { page: input.page ?? 1, limit: input.limit ?? paging.defaultLimit, sinceMs };
  }
  if (input.page !== undefined) {
    refuse("query parameters 'page' and 'cursor' cannot be combined");
  }
  const reading = paging.cursors.decode(input.cursor);
  if (reading.kind === 'forged') {
    refuse("query parameter 'cursor' is not a cursor this service issued, or was altered");
  }
  const { cursor } = reading;
  const list = paging.cursors.list;
  if (reading.list !== list) {
    refuse(
      `query parameter 'cursor' was issued for the ${reading.list} of a campaign, not its ${list}`,
    );
  }
  if (cursor.campaignId !== campaignId) {
    refuse("query parameter 'cursor' was issued for another campaign");
  }
  if (input.since !== undefined && sinceMs !== cursor.sinceMs) disagreement('since');
  if (input.limit !== undefined && input.limit !== cursor.limit) disagreement('limit');
  return { page: cursor.page, limit: cursor.limit, sinceMs: cursor.sinceMs, after: cursor.after };
}

function disagreement(what: 'since' | 'limit'): never {
  refuse(
    `query parameter 'cursor' was issued with another '${what}': send the cursor alone, or with the ${what} of the request that returned it`,
  );
}

/** `meta` of a page of either list but what depends on its items (nextCursor, until). */
export interface PageMetaCore {
  total: number;
  page: number;
  limit: number;
  totalPages: number;
}

/** Spec, Page metadata: `totalPages` from the total and the page size (0 for no items). */
export function pageMeta(total: number, query: { page: number; limit: number }): PageMetaCore {
  return {
    total,
    page: query.page,
    limit: query.limit,
    totalPages: Math.ceil(total / query.limit),
  };
}

/**
 * The cursor of the items after a page whose last item is at `last`, or null when the page ends
 * the list (`shown` items on it, `total` in the whole list).
 */
export function nextCursorAfter<P>(
  paging: Paging<P>,
  campaignId: string,
  query: PageQuery<P>,
  page: { shown: number; total: number; last: P | undefined },
): string | null {
  if (page.last === undefined || (query.page - 1) * query.limit + page.shown >= page.total) {
    return null;
  }
  return paging.cursors.encode({
    campaignId,
    sinceMs: query.sinceMs,
    limit: query.limit,
    after: page.last,
    page: query.page + 1,
  });
}
