import { ApiError } from '../errors.ts';
import { parseInstant } from '../instant.ts';
import type { CursorCodec, Narrowing } from './page-cursor.ts';

export type { Narrowing } from './page-cursor.ts';

/** A paged list's query as the client sent it (its schema is in page-schemas.ts). */
export interface PageQueryInput {
  page?: number | undefined;
  limit?: number | undefined;
  since?: string | undefined;
  cursor?: string | undefined;
}

/**
 * One page request of a list, resolved: by page number, or after the position of a cursor,
 * whose `since`, `limit`, filters and page number it then has.
 */
export interface PageQuery<P> {
  page: number;
  limit: number;
  sinceMs: number | undefined;
  /** The list's filters, as its `narrowingOf` read them (none for a list without filters). */
  narrowing: Narrowing;
  /** Set when the request followed a cursor: items strictly after this place. */
  after?: P;
}

/**
 * How a list is paged: the codec of its cursors, its page size when none is asked for, and, for a
 * list with filters, how they are read from a query (each in a canonical text, so that the same
 * filter sent beside its cursor is recognised as the same).
 */
export interface Paging<P> {
  cursors: CursorCodec<P>;
  defaultLimit: number;
  narrowingOf?: (query: object) => Narrowing;
}

/** A cursor's problem, said the same way on every list. */
function refuse(message: string): never {
  throw new ApiError('invalid_parameter', message);
}

/**
 * Resolves a client's query for a list of `campaignId`: 400 for `page` with `cursor`, for a
 * cursor this service did not issue for this list and campaign, and for a `since`, `limit` or
 * filter sent beside a cursor that differs from the one the cursor was issued with.
 */
export function readPageQuery<P>(
  campaignId: string,
  input: PageQueryInput,
  paging: Paging<P>,
): PageQuery<P> {
  // The schema's date-time format runs parseInstant too, so this always succeeds here.
  const sinceMs = input.since === undefined ? undefined : parseInstant(input.since);
  const narrowing = paging.narrowingOf?.(input) ?? [];
  if (input.cursor === undefined) {
    return { page: input.page ?? 1, limit: input.limit ?? paging.defaultLimit, sinceMs, narrowing };
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
  // A filter sent beside its cursor must be the cursor's; one left out is the cursor's anyway.
  const carried = new Map(cursor.narrowing);
  for (const [name, value] of narrowing) {
    if (carried.get(name) !== value) disagreement(name);
  }
  return {
    page: cursor.page,
    limit: cursor.limit,
    sinceMs: cursor.sinceMs,
    narrowing: cursor.narrowing,
    after: cursor.after,
  };
}

function disagreement(what: string): never {
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
    narrowing: query.narrowing,
    after: page.last,
    page: query.page + 1,
  });
}
