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
