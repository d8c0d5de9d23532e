/**
 * A gate that opens once per turn of the event loop, in its check phase, after the turn's
 * incoming data has been read: every caller in one turn waits for the same opening. Passing it
 * costs a request microseconds and makes the requests that arrived together proceed together.
 */
export function createTurnGate(): () => Promise<void> {
  let opening: Promise<void> | undefined;
  return () => {
    opening ??= new Promise((resolve) => {
      setImmediate(() => {
        opening = undefined;
        resolve();
      });
    });
    return opening;
  };
}
