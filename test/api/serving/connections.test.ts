import { mkdtempSync, writeFileSync } from 'node:fs';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMaxConnections, openFileLimit } from '../../../src/http/connections.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { parseResponses, sendRaw } from '../../helpers/raw-http.ts';

describe('slow and idle clients give their connections back', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await startTestApp('sqlite', {
      connectionTimeouts: { headersMs: 300, requestMs: 600, keepAliveMs: 300 },
      maxConnections: 3,
    });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  it('answers a client too slow with its headers 408 in the envelope, and closes', async () => {
    const started = Date.now();
    const [response] = await sendRaw(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n', {
      quietMs: 3_000,
    });
    expect(response?.status).toBe(408);
    expect(JSON.parse(response?.body ?? '{}').error.code).toBe('request_timeout');
    expect(response?.headers['x-request-id']).toBeDefined();
    // Node checks the timeouts once a second (see connections.ts).
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it('answers a client too slow with its body 408, and closes', async () => {
    const [response] = await sendRaw(
      port,
      'POST /developer/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        'Content-Length: 40\r\n\r\n{"email":',
      { quietMs: 3_000 },
    );
    expect(response?.status).toBe(408);
    expect(JSON.parse(response?.body ?? '{}').error.code).toBe('request_timeout');
  });

  it('closes an idle keep-alive connection after its timeout', async () => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
    });
    const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now())));
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    const sent = Date.now();
    const closedAt = await closed;
    expect(parseResponses(received)[0]?.status).toBe(200);
    expect(closedAt - sent).toBeLessThan(2_000);
  });

  it('refuses connections past MAX_CONNECTIONS at once', async () => {
    const held = Array.from({ length: 3 }, () => connect(port, '127.0.0.1'));
    await Promise.all(
      held.map((socket) => new Promise((resolve) => socket.on('connect', resolve))),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const refused = await sendRaw(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(refused).toEqual([]);
    for (const socket of held) socket.destroy();
  });
});

describe('the default connection cap', () => {
  it('stays safely below the open-file limit', () => {
    expect(defaultMaxConnections(1024)).toBe(768);
    expect(defaultMaxConnections(256)).toBe(128);
    expect(defaultMaxConnections(65_536)).toBe(65_280);
    expect(defaultMaxConnections(undefined)).toBe(768);
  });

  it('reads the soft limit from a limits file', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'hadir-limits-')), 'limits');
    writeFileSync(
      file,
      'Limit                     Soft Limit           Hard Limit           Units     \n' +
        'Max open files            4096                 524288               files     \n',
    );
    expect(openFileLimit(file)).toBe(4096);
    expect(openFileLimit('/no/such/file')).toBeUndefined();
  });
});
