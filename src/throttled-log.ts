/**
 * A log line for a condition that may repeat many times a second (a full disk, say): written at
 * most once per interval, with the number of times it was held back meanwhile. Returns what to
 * call each time the condition occurs.
 */
export function throttledLog(
  intervalMs: number,
  write: (heldBack: number) => void,
  now: () => number = Date.now,
): () => void {
  let last = Number.NEGATIVE_INFINITY;
  let heldBack = 0;
  return () => {
    if (now() - last < intervalMs) {
      heldBack += 1;
      return;
    }
    last = now();
    write(heldBack);
    heldBack = 0;
  };
}
