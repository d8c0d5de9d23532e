import type { Readable } from 'node:stream';
import type { ParseArgsConfig } from 'node:util';
import type { Clock } from '../clock.ts';
import { type Config, loadConfig } from '../config.ts';
import { COMMAND_TIMEOUTS, openStore, type Store } from '../db/connect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { parseInstant } from '../instant.ts';
import { parseDuration } from './durations.ts';
import { UsageError } from './usage-error.ts';

/** What a command prints: one JSON object with --json, else the text. */
export interface Output {
  json: unknown;
  text: string;
}

/** Where a run of the CLI reads its environment and writes its output. */
export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Standard input (`import -`, `--password-stdin`). */
  stdin: () => Readable;
  /** Whether standard error is a terminal: a long import draws a progress bar there. */
  stderrIsTerminal?: boolean;
}

export interface Context {
  io: CliIo;
  config: Config;
  clock: Clock;
  values: Record<string, string | boolean | Array<string | boolean> | undefined>;
  positionals: string[];
}

export interface Command {
  /** What the command does, in one sentence, for `--help`. */
  summary: string;
  /** One invocation that works as printed (after `hadir `). */
  example: string;
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /**
   * `serve` and `demo` return once listening; their open server keeps the process running. A
   * command with nothing to print (a cluster worker, whose primary speaks for it) returns nothing.
   */
  run(context: Context): Promise<Output | undefined>;
}

/**
 * Runs `work` on the configured store (or the one `url` names), migrated, under an operator
 * command's bounds. A SQLite database that does not exist is refused, as a mistyped
 * DATABASE_URL, unless the command is one that starts a database (`ifMissing: 'create'`).
 */
export async function withStore<T>(
  context: Context,
  work: (store: Store) => Promise<T>,
  options: { url?: string; ifMissing?: 'create' | 'refuse' } = {},
): Promise<T> {
  const store = openStore(options.url ?? context.config.databaseUrl, {
    ifMissing: options.ifMissing ?? 'refuse',
    timeouts: COMMAND_TIMEOUTS,
    onWarning: warnOn(context.io),
  });
  try {
    await migrateToLatest(store);
    return await work(store);
  } finally {
    await store.close();
  }
}

/** A warning for the operator, on standard error (never in a --json answer). */
export function warnOn(io: CliIo): (message: string) => void {
  return (message) => io.stderr(`hadir: warning: ${message}\n`);
}

export function required(context: Context, name: string): string {
  const value = context.values[name];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new UsageError(`--${name} is required`);
  }
  return value;
}

export function onePositional(context: Context, what: string): string {
  const [value, ...rest] = context.positionals;
  if (!value || rest.length > 0) throw new UsageError(`expected exactly one ${what}`);
  return value;
}

export function listOption(context: Context, name: string): string[] {
  const value = context.values[name];
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string')
    : [];
}

/** The configuration, with `--host` and `--port` in place of HOST and PORT when given. */
export function serverConfig(context: Context): Config {
  const env = { ...context.io.env };
  if (typeof context.values.host === 'string') env.HOST = context.values.host;
  if (typeof context.values.port === 'string') env.PORT = context.values.port;
  return loadConfig(env);
}

/** `--expires-in` (a duration from now) or `--expires-at` (an instant), not both. */
export function expiryOption(context: Context): number | undefined {
  const expiresIn = context.values['expires-in'];
  const expiresAt = context.values['expires-at'];
  if (typeof expiresIn === 'string' && typeof expiresAt === 'string') {
    throw new UsageError('give --expires-in or --expires-at, not both');
  }
  if (typeof expiresIn === 'string') {
    return context.clock.now() + parseDuration(expiresIn, '--expires-in');
  }
  if (typeof expiresAt === 'string') {
    const ms = parseInstant(expiresAt);
    if (ms === undefined) {
      throw new UsageError(`--expires-at takes an ISO-8601 date-time, got '${expiresAt}'`);
    }
    return ms;
  }
  return undefined;
}
