import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';

/**
 * Every process a test starts, each the leader of a process group of its own, so that it and
 * whatever it started (a cluster's workers, a shell's child) end together. They are killed when
 * the test file ends (see kill-owned-processes.ts), and when this worker exits for any reason, so
 * a test that fails or times out before its `finally` leaves nothing running.
 */
const owned = new Set<ChildProcess>();

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // The group ended on its own.
  }
}

/** `spawn`, with the child owned by the test file (see above); the same overloads. */
export const spawnOwned = ((command: string, args: readonly string[], options: SpawnOptions) => {
  const child = spawn(command, args, { ...options, detached: true });
  owned.add(child);
  child.once('exit', () => owned.delete(child));
  return child;
}) as typeof spawn;

/** Kills every owned process group still running (the file's end, or this worker's). */
export function killOwnedProcesses(): void {
  for (const child of owned) killGroup(child);
  owned.clear();
}

process.once('exit', killOwnedProcesses);
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    killOwnedProcesses();
    process.kill(process.pid, signal);
  });
}
