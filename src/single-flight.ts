/**
 * Concurrent calls for one key share the call already under way: under load, many requests for
 * the same key or campaign arrive in the same moment, and one database read answers them all.
 * Nothing is kept once the call settles, so every answer is at most one read old.
 */
export class SingleFlight<V> {
  readonly #inFlight = new Map<string, Promise<V>>();
  readonly #enabled: boolean;

  /** Off, every call starts its own (the benchmark's ablation, see speedups.ts). */
  constructor(enabled = true) {
    this.#enabled = enabled;
  }

  run(key: string, start: () => Promise<V>): Promise<V> {
    if (!this.#enabled) return start();
    const pending = this.#inFlight.get(key);
    if (pending) return pending;
    const call = start().finally(() => this.#inFlight.delete(key));
    this.#inFlight.set(key, call);
    return call;
  }
}

/**
 * Calls for one key made in the same turn of the event loop share the first one's result; the
 * next turn starts afresh. Every caller arrived before the shared call started (a request that
 * arrives later reaches here in a later turn, see turn-gate.ts), so its answer is as fresh as a
 * call of its own would have been: this keeps nothing, it only spares the duplicates.
 */
export class SameTurn<V> {
  readonly #calls = new Map<string, Promise<V>>();
  readonly #enabled: boolean;

  /** Off, every call starts its own (the benchmark's ablation, see speedups.ts). */
  constructor(enabled = true) {
    this.#enabled = enabled;
  }

  run(key: string, start: () => Promise<V>): Promise<V> {
    if (!this.#enabled) return start();
    const shared = this.#calls.get(key);
    if (shared) return shared;
    if (this.#calls.size === 0) setImmediate(() => this.#calls.clear());
    const call = start();
    this.#calls.set(key, call);
    return call;
  }
}
