import type { Position } from './campaigns.repository.ts';

/**
 * Where the next page starts: after a row's (submittedAt, id), plus the page number that position
 * begins, so `meta.page` stays meaningful in cursor mode. Opaque to clients: base64url JSON.
 */
export interface PageCursor {
  after: Position;
  page: number;
}

export function encodeCursor(cursor: PageCursor): string {
  return Buffer.from(
    JSON.stringify([cursor.after.submittedAt, cursor.after.id, cursor.page]),
  ).toString('base64url');
}

/** The cursor a client sent back, or undefined when it is not one this service issued. */
export function decodeCursor(text: string): PageCursor | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 3) return undefined;
    const [submittedAt, id, page] = value;
    if (
      !Number.isSafeInteger(submittedAt) ||
      typeof id !== 'string' ||
      !Number.isSafeInteger(page) ||
      page < 2
    ) {
      return undefined;
    }
    return { after: { submittedAt, id }, page };
  } catch {
    return undefined;
  }
}
