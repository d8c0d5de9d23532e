import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ANSWER_BYTES_READ,
  notificationAgents,
  postNotification,
  type SenderOptions,
} from '../../src/notifications/webhook-sender.ts';

const TIMEOUT_MS = 400;

/** A receiver on 127.0.0.1 that answers as `answer` says, and reports how its sockets ended. */
async function hostile(answer: (response: ServerResponse) => void) {
  const closed: Array<{ written: number }> = [];
  const sockets = new Set<Socket>();
  let open = 0;
  let mostOpen = 0;
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => answer(response));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    open += 1;
    mostOpen = Math.max(mostOpen, open);
    socket.on('close', () => {
      open -= 1;
      sockets.delete(socket);
      closed.push({ written: socket.bytesWritten });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    closed,
    mostOpen: () => mostOpen,
    /** Resolves once `n` connections have closed. */
    closedCount(n: number): Promise<void> {
      return new Promise((resolve) => {
        const check = () => (closed.length >= n ? resolve() : setImmediate(check));
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Writes a 200 whose body never ends, as fast as the connection takes it. */
function endless(response: ServerResponse) {
  response.writeHead(200, { 'content-type': 'text/plain' });
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const pump = () => {
    while (!response.destroyed && response.write(chunk)) {}
    if (!response.destroyed) response.once('drain', pump);
  };
  pump();
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function options(overrides: Partial<SenderOptions> = {}): SenderOptions {
  return {
    resolve: () => Promise.reject(new Error('tests resolve no names')),
    allowPrivateNetworks: true,
    timeoutMs: TIMEOUT_MS,
    ...overrides,
  };
}

const send = (url: string, sender: SenderOptions) =>
  postNotification(url, { 'webhook-id': 'msg_1' }, '{"type":"webhook.test"}', sender);

describe('a receiver cannot hold the sender', () => {
  it('reads a bounded part of an endless 200 answer, then closes the connection', async () => {
    const receiver = await hostile(endless);
    cleanups.push(receiver.close);
    const outcome = await send(receiver.url, options());
    expect(outcome).toMatchObject({ kind: 'delivered', status: 200 });
    await receiver.closedCount(1);
    // What the receiver wrote before the close: the bytes read plus what socket buffers held.
    expect(receiver.closed[0]?.written).toBeLessThan(ANSWER_BYTES_READ + 16 * 1024 * 1024);
  });

  it('closes a 200 whose body never comes within the attempt’s time, and counts it delivered', async () => {
    const receiver = await hostile((response) => {
      response.writeHead(200);
      response.flushHeaders();
    });
    cleanups.push(receiver.close);
    const outcome = await send(receiver.url, options());
    expect(outcome).toMatchObject({ kind: 'delivered', status: 200 });
    await receiver.closedCount(1);
  });

  it('gives up on a receiver that never answers, within the attempt’s time', async () => {
    const receiver = await hostile(() => {});
    cleanups.push(receiver.close);
    const outcome = await send(receiver.url, options());
    expect(outcome).toMatchObject({
      kind: 'failed',
      status: null,
      error: `no answer within ${TIMEOUT_MS / 1000} s`,
    });
    expect(outcome.durationMs).toBeLessThan(TIMEOUT_MS * 3);
    await receiver.closedCount(1);
  });

  it('counts a lookup that never ends against the same time', async () => {
    const outcome = await send(
      'https://hooks.partner.example/x',
      options({ allowPrivateNetworks: false, resolve: () => new Promise(() => {}) }),
    );
    expect(outcome).toMatchObject({
      kind: 'failed',
      status: null,
      error: `no answer within ${TIMEOUT_MS / 1000} s (lookup)`,
    });
  });

  it('keeps its connections to the agents’ bound, however many sends wait', async () => {
    const receiver = await hostile((response) => {
      response.writeHead(200);
      response.flushHeaders();
    });
    cleanups.push(receiver.close);
    const agents = notificationAgents(4, TIMEOUT_MS);
    cleanups.push(async () => {
      agents.http.destroy();
      agents.https.destroy();
    });
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, () => send(receiver.url, options({ agents }))),
    );
    // Sends beyond the bound wait for a connection, and their time runs out waiting.
    expect(receiver.mostOpen()).toBeLessThanOrEqual(4);
    expect(outcomes.filter((outcome) => outcome.kind === 'delivered').length).toBeGreaterThan(0);
  });
});
