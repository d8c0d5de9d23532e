import v8 from 'node:v8';

/**
 * How far V8 lets the heap grow past what its last full collection kept, in percent. Left alone,
 * V8 sizes that step from the machine's memory: on a large machine it lets a busy server's heap
 * (or a long import's) reach up to four times its live data before collecting it, so memory
 * climbs without ever being needed. As much again as the live data keeps the benchmark's server
 * within its memory target; a smaller step made full collections frequent enough that marking
 * the heap took a good share of a busy server's CPU (measured in docs/performance.md).
 */
export const HEAP_GROWING_PERCENT = 100;

const HEAP_SIZING_FLAG =
  /^--(heap[-_]growing[-_]percent|max[-_]old[-_]space[-_]size|max[-_]heap[-_]size)(=|$)/;

/** Whether the operator already chose how the heap is sized, on the command line or in NODE_OPTIONS. */
export function operatorSizedHeap(execArgv: readonly string[], nodeOptions: string): boolean {
  return [...execArgv, ...nodeOptions.split(/\s+/)].some((flag) => HEAP_SIZING_FLAG.test(flag));
}

/**
 * Applies HEAP_GROWING_PERCENT to this process (a server, an import), unless the operator sized the heap
 * themselves. V8 reads this flag each time it sets the next collection's threshold, so setting it
 * once the process runs takes effect (unlike the sizes fixed when the heap is created).
 */
export function boundHeapGrowth(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string = process.env.NODE_OPTIONS ?? '',
): boolean {
  if (operatorSizedHeap(execArgv, nodeOptions)) return false;
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
