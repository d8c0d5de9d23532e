/**
 * The mechanisms that make the data API fast beyond a plain keyset read and a serialiser (and
 * keep it fast while guest-list files are written: 'file-thread'), each
 * of which can be switched off (SPEEDUPS_OFF) so that the benchmark measures what it earns (see
 * docs/performance.md). The response cache has a setting of its own (RESPONSE_CACHE_MB=0).
 */
export const SPEEDUPS = [
  'quote-jumping-cutter',
  'turn-batching',
  'remembered-reads',
  'single-flight',
  'read-ahead',
  'file-thread',
  'delivery-process',
] as const;

export type Speedup = (typeof SPEEDUPS)[number];

export function isSpeedup(name: string): name is Speedup {
  return (SPEEDUPS as readonly string[]).includes(name);
}

/**
 * Which speed devices are on: one value, read once from the configuration and handed whole to
 * each module that has a device, which asks it by the device's one name.
 */
export class Speedups {
  /** Every device on, as in production. */
  static readonly ALL_ON = new Speedups([]);

  readonly #off: ReadonlySet<Speedup>;

  constructor(off: Iterable<Speedup>) {
    this.#off = new Set(off);
  }

  on(device: Speedup): boolean {
    return !this.#off.has(device);
  }

  /** The devices switched off, to hand the same choice to another process. */
  get off(): Speedup[] {
    return [...this.#off];
  }
}
