import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { Redis } from 'ioredis';
import { freePort } from './postgres-cluster.ts';

/** A redis-server of this machine on a loopback port, with nothing persisted. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Stops the server; `start()` brings it back on the same port, empty. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

export function findRedisServer(): string {
  try {
    const path = execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim();
    if (path) return path;
  } catch {}
  throw new Error('redis-server not found: install the redis-server package');
}

async function waitUntilAnswering(url: string, hasExited: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.ping();
      client.disconnect();
      return;
    } catch (error) {
      client.disconnect();
      if (hasExited() || Date.now() > deadline) {
        throw new Error(`redis-server did not start: ${String(error)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

export async function startRedisServer(): Promise<RedisServer> {
  const binary = findRedisServer();
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let server: ChildProcess | undefined;

  async function start(): Promise<void> {
    const child = spawn(
      binary,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { cwd: tmpdir(), stdio: 'ignore' },
    );
    server = child;
    await waitUntilAnswering(url, () => child.exitCode !== null);
  }

  async function stop(): Promise<void> {
    const child = server;
    server = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  await start();
  return {
    port,
    url,
    start,
    async stop() {
      await stop();
    },
  };
}
