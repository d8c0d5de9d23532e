/**
 * A data API page, as asked for: after a cursor alone (it carries the `since` and page size of
 * its listing), or the first page of a listing.
 */
export type DataPageQuery = { cursor: string } | { limit: number; since?: string };

/**
 * The cursor an agent passes back for the next page. Mostly it is the data API's own
 * `meta.nextCursor`, passed through as it came. A data page too long for one answer is shown in
 * parts, and the rest of it is named by a token of this server's (marked by a leading `~`, which
 * no data API cursor has): the data page to read again, and the last row shown of it.
 */
export type PagePosition =
  | { kind: 'next_page'; cursor: string }
  | { kind: 'rest_of_page'; page: DataPageQuery; after: { at: string; id: string } }
  /** The guests a filtered listing matched after the last one shown, for the same question. */
  | { kind: 'more_matches'; question: string; after: { at: string; id: string } };

const REST_MARK = '~';
const MATCHES = 'matches';

export function encodePageToken(position: PagePosition): string {
  if (position.kind === 'next_page') return position.cursor;
  if (position.kind === 'more_matches') {
    const { question, after } = position;
    return `${REST_MARK}${Buffer.from(JSON.stringify([MATCHES, question, after.at, after.id])).toString('base64url')}`;
  }
  const { page, after } = position;
  const fields =
    'cursor' in page
      ? [page.cursor, null, null, after.at, after.id]
      : [null, page.limit, page.since ?? null, after.at, after.id];
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
    if (fields[0] === MATCHES) {
      const [, question, at, id] = fields;
      if (typeof question !== 'string' || typeof at !== 'string' || typeof id !== 'string') {
        return undefined;
      }
      return { kind: 'more_matches', question, after: { at, id } };
    }
    const [cursor, limit, since, at, id] = fields;
    if (typeof at !== 'string' || typeof id !== 'string') return undefined;
    const after = { at, id };
    if (typeof cursor === 'string') return { kind: 'rest_of_page', page: { cursor }, after };
    if (cursor !== null || !Number.isInteger(limit)) return undefined;
    if (since !== null && typeof since !== 'string') return undefined;
    const page = since === null ? { limit } : { limit, since };
    return { kind: 'rest_of_page', page, after };
  } catch {
    return undefined;
  }
}
