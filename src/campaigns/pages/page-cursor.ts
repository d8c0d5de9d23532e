import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../errors.ts';
import type { Position } from './page-positions.ts';

/**
 * Where the next page starts: after a row's (submittedAt, id), plus the page number that position
 * begins, so `meta.page` stays meaningful in cursor mode.
 */
export interface PageCursor {
  after: Position;
  page: number;
}

/** The query a cursor continues: a cursor is only good for the same campaign, since and limit. */
export interface CursorBinding {
  campaignId: string;
  sinceMs: number | undefined;
  limit: number;
}

/** What a client's cursor turned out to be. */
export type CursorReading =
  | { kind: 'valid'; cursor: PageCursor }
  /** Not a cursor this service issued, or altered since. */
  | { kind: 'forged' }
  /** Issued for another query: `what` names the first part that differs. */
  | { kind: 'other_query'; what: 'campaign' | 'since' | 'limit' };

const FORMAT = 1;
const MAC_BYTES = 16;

/**
 * Cursors are opaque to clients: base64url JSON of the position and of the query it belongs to,
 * then an HMAC of those bytes under a server secret. A client cannot forge a position (skipping
 * or re-reading rows), nor carry a cursor to another campaign, `since` or `limit`, where the same
 * position would silently mean other rows.
 */
export class CursorCodec {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    this.#key = key;
  }

  encode(cursor: PageCursor, binding: CursorBinding): string {
    const payload = Buffer.from(
      JSON.stringify([
        FORMAT,
        binding.campaignId,
        binding.sinceMs ?? null,
        binding.limit,
        cursor.after.submittedAt,
        cursor.after.id,
        cursor.page,
      ]),
    ).toString('base64url');
    return `${payload}.${this.#mac(payload).toString('base64url')}`;
  }

  decode(text: string, binding: CursorBinding): CursorReading {
    const dot = text.indexOf('.');
    if (dot < 0) return { kind: 'forged' };
    const payload = text.slice(0, dot);
    const mac = Buffer.from(text.slice(dot + 1), 'base64url');
    if (mac.length !== MAC_BYTES || !timingSafeEqual(mac, this.#mac(payload))) {
      return { kind: 'forged' };
    }
    let value: unknown;
    try {
      value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return { kind: 'forged' };
    }
    if (!Array.isArray(value) || value.length !== 7 || value[0] !== FORMAT) {
      return { kind: 'forged' };
    }
    const [, campaignId, sinceMs, limit, submittedAt, id, page] = value;
    if (campaignId !== binding.campaignId) return { kind: 'other_query', what: 'campaign' };
    if (sinceMs !== (binding.sinceMs ?? null)) return { kind: 'other_query', what: 'since' };
    if (limit !== binding.limit) return { kind: 'other_query', what: 'limit' };
    // Signed by this service, so well formed; checked all the same, as any input is.
    if (
      !Number.isSafeInteger(submittedAt) ||
      typeof id !== 'string' ||
      !Number.isSafeInteger(page)
    ) {
      return { kind: 'forged' };
    }
    return { kind: 'valid', cursor: { after: { submittedAt, id }, page } };
  }

  #mac(payload: string): Buffer {
    return createHmac('sha256', this.#key).update(payload).digest().subarray(0, MAC_BYTES);
  }
}

/** A paged list is asked for by page number or by cursor, never both. */
export function refusePageWithCursor(query: { page?: number; cursor?: string }): void {
  if (query.cursor !== undefined && query.page !== undefined) {
    throw new ApiError(
      'invalid_parameter',
      "query parameters 'page' and 'cursor' cannot be combined",
    );
  }
}
