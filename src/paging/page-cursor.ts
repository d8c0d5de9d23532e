import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';

/** The paged lists of the data API; a cursor of one is refused by the other. */
export type PagedList = 'respondents' | 'removals' | 'changes';

/**
 * How one list writes its place in its order into a cursor: both order by (a time, an id), each
 * under its own names.
 */
export interface PositionFormat<P> {
  readonly list: PagedList;
  toPair(position: P): readonly [at: number, id: string];
  fromPair(at: number, id: string): P;
}

/**
 * The query parameters that narrow a list to the items that match (its filters), each by its
 * name and a canonical text of its value, sorted by name: what a cursor carries of them.
 */
export type Narrowing = ReadonlyArray<readonly [name: string, value: string]>;

/**
 * Where the next page starts, and the query it continues: a cursor carries the campaign, `since`,
 * `limit` and filters of the request that returned it, so a client may follow it alone.
 */
export interface PageCursor<P> {
  campaignId: string;
  sinceMs: number | undefined;
  limit: number;
  narrowing: Narrowing;
  /** Items strictly after this place come next. */
  after: P;
  /** The page number that place begins, so that `meta.page` stays meaningful. */
  page: number;
}

/** What a client's cursor turned out to be; whether it fits the request is page-query.ts's call. */
export type CursorReading<P> =
  | { kind: 'valid'; list: PagedList; cursor: PageCursor<P> }
  /** Not a cursor this service issued, or altered since. */
  | { kind: 'forged' };

const FORMAT = 3;
/** Cursors of a list without filters. */
const UNFILTERED_FORMAT = 2;
/** Cursors of the first format: no list name, a removals campaign id prefixed instead. */
const FIRST_FORMAT = 1;
const REMOVALS_PREFIX = 'removals\u0000';
const MAC_BYTES = 16;

/**
 * Cursors are opaque to clients: base64url JSON of the position and of the query it belongs to,
 * then an HMAC of those bytes under a server secret. A client cannot forge a position (skipping
 * or re-reading rows), nor carry a cursor to another list, campaign, `since` or `limit`, where
 * the same position would silently mean other rows.
 */
export class CursorCodec<P> {
  /** Made once: a raw key would be turned into a key object on every signature. */
  readonly #key: KeyObject;
  readonly #format: PositionFormat<P>;

  constructor(key: Buffer, format: PositionFormat<P>) {
    this.#key = createSecretKey(key);
    this.#format = format;
  }

  /** The list whose cursors these are. */
  get list(): PagedList {
    return this.#format.list;
  }

  encode(cursor: PageCursor<P>): string {
    const [at, id] = this.#format.toPair(cursor.after);
    const fields = [cursor.campaignId, cursor.sinceMs ?? null, cursor.limit, at, id, cursor.page];
    // A cursor of an unfiltered list keeps the shorter format it had before filters.
    const payload = Buffer.from(
      JSON.stringify(
        cursor.narrowing.length === 0
          ? [UNFILTERED_FORMAT, this.#format.list, ...fields]
          : [FORMAT, this.#format.list, ...fields, cursor.narrowing],
      ),
    ).toString('base64url');
    return `${payload}.${this.#mac(payload).toString('base64url')}`;
  }

  decode(text: string): CursorReading<P> {
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
    const fields = fieldsOf(value);
    // Signed by this service, so well formed; checked all the same, as any input is.
    if (
      !fields ||
      typeof fields.campaignId !== 'string' ||
      (fields.sinceMs !== null && !Number.isSafeInteger(fields.sinceMs)) ||
      !Number.isSafeInteger(fields.limit) ||
      !Number.isSafeInteger(fields.at) ||
      typeof fields.id !== 'string' ||
      !Number.isSafeInteger(fields.page) ||
      !isNarrowing(fields.narrowing)
    ) {
      return { kind: 'forged' };
    }
    return {
      kind: 'valid',
      list: fields.list,
      cursor: {
        campaignId: fields.campaignId,
        sinceMs: fields.sinceMs === null ? undefined : (fields.sinceMs as number),
        limit: fields.limit as number,
        after: this.#format.fromPair(fields.at as number, fields.id),
        page: fields.page as number,
        narrowing: fields.narrowing,
      },
    };
  }

  #mac(payload: string): Buffer {
    return createHmac('sha256', this.#key).update(payload).digest().subarray(0, MAC_BYTES);
  }
}

/** A cursor's fields by name, from either format; undefined for any other shape. */
function fieldsOf(value: unknown) {
  if (!Array.isArray(value)) return undefined;
  if (
    (value[0] === FORMAT && value.length === 9) ||
    (value[0] === UNFILTERED_FORMAT && value.length === 8)
  ) {
    const [, list, campaignId, sinceMs, limit, at, id, page, narrowing = []] = value;
    if (list !== 'respondents' && list !== 'removals' && list !== 'changes') return undefined;
    return { list: list as PagedList, campaignId, sinceMs, limit, at, id, page, narrowing };
  }
  // Cursors issued before lists were named keep working to their end.
  if (value[0] === FIRST_FORMAT && value.length === 7) {
    const [, named, sinceMs, limit, at, id, page] = value;
    if (typeof named !== 'string') return undefined;
    const removals = named.startsWith(REMOVALS_PREFIX);
    return {
      list: (removals ? 'removals' : 'respondents') as PagedList,
      campaignId: removals ? named.slice(REMOVALS_PREFIX.length) : named,
      sinceMs,
      limit,
      at,
      id,
      page,
      narrowing: [],
    };
  }
  return undefined;
}

function isNarrowing(value: unknown): value is Narrowing {
  return (
    Array.isArray(value) &&
    value.every(
      (part) =>
        Array.isArray(part) &&
        part.length === 2 &&
        typeof part[0] === 'string' &&
        typeof part[1] === 'string',
    )
  );
}
