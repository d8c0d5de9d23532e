import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { exitOf, startHadir } from '../helpers/cli.ts';
import { childrenOf, commandOf } from '../helpers/processes.ts';
import { createTestDatabaseUrl } from '../helpers/stores.ts';
import { until } from '../helpers/until.ts';

/** Starts `serve` on a free port and makes sure it does not outlive the test. */
async function serve(options: { env?: Record<string, string>; openFileLimit?: number } = {}) {
  const server = await startHadir(['serve', '--port', '0', '--json'], {
    databaseUrl: await createTestDatabaseUrl('sqlite'),
    ready: /^\{"url":"(http:\/\/[^"]+)"/m,
    ...options,
  });
  onTestFinished(() => {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
  });
  return { ...server, url: server.match[1] as string };
}

/** Opens `count` connections that each send half a request line and then nothing. */
async function halfSentRequests(port: number, count: number) {
  const sockets: Socket[] = [];
  let closedByServer = 0;
  for (let n = 0; n < count; n++) {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.on('close', () => {
      closedByServer += 1;
    });
    socket.on('connect', () => socket.write('GET /developer/v1/campa'));
    sockets.push(socket);
    if (n % 50 === 49) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return {
    closedByServer: () => closedByServer,
    release: () => {
      for (const socket of sockets) socket.destroy();
    },
  };
}

describe('serve under attack and faults', () => {
  it('stays up through a flood of half-sent requests under a low descriptor limit', async () => {
    // 256 descriptors: past 128 connections the server refuses more (see connections.ts).
    const server = await serve({ openFileLimit: 256 });
    const port = Number(new URL(server.url).port);
    const flood = await halfSentRequests(port, 400);
    await until(
      () => flood.closedByServer() >= 400 - 128,
      'the connections past the cap to be refused',
    );
    // The process keeps its descriptors for its own work while the flood stands.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(server.child.exitCode).toBeNull();
    flood.release();
    await until(async () => {
      const response = await fetch(`${server.url}/healthz`).catch(() => undefined);
      return response?.status === 200;
    }, 'the server to answer again');
    expect(server.output()).not.toMatch(/EMFILE/);
  });

  it('logs an exception thrown by a timer with its context and keeps serving', async () => {
    const fault = join(mkdtempSync(join(tmpdir(), 'hadir-fault-')), 'fault.mjs');
    writeFileSync(fault, "setTimeout(() => { throw new Error('a timer failed'); }, 500);\n");
    const server = await serve({ env: { NODE_OPTIONS: `--import=${fault}` } });
    await until(() => server.output().includes('a timer failed'), 'the fault to be logged');
    const logged = server
      .output()
      .split('\n')
      .find((line) => line.includes('a timer failed'));
    expect(JSON.parse(logged as string)).toMatchObject({
      msg: 'unexpected exception; the server keeps serving',
      origin: 'uncaughtException',
      err: { message: 'a timer failed', stack: expect.stringContaining('fault.mjs') },
    });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(server.child.exitCode).toBeNull();
  });

  it('replaces a worker that dies while serving, under WORKERS=2', async () => {
    const server = await serve({ env: { WORKERS: '2' } });
    // The primary's children that run the CLI (tsx's own helper processes are children too).
    const workers = () =>
      childrenOf(server.child.pid as number).filter((pid) => commandOf(pid).includes('cli/main'));
    await until(() => workers().length === 2, 'two workers');
    const [victim] = workers();
    process.kill(victim as number, 'SIGKILL');
    await until(
      () => server.output().includes(`worker ${victim} exited (SIGKILL)`),
      `the exit, in:\n${server.output()}`,
    );
    await until(
      () => workers().length === 2 && !workers().includes(victim as number),
      'a replacement worker',
    );
    for (let n = 0; n < 4; n++) expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await exitOf(server.child)).toBe(0);
  });
});
