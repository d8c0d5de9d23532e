/**
 * Polls `check` until it holds, for conditions a test cannot be told about (another process, a
 * database lock, a reconnect); fails naming `what` after 15 s.
 */
export async function until(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
