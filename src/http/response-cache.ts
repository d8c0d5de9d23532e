import { hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Disclosed } from '../disclosures/disclosure.ts';
import { SameTurn, SingleFlight } from '../single-flight.ts';
import { Speedups } from '../speedups.ts';

/**
 * A data response ready to send: its bytes, their strong ETag, what the access log records, and
 * on an answer that carries respondents, which ones (the disclosure record's line, see
 * src/disclosures).
 */
export interface CachedResponse {
  readonly body: Buffer;
  readonly etag: string;
  readonly fieldKeys: readonly string[];
  readonly rows: number;
  readonly disclosed?: Disclosed;
}

/** What an answer's bytes come with besides their tag. */
export interface AnswerFacts {
  fieldKeys: readonly string[];
  rows: number;
  disclosed?: Disclosed;
}

/** Serialises a body once and tags it: equal bytes get equal ETags on every instance. */
export function toCachedResponse(body: unknown, log: AnswerFacts): CachedResponse {
  return fromJsonText(JSON.stringify(body), log);
}

/** The same, for a body already serialised. */
export function fromJsonText(json: string, log: AnswerFacts): CachedResponse {
  return tagged(Buffer.from(json), log);
}

/** The same, for the body's bytes. */
export function tagged(body: Buffer, log: AnswerFacts): CachedResponse {
  // SHA-1 names the bytes, it guards nothing: the tag only has to change when the bytes do.
  return { body, etag: `"${hash('sha1', body, 'base64url')}"`, ...log };
}

/**
 * The entry with its body in memory of its own. A small Buffer is usually a view into a shared
 * slab (Node's 8 KB pool, or a larger block a worker answered in): kept in the cache, it would
 * keep the whole slab alive while the budget counts only its own bytes, so a cache of small pages
 * would hold many times its budget.
 */
function owningItsBytes(entry: CachedResponse): CachedResponse {
  const { body } = entry;
  if (body.byteOffset === 0 && body.byteLength === body.buffer.byteLength) return entry;
  const own = Buffer.allocUnsafeSlow(body.byteLength);
  body.copy(own);
  return { ...entry, body: own };
}

/**
 * Serialised data responses by a key that names every input of their bytes (campaign version,
 * allow-list, query), so an entry never needs invalidating: a write bumps the campaign's version
 * and the next request asks for a new key. Bounded by bytes; concurrent misses of one key share
 * one computation.
 */
export class ResponseCache {
  readonly #entries: LRUCache<string, CachedResponse> | undefined;
  readonly #inFlight: SingleFlight<CachedResponse>;
  readonly #sameTurn: SameTurn<CachedResponse>;
  readonly #onLookup: (hit: boolean) => void;

  /**
   * `maxBytes` 0 turns the cache off: nothing is kept, and requests wait for no computation
   * already under way; only the identical requests of one turn share theirs (see SameTurn),
   * unless turn batching is off. On, concurrent misses of one key share one computation unless
   * single flight is off.
   */
  constructor(
    maxBytes: number,
    options: {
      onLookup?: (hit: boolean) => void;
      speedups?: Speedups;
    } = {},
  ) {
    this.#onLookup = options.onLookup ?? (() => {});
    const speedups = options.speedups ?? Speedups.ALL_ON;
    this.#inFlight = new SingleFlight(speedups.on('single-flight'));
    this.#sameTurn = new SameTurn(speedups.on('turn-batching'));
    this.#entries =
      maxBytes > 0
        ? new LRUCache({
            maxSize: maxBytes,
            // The key and the object around the body cost a little too.
            sizeCalculation: (entry, key) => entry.body.length + key.length + 200,
          })
        : undefined;
  }

  async get(key: string, produce: () => Promise<CachedResponse>): Promise<CachedResponse> {
    if (!this.#entries) return this.#sameTurn.run(key, produce);
    const stored = this.#entries.get(key);
    this.#onLookup(stored !== undefined);
    if (stored) return stored;
    return this.#inFlight.run(key, async () => {
      const entry = owningItsBytes(await produce());
      this.#entries?.set(key, entry);
      return entry;
    });
  }
}
