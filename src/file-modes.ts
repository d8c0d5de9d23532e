import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { resolve } from 'node:path';

/** Said when a mode is tightened, or cannot be: the operator should know. */
export type Warn = (message: string) => void;

const PRIVATE_FOLDER = 0o700;
const PRIVATE_FILE = 0o600;
const STICKY = 0o1000;

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`;

/**
 * A folder that holds Hadir's data (the SQLite database, development secrets, the development
 * outbox), readable by this user alone: created 0700, and tightened to it, with a warning, when
 * an existing one lets others in. A folder shared with others by design is left as it is: the
 * working directory, or one with the sticky bit such as /tmp (its files are private anyway).
 */
export function securePrivateFolder(path: string, warn: Warn): void {
  if (!existsSync(path)) {
    mkdirSync(path, { recursive: true, mode: PRIVATE_FOLDER });
    chmodSync(path, PRIVATE_FOLDER);
    return;
  }
  const { mode } = statSync(path);
  if ((mode & 0o077) === 0 || mode & STICKY || resolve(path) === process.cwd()) return;
  chmodSync(path, PRIVATE_FOLDER);
  warn(`${path} was ${octal(mode)}; it holds private data, so it is now ${octal(PRIVATE_FOLDER)}`);
}

/** A file of private data, readable by this user alone: tightened to 0600, with a warning. */
export function securePrivateFile(path: string, warn: Warn): void {
  if (!existsSync(path)) return;
  const { mode } = statSync(path);
  if ((mode & 0o077) === 0) return;
  chmodSync(path, PRIVATE_FILE);
  warn(`${path} was ${octal(mode)}; it holds private data, so it is now ${octal(PRIVATE_FILE)}`);
}

/**
 * Creates an empty file 0600 unless it exists. SQLite gives the journal files it makes the mode
 * of their database file, so a database created this way keeps all of its files private.
 */
export function createPrivateFile(path: string): void {
  if (existsSync(path)) return;
  closeSync(openSync(path, 'a', PRIVATE_FILE));
  chmodSync(path, PRIVATE_FILE);
}
