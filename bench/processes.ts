import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort } from '../test/helpers/postgres-cluster.ts';

const ROOT = new URL('..', import.meta.url).pathname;

/** A server in a child process, with its resident memory sampled while a case runs. */
export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

async function waitForHttp(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output()}`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {}
    if (Date.now() > deadline) throw new Error(`server did not become ready:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function track(child: ChildProcess, url: string): ServerProcess {
  return {
    url,
    pid: child.pid as number,
    async stop() {
      child.kill('SIGTERM');
      await exited(child);
    },
  };
}

/**
 * Hadir itself, as an operator runs it in production behind a TLS-terminating proxy (compiled by
 * `npm run build:server`; `root` names another checkout to run instead), with the rate limit
 * lifted for the run.
 */
export async function startHadir(
  env: Record<string, string>,
  root: string = ROOT,
  options: { port?: number; logFile?: string } = {},
): Promise<ServerProcess> {
  const port = options.port ?? (await freePort());
  // Its log appended to a file when asked (to read what a failure was), else not kept.
  const log = options.logFile ? openSync(options.logFile, 'a') : 'ignore';
  const child = spawn(runtimeOf(root), ['dist/src/cli/main.js', 'serve', '--port', String(port)], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PUBLIC_URL: 'https://hadir.example.com',
      // The bench's requests carry X-Forwarded-Proto: https, as the proxy would add it.
      TRUST_PROXY: '127.0.0.1',
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_MINUTE: '1000000000',
      CODE_HMAC_SECRET: randomBytes(32).toString('hex'),
      KEY_SEAL_SECRET: randomBytes(32).toString('hex'),
      SMTP_URL: 'smtp://127.0.0.1:9',
      ...env,
    },
    // The access log is written (its cost is part of the service).
    stdio: ['ignore', log, 'pipe'],
  });
  if (typeof log === 'number') closeSync(log);
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors = (errors + chunk.toString()).slice(-4000);
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/readyz`, child, () => errors);
  return track(child, url);
}

/**
 * The Node.js a checkout runs on: the one it brings as a dependency, or else the machine's own
 * (the one running npm; under `npm run`, the first node on PATH is this checkout's).
 */
function runtimeOf(root: string): string {
  const bundled = join(root, 'node_modules', '.bin', 'node');
  if (existsSync(bundled)) return bundled;
  return process.env.npm_node_execpath ?? 'node';
}

/** A plain node:http script of this folder that prints `{"port":N}` once it listens. */
async function startScript(
  script: string,
  args: string[],
  options: { niceness?: number } = {},
): Promise<ServerProcess> {
  const command = [process.execPath, `${ROOT}bench/${script}`, ...args];
  const [program, ...programArgs] =
    options.niceness === undefined ? command : ['nice', '-n', String(options.niceness), ...command];
  const child = spawn(program as string, programArgs, { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', () => reject(new Error(`${script} exited`)));
  });
  lines.close();
  const { port } = JSON.parse(first) as { port: number };
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(url, child, () => '');
  return track(child, url);
}

/** An OTLP/HTTP receiver that keeps nothing (see the script). */
export function startOtlpSink(): Promise<ServerProcess> {
  return startScript('otlp-sink.mjs', [], { niceness: 19 });
}

/**
 * A local S3-compatible server with these buckets (see the script), at the lowest priority: a
 * partner's bucket is another machine, whose work takes none of the server's cores; here it takes
 * only what they leave.
 */
export function startS3(buckets: string[]): Promise<ServerProcess> {
  return startScript('s3-server.mjs', buckets, { niceness: 19 });
}

/** The plain node:http server answering with `bodyFile`'s bytes. */
export function startCeiling(bodyFile: string): Promise<ServerProcess> {
  return startScript('ceiling-server.mjs', [bodyFile]);
}

/** Connections in the conventional server's pool. */
export const CONVENTIONAL_POOL = 10;

/** A conventional Fastify + pg implementation of the respondents endpoint (see the script). */
export function startConventional(databaseUrl: string): Promise<ServerProcess> {
  return startScript('conventional-server.mjs', [databaseUrl, String(CONVENTIONAL_POOL)]);
}

/** The PostgreSQL reference: Hadir's page query and a write, nothing else (see the script). */
export function startStoreRead(
  databaseUrl: string,
  campaignId: string,
  limit: number,
  pageBytes: number,
): Promise<ServerProcess> {
  return startScript('store-read-server.mjs', [
    databaseUrl,
    campaignId,
    String(limit),
    String(pageBytes),
  ]);
}

/** A process's resident set now, in bytes (0 once it is gone). */
function rssOf(pid: number | string): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** The processes `pid` has started that still run (Linux). */
function childrenOf(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean),
    );
  } catch {
    return [];
  }
}

/** Samples `measure` every 50 ms until stopped; returns the largest it gave. */
function samplePeak(measure: () => number): () => number {
  let peak = measure();
  const timer = setInterval(() => {
    peak = Math.max(peak, measure());
  }, 50);
  return () => {
    clearInterval(timer);
    return Math.max(peak, measure());
  };
}

/** Samples a process's resident set every 50 ms until stopped; returns the largest, in bytes. */
export const sampleRss = (pid: number) => samplePeak(() => rssOf(pid));

/** The peak resident memory of any one process `pid` has started, sampled as sampleRss does. */
export const sampleChildrenRss = (pid: number) =>
  samplePeak(() => Math.max(0, ...childrenOf(pid).map(rssOf)));
