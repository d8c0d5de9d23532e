import { closeSync, existsSync, linkSync, openSync, rmSync } from 'node:fs';
import { DomainError } from '../errors.ts';

const PRIVATE_FILE = 0o600;

/**
 * Writes a new file of personal data, readable by the owner only, under its name only once
 * `write` has filled and checked it: `write` gets an empty 0600 file beside `target` (made so
 * before any byte goes in). An existing `target` is never overwritten, and a failed write leaves
 * nothing behind.
 */
export async function writePrivateFile<T>(
  target: string,
  write: (partial: string) => T | Promise<T>,
): Promise<T> {
  if (existsSync(target)) {
    throw new DomainError(
      'conflict',
      `${target} already exists; name a new file (a backup never overwrites one)`,
    );
  }
  const partial = `${target}.partial`;
  newPrivateFile(partial);
  try {
    const result = await write(partial);
    // A link, not a rename: a file that appeared at `target` meanwhile is not replaced.
    linkSync(partial, target);
    return result;
  } finally {
    rmSync(partial, { force: true });
  }
}

/** An empty file readable by the owner only, made new (a leftover of a failed run is replaced). */
export function newPrivateFile(path: string): void {
  rmSync(path, { force: true });
  closeSync(openSync(path, 'wx', PRIVATE_FILE));
}
