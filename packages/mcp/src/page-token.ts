import type { RespondentFilter } from '@hadir/client';

/**
 * A data API page, as asked for: after a cursor alone (it carries the `since`, page size and
 * filter of its listing), or the first page of a listing.
 */
export type DataPageQuery =
  | { cursor: string; filter?: RespondentFilter }
  | { limit: number; since?: string; filter?: RespondentFilter };

/**
 * The cursor an agent passes back for the next page. Mostly it is the data API's own
 * `meta.nextCursor`, passed through as it came. A data page too long for one answer is shown in
 * parts, and the rest of it is named by a token of this server's (marked by a leading `~`, which
 * no data API cursor has): the data page to read again, and the last row shown of it.
 */
export type PagePosition =
  | { kind: 'next_page'; cursor: string }
  | { kind: 'rest_of_page'; page: DataPageQuery; after: { at: string; id: string } };

const REST_MARK = '~';

export function encodePageToken(position: PagePosition): string {
  if (position.kind === 'next_page') return position.cursor;
  const { page, after } = position;
  const fields =
    'cursor' in page
      ? [page.cursor, null, null, after.at, after.id]
      : [null, page.limit, page.since ?? null, after.at, after.id, page.filter ?? null];
  return `${REST_MARK}${Buffer.from(JSON.stringify(fields)).toString('base64url')}`;
}

/** The position a token names, or undefined when it is not one this server gave. */
export function decodePageToken(token: string): PagePosition | undefined {
  if (!token.startsWith(REST_MARK)) {
    // The data API's own cursor, which the data API checks.
    return token === '' ? undefined : { kind: 'next_page', cursor: token };
  }
  try {
    const fields = JSON.parse(
      Buffer.from(token.slice(REST_MARK.length), 'base64url').toString('utf8'),
    );
    const [cursor, limit, since, at, id, filter = null] = fields;
    if (typeof at !== 'string' || typeof id !== 'string') return undefined;
    const after = { at, id };
    if (typeof cursor === 'string') return { kind: 'rest_of_page', page: { cursor }, after };
    if (cursor !== null || !Number.isInteger(limit)) return undefined;
    if (since !== null && typeof since !== 'string') return undefined;
    if (filter !== null && (typeof filter !== 'object' || Array.isArray(filter))) return undefined;
    const page = {
      limit,
      ...(since === null ? {} : { since }),
      ...(filter === null ? {} : { filter: filter as RespondentFilter }),
    };
    return { kind: 'rest_of_page', page, after };
  } catch {
    return undefined;
  }
}
