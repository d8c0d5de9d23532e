/**
 * The cursor an agent passes back for the next page. The data API binds its cursors to the
 * `since` and `limit` of the request that gave them, so the token carries them too: an agent
 * continues a listing by passing the cursor alone.
 */
export interface PagePosition {
  limit: number;
  since: string | undefined;
  cursor: string;
}

export function encodePageToken(position: PagePosition): string {
  return Buffer.from(
    JSON.stringify([position.limit, position.since ?? null, position.cursor]),
  ).toString('base64url');
}

/** The position a token names, or undefined when it is not one this server gave. */
export function decodePageToken(token: string): PagePosition | undefined {
  try {
    const [limit, since, cursor] = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (!Number.isInteger(limit) || typeof cursor !== 'string') return undefined;
    if (since !== null && typeof since !== 'string') return undefined;
    return { limit, since: since ?? undefined, cursor };
  } catch {
    return undefined;
  }
}
