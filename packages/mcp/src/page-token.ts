/**
 * The cursor an agent passes back for the next page. The data API binds its cursors to the
 * `since` and `limit` of the request that gave them, so the token carries them too: an agent
 * continues a listing by passing the cursor alone. A data page too long for one answer is shown
 * in parts: `after` is the last row shown, and the next part is the rest of the same data page.
 */
export interface PagePosition {
  limit: number;
  since: string | undefined;
  /** The data API's cursor of the page to read; undefined for the first page. */
  cursor: string | undefined;
  /** The (time, id) of the last row shown from that page, when only part of it was. */
  after: { at: string; id: string } | undefined;
}

export function encodePageToken(position: PagePosition): string {
  return Buffer.from(
    JSON.stringify([
      position.limit,
      position.since ?? null,
      position.cursor ?? null,
      position.after ? [position.after.at, position.after.id] : null,
    ]),
  ).toString('base64url');
}

/** The position a token names, or undefined when it is not one this server gave. */
export function decodePageToken(token: string): PagePosition | undefined {
  try {
    const [limit, since, cursor, after] = JSON.parse(
      Buffer.from(token, 'base64url').toString('utf8'),
    );
    if (!Number.isInteger(limit)) return undefined;
    if (since !== null && typeof since !== 'string') return undefined;
    if (cursor !== null && typeof cursor !== 'string') return undefined;
    const [at, id] = Array.isArray(after) ? after : [];
    if (after !== null && (typeof at !== 'string' || typeof id !== 'string')) return undefined;
    if (cursor === null && after === null) return undefined;
    return {
      limit,
      since: since ?? undefined,
      cursor: cursor ?? undefined,
      after: after === null ? undefined : { at, id },
    };
  } catch {
    return undefined;
  }
}
