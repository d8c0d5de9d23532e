import { type AddressInfo, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';
import { parseResponses, type RawResponse, sendRaw } from '../../helpers/raw-http.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The envelope, its request id and the headers every answer carries. */
function expectEnvelope(response: RawResponse | undefined, status: number, code: string) {
  expect(response, 'an answer').toBeDefined();
  const { headers, body } = response as RawResponse;
  expect(response?.status).toBe(status);
  expect(headers['x-request-id']).toMatch(UUID);
  expect(headers['content-type']).toMatch(/^application\/json/);
  expect(headers['x-content-type-options']).toBe('nosniff');
  const parsed = JSON.parse(body);
  expect(Object.keys(parsed)).toEqual(['error']);
  expect(Object.keys(parsed.error).sort()).toEqual(['code', 'message']);
  expect(parsed.error.code).toBe(code);
  expect(parsed.error.message.length).toBeGreaterThan(0);
  return parsed.error.message as string;
}

const get = (target: string, extra = '') =>
  `GET ${target} HTTP/1.1\r\nHost: localhost\r\n${extra}\r\n`;

describe('every answer is the envelope with X-Request-Id, whatever failed', () => {
  let t: TestApp;
  let port: number;
  let key: string;
  let releaseSlow: () => void = () => {};
  const slowReleased = new Promise<void>((resolve) => {
    releaseSlow = resolve;
  });

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    await seedCampaign(t.store, t.clock, { id: 'c' });
    key = (await createTestKey(t.store, t.clock, [{ campaignId: 'c', fields: [] }])).key;
    // A request that stays in flight while the server starts to close (last test).
    t.app.get('/test-slow', async () => {
      await slowReleased;
      return { ok: true };
    });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    releaseSlow();
    await t?.close();
  });

  it('answers a path parameter longer than any id with 400, without echoing it', async () => {
    const long = 'a'.repeat(129);
    const [response] = await sendRaw(port, get(`/developer/v1/campaigns/${long}/summary`));
    const message = expectEnvelope(response, 400, 'invalid_parameter');
    expect(message).toBe('a path parameter is longer than 128 characters');
    // An id of the longest length an import accepts still reaches the route (and its 401).
    const [longest] = await sendRaw(
      port,
      get(`/developer/v1/campaigns/${'a'.repeat(128)}/summary`),
    );
    expectEnvelope(longest, 401, 'unauthorized');
  });

  it('answers a broken percent-encoding with 400', async () => {
    const [response] = await sendRaw(port, get('/developer/v1/campaigns/%E0%A4%A/summary'));
    expect(expectEnvelope(response, 400, 'invalid_parameter')).toMatch(/percent-encoded/);
  });

  it.each([
    ['raw non-ASCII in the path', Buffer.from(get('/developer/v1/campaigns/café/summary'))],
    ['a NUL in a header', get('/developer/v1/campaigns', 'X-A: a\0b\r\n')],
    [
      'Content-Length with Transfer-Encoding (smuggling)',
      'POST /developer/auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
    [
      'two different Content-Lengths',
      'POST /developer/auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
    ],
    [
      'a Content-Length that is not a number',
      get('/developer/v1/campaigns', 'Content-Length: x\r\n'),
    ],
    ['an unknown method', 'FROB / HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['an HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'],
    ['a line feed inside a header name', 'GET / HTTP/1.1\r\nHo\nst: x\r\n\r\n'],
  ])('answers %s with 400 bad_request and closes the connection', async (_name, bytes) => {
    const responses = await sendRaw(port, bytes);
    expect(responses).toHaveLength(1);
    expectEnvelope(responses[0], 400, 'bad_request');
    expect(responses[0]?.headers.connection).toBe('close');
  });

  it('answers headers past the size limit with 431', async () => {
    const [response] = await sendRaw(
      port,
      get('/developer/v1/campaigns', `X-Big: ${'b'.repeat(20_000)}\r\n`),
    );
    expectEnvelope(response, 431, 'headers_too_large');
  });

  it('names a long unknown path only in part', async () => {
    const path = `/nowhere/${'z'.repeat(5000)}`;
    const [response] = await sendRaw(port, get(path));
    const message = expectEnvelope(response, 404, 'not_found');
    expect(message.length).toBeLessThan(200);
  });

  it('turns requests away in the envelope while the server shuts down', async () => {
    // One request stays in flight, so closing waits; another is still arriving meanwhile.
    const inFlight = sendRaw(port, get('/test-slow'), { quietMs: 5_000 });
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
    });
    const closed = new Promise((resolve) => socket.on('close', resolve));
    const request = get('/developer/v1/campaigns', `Authorization: Bearer ${key}\r\n`);
    socket.write(request.slice(0, -2));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closing = t.app.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.write('\r\n');
    await closed;
    releaseSlow();
    await closing;
    expect((await inFlight)[0]?.status).toBe(200);
    const [refused] = parseResponses(received);
    expectEnvelope(refused, 503, 'service_unavailable');
    expect(refused?.headers['retry-after']).toBe('1');
  });
});
