import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendTagged } from '../../src/http/conditional.ts';
import { type CachedResponse, fromJsonText } from '../../src/http/response-cache.ts';

// A lent body (CachedResponse.release) goes back to its pool once it is no longer needed: after
// its bytes are written, or at once when a 304 sends none.
describe('sending a lent body', () => {
  const body = JSON.stringify({ data: 'x'.repeat(20_000) });
  const app = Fastify();
  let released: string[] = [];
  let lent: CachedResponse;

  beforeAll(async () => {
    app.get('/page', (request, reply) => {
      const response = fromJsonText(body, { fieldKeys: [], rows: 1 });
      lent = {
        ...response,
        // What a pool does with a buffer given back: writes the next body over it.
        release: () => {
          released.push(response.body.toString() === body ? 'intact' : 'changed');
          response.body.fill(0x20);
        },
      };
      return sendTagged(request, reply, lent);
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => app.close());

  const url = () => {
    const address = app.server.address() as { port: number };
    return `http://127.0.0.1:${address.port}/page`;
  };

  it('gives it back once written, and the client got every byte', async () => {
    released = [];
    const response = await fetch(url());
    expect(await response.text()).toBe(body);
    expect(released).toEqual(['intact']);
  });

  it('gives it back at once for a 304', async () => {
    released = [];
    const etag = lent.etag;
    const response = await fetch(url(), { headers: { 'if-none-match': etag } });
    expect(response.status).toBe(304);
    expect(released).toEqual(['intact']);
  });
});
