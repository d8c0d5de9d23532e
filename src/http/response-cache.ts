import { hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/** A data response ready to send: its bytes, their strong ETag, and what the access log records. */
export interface CachedResponse {
  readonly body: Buffer;
  readonly etag: string;
  readonly fieldKeys: readonly string[];
  readonly rows: number;
}

/** Serialises a body once and tags it: equal bytes get equal ETags on every instance. */
export function toCachedResponse(
  body: unknown,
  log: { fieldKeys: readonly string[]; rows: number },
): CachedResponse {
  const bytes = Buffer.from(JSON.stringify(body));
  // SHA-1 names the bytes, it guards nothing: the tag only has to change when the bytes do.
  return { body: bytes, etag: `"${hash('sha1', bytes, 'base64url')}"`, ...log };
}

/**
 * Serialised data responses by a key that names every input of their bytes (campaign version,
 * allow-list, query), so an entry never needs invalidating: a write bumps the campaign's version
 * and the next request asks for a new key. Bounded by bytes; concurrent misses of one key share
 * one computation.
 */
export class ResponseCache {
  readonly #entries: LRUCache<string, CachedResponse> | undefined;
  readonly #inFlight = new Map<string, Promise<CachedResponse>>();
  readonly #onLookup: (hit: boolean) => void;

  /** `maxBytes` 0 turns storing off; concurrent misses are still shared. */
  constructor(maxBytes: number, onLookup: (hit: boolean) => void = () => {}) {
    this.#onLookup = onLookup;
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
    const stored = this.#entries?.get(key);
    this.#onLookup(stored !== undefined);
    if (stored) return stored;
    const pending = this.#inFlight.get(key);
    if (pending) return pending;
    const computing = produce().then(
      (entry) => {
        this.#inFlight.delete(key);
        this.#entries?.set(key, entry);
        return entry;
      },
      (error: unknown) => {
        this.#inFlight.delete(key);
        throw error;
      },
    );
    this.#inFlight.set(key, computing);
    return computing;
  }
}
