import type { ChildProcess } from 'node:child_process';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../src/cli/cli.ts';
import type { Clock } from '../../src/clock.ts';
import { spawnOwned } from './owned-processes.ts';

export const HADIR_BIN = fileURLToPath(new URL('../../bin/hadir', import.meta.url));

/** Fixed server secrets for CLI runs in tests, so none is generated under the repository. */
export const TEST_SECRET_ENV = {
  CODE_HMAC_SECRET: '1'.repeat(64),
  KEY_SEAL_SECRET: '2'.repeat(64),
};

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program with extra environment and optional standard input; collects its output. */
function runProcess(
  path: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; input?: string; cwd?: string },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawnOwned(path, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** Runs ./bin/hadir as an operator would, with the given DATABASE_URL. */
export function runHadir(
  args: string[],
  options: { databaseUrl: string; input?: string; cwd?: string; env?: Record<string, string> },
): Promise<CliResult> {
  return runProcess(HADIR_BIN, args, {
    ...options,
    env: {
      ...process.env,
      ...TEST_SECRET_ENV,
      DATABASE_URL: options.databaseUrl,
      LOG_LEVEL: 'warn',
      ...options.env,
    },
  });
}

/**
 * Starts a long-running command and resolves once its output matches `ready`; with
 * `openFileLimit`, under that many file descriptors (the shell's ulimit).
 */
export function startHadir(
  args: string[],
  options: {
    databaseUrl?: string;
    cwd?: string;
    ready: RegExp;
    env?: Record<string, string>;
    openFileLimit?: number;
  },
): Promise<{ child: ChildProcess; output: () => string; match: RegExpMatchArray }> {
  const [command, commandArgs] =
    options.openFileLimit === undefined
      ? [HADIR_BIN, args]
      : ['sh', ['-c', `ulimit -n ${options.openFileLimit} && exec "$0" "$@"`, HADIR_BIN, ...args]];
  return new Promise((resolve, reject) => {
    const child = spawnOwned(command, commandArgs, {
      cwd: options.cwd,
      env: {
        ...process.env,
        ...TEST_SECRET_ENV,
        ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
        LOG_LEVEL: 'warn',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`not ready within 60 s:\n${output}`));
    }, 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = output.match(options.ready);
      if (match) {
        clearTimeout(timer);
        resolve({ child, output: () => output, match });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (status) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${status} before ready:\n${output}`));
    });
  });
}

export function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (status) => resolve(status));
  });
}

/**
 * Runs the CLI's code in this process, with the same arguments, environment and exit status as
 * ./bin/hadir but without a process start: for the many error cases.
 */
export async function runHadirInProcess(
  args: string[],
  options: {
    databaseUrl: string;
    input?: string;
    clock?: Clock;
    terminal?: boolean;
    env?: Record<string, string>;
  },
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const status = await runCli(
    args,
    {
      env: {
        ...TEST_SECRET_ENV,
        DATABASE_URL: options.databaseUrl,
        LOG_LEVEL: 'warn',
        ...options.env,
      },
      stdout: (text) => {
        stdout += text;
      },
      stderr: (text) => {
        stderr += text;
      },
      stdin: () => Readable.from(options.input ? [Buffer.from(options.input)] : []),
      stderrIsTerminal: options.terminal ?? false,
    },
    options.clock,
  );
  return { status, stdout, stderr };
}

/** Runs a program of the repository (e.g. a workspace package's bin) with extra environment. */
export function runProgram(
  path: string,
  args: string[],
  env: Record<string, string>,
): Promise<CliResult> {
  return runProcess(fileURLToPath(new URL(`../../${path}`, import.meta.url)), args, {
    env: { ...process.env, HADIR_API_KEY: '', ...env },
  });
}
