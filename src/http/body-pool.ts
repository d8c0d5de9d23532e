/**
 * Buffers for page bodies, used again once their bytes are sent.
 *
 * An uncached page is a fresh 40–200 kB body per request. Allocated anew each time, those bytes
 * count as external memory of the thread that sends them, and V8 answers a steady stream of
 * external memory with full mark-compact collections of the whole heap: on the benchmark's
 * uncached page 1 the main thread ran one every few hundred requests, with their marking threads
 * among the largest costs of a page. A body lent from this pool and given back after the write
 * allocates nothing in the steady state.
 */

/** Bodies smaller than this live in Node's shared buffer pool already. */
const MIN_LENT_BYTES = 4 * 1024;
/** The smallest buffer lent; sizes double from here. */
const MIN_SIZE_CLASS = 16 * 1024;
/** Larger bodies are rare (a page of 1,000 wide rows): they are allocated for themselves. */
const MAX_SIZE_CLASS = 4 * 1024 * 1024;

/** The text's UTF-8 bytes, and the pool's buffer holding them when they were lent from it. */
export interface EncodedBody {
  body: Buffer;
  /** Give it back (`giveBack`) once nothing reads `body` any more; absent when not lent. */
  lent?: ArrayBuffer;
}

export class BodyPool {
  /** Free buffers by size class (their byteLength). */
  readonly #free = new Map<number, ArrayBuffer[]>();
  #freeBytes = 0;
  readonly #maxFreeBytes: number;

  /** Keeps at most `maxFreeBytes` of free buffers; more given back are left to the collector. */
  constructor(maxFreeBytes = 8 * 1024 * 1024) {
    this.#maxFreeBytes = maxFreeBytes;
  }

  encode(text: string): EncodedBody {
    const length = Buffer.byteLength(text);
    if (length < MIN_LENT_BYTES || length > MAX_SIZE_CLASS) return { body: Buffer.from(text) };
    const size = sizeClassOf(length);
    const reused = this.#free.get(size)?.pop();
    if (reused) this.#freeBytes -= size;
    const buffer = reused ?? new ArrayBuffer(size);
    const body = Buffer.from(buffer, 0, length);
    body.write(text);
    return { body, lent: buffer };
  }

  giveBack(buffer: ArrayBuffer): void {
    const size = buffer.byteLength;
    // A detached buffer (moved to another thread) has no bytes left to reuse.
    if (size !== sizeClassOf(size) || this.#freeBytes + size > this.#maxFreeBytes) return;
    let free = this.#free.get(size);
    if (!free) {
      free = [];
      this.#free.set(size, free);
    }
    free.push(buffer);
    this.#freeBytes += size;
  }

  /** Bytes held by free buffers. */
  get freeBytes(): number {
    return this.#freeBytes;
  }
}

/** `release`, made safe to call more than once: a buffer given back twice would be lent twice. */
export function releasing(release: () => void): () => void {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    release();
  };
}

/** The power of two from MIN_SIZE_CLASS that holds `length` bytes. */
function sizeClassOf(length: number): number {
  let size = MIN_SIZE_CLASS;
  while (size < length) size *= 2;
  return size;
}
