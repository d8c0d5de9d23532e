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

/**
 * Keys asked for in one wave of work share one read of them all: the first call of a wave starts
 * collecting, and once the promise callbacks then queued have run (the requests a turn let
 * through together, see turn-gate.ts), one `read` answers every key collected. Every caller
 * asked before that read started, so its answer is as fresh as a read of its own; nothing is
 * kept after it answers.
 */
/** A caller waiting for its key's wave to be read. */
interface Waiter<V> {
  resolve: (value: V | undefined) => void;
  reject: (error: unknown) => void;
}

export class SameWave<V> {
  /** The callers of the wave being collected, by key; undefined between waves. */
  #waiting: Map<string, Waiter<V>[]> | undefined;
  readonly #read: (keys: readonly string[]) => Promise<ReadonlyMap<string, V>>;

  /** `read` answers the keys it finds; a key it leaves out is answered undefined. */
  constructor(read: (keys: readonly string[]) => Promise<ReadonlyMap<string, V>>) {
    this.#read = read;
  }

  get(key: string): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      let waiting = this.#waiting;
      if (!waiting) {
        waiting = new Map();
        this.#waiting = waiting;
        // After the promise jobs queued now, which may ask for more keys of this wave.
        process.nextTick(() => this.#readWave());
      }
      const callers = waiting.get(key);
      if (callers) callers.push({ resolve, reject });
      else waiting.set(key, [{ resolve, reject }]);
    });
  }

  #readWave(): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    if (!waiting) return;
    this.#read([...waiting.keys()]).then(
      (found) => {
        for (const [key, callers] of waiting) {
          for (const caller of callers) caller.resolve(found.get(key));
        }
      },
      (error: unknown) => {
        for (const callers of waiting.values()) for (const caller of callers) caller.reject(error);
      },
    );
  }
}
