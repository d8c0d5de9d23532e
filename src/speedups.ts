/**
 * The mechanisms that make the data API fast beyond a plain keyset read and a serialiser, each
 * of which can be switched off (SPEEDUPS_OFF) so that the benchmark measures what it earns (see
 * docs/performance.md). Page threads and the response cache have settings of their own
 * (PAGE_THREADS=0, RESPONSE_CACHE_MB=0).
 */
export const SPEEDUPS = [
  'quote-jumping-cutter',
  'turn-batching',
  'remembered-reads',
  'single-flight',
  'read-ahead',
] as const;

export type Speedup = (typeof SPEEDUPS)[number];

/** The speedups switched off; empty in production. */
export type SpeedupsOff = ReadonlySet<Speedup>;

export const ALL_SPEEDUPS_ON: SpeedupsOff = new Set();

export function isSpeedup(name: string): name is Speedup {
  return (SPEEDUPS as readonly string[]).includes(name);
}
