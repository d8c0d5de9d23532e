import { describe, expect, it } from 'vitest';
import { ResponseCache, toCachedResponse } from '../../src/http/response-cache.ts';
import { Speedups } from '../../src/speedups.ts';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const page = (text: string) => toCachedResponse({ text }, { fieldKeys: [], rows: 1 });

describe('the response cache', () => {
  it('lets concurrent misses for one key share one computation, then answers from memory', async () => {
    const cache = new ResponseCache(1024 * 1024);
    const gate = deferred<ReturnType<typeof page>>();
    let computed = 0;
    const produce = () => {
      computed += 1;
      return gate.promise;
    };
    const waiting = [cache.get('k', produce), cache.get('k', produce), cache.get('k', produce)];
    gate.resolve(page('a'));
    const answers = await Promise.all(waiting);
    expect(computed).toBe(1);
    expect(new Set(answers).size).toBe(1);
    expect(await cache.get('k', produce)).toBe(answers[0]);
    expect(computed).toBe(1);
  });

  it('keeps a small body in memory of its own, not in a shared slab its budget does not count', async () => {
    const cache = new ResponseCache(1024 * 1024);
    const made = page('kecil');
    // As Node makes it: a view into its shared pool.
    expect(made.body.buffer.byteLength).toBeGreaterThan(made.body.byteLength);
    const kept = await cache.get('k', async () => made);
    expect(kept.body.buffer.byteLength).toBe(kept.body.byteLength);
    expect(kept.body.toString()).toBe('{"text":"kecil"}');
    expect(kept.etag).toBe(made.etag);
    expect(await cache.get('k', async () => page('other'))).toBe(kept);
  });

  it('keeps no failure: the next request computes again', async () => {
    const cache = new ResponseCache(1024 * 1024);
    await expect(cache.get('k', () => Promise.reject(new Error('store down')))).rejects.toThrow(
      'store down',
    );
    expect((await cache.get('k', async () => page('b'))).body.toString()).toBe('{"text":"b"}');
  });

  it('stays within its byte budget, dropping the least recently used entries', async () => {
    const big = 'x'.repeat(400);
    const cache = new ResponseCache(1500);
    let computed = 0;
    const produce = (text: string) => async () => {
      computed += 1;
      return page(text);
    };
    await cache.get('a', produce(big));
    await cache.get('b', produce(big));
    await cache.get('a', produce(big)); // a is now the most recently used
    await cache.get('c', produce(big)); // over budget: b goes
    expect(computed).toBe(3);
    await cache.get('a', produce(big));
    expect(computed).toBe(3);
    await cache.get('b', produce(big));
    expect(computed).toBe(4);
  });

  it('when off, keeps nothing and shares a computation only within one turn', async () => {
    const cache = new ResponseCache(0);
    const gate = deferred<ReturnType<typeof page>>();
    let computed = 0;
    const produce = () => {
      computed += 1;
      return gate.promise;
    };
    // Two requests of one turn share; one of the next turn waits for nothing under way.
    const sameTurn = [cache.get('k', produce), cache.get('k', produce)];
    expect(computed).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    const nextTurn = cache.get('k', produce);
    expect(computed).toBe(2);
    gate.resolve(page('c'));
    await Promise.all([...sameTurn, nextTurn]);
    // Nothing was kept: a later turn computes again.
    await new Promise((resolve) => setImmediate(resolve));
    expect((await cache.get('k', async () => page('d'))).body.toString()).toBe('{"text":"d"}');
  });

  it('when off and not sharing turns, computes every answer, even in one turn', async () => {
    const cache = new ResponseCache(0, { speedups: new Speedups(['turn-batching']) });
    let computed = 0;
    const produce = async () => {
      computed += 1;
      return page('c');
    };
    await Promise.all([cache.get('k', produce), cache.get('k', produce)]);
    expect(computed).toBe(2);
  });

  it('tags equal bytes with equal strong ETags, and different bytes with different ones', () => {
    expect(page('a').etag).toBe(page('a').etag);
    expect(page('a').etag).not.toBe(page('b').etag);
    expect(page('a').etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
  });
});
