import { describe, expect, it } from 'vitest';
import { BodyPool } from '../../src/http/body-pool.ts';

const page = (rows: number) =>
  JSON.stringify({ data: Array.from({ length: rows }, (_, n) => ({ n, name: 'Tamu é' })) });

describe('the body pool', () => {
  it("writes the text's UTF-8 bytes, into a lent buffer once the body outgrows Node's shared pool", () => {
    const pool = new BodyPool();
    const small = pool.encode('{"data":[]}');
    expect(small.lent).toBeUndefined();
    expect(small.body.toString()).toBe('{"data":[]}');

    const text = page(500);
    const { body, lent } = pool.encode(text);
    expect(body.equals(Buffer.from(text))).toBe(true);
    expect(lent).toBeInstanceOf(ArrayBuffer);
    expect(body.buffer).toBe(lent);
    expect(lent?.byteLength).toBeGreaterThanOrEqual(body.length);
  });

  it('lends a buffer given back to the next body of its size, and a busy one to nobody', () => {
    const pool = new BodyPool();
    const first = pool.encode(page(500));
    const second = pool.encode(page(501));
    // Both out at once: two buffers.
    expect(second.lent).not.toBe(first.lent);
    pool.giveBack(first.lent as ArrayBuffer);
    expect(pool.freeBytes).toBe(first.lent?.byteLength);
    const third = pool.encode(page(499));
    expect(third.lent).toBe(first.lent);
    expect(third.body.equals(Buffer.from(page(499)))).toBe(true);
    expect(pool.freeBytes).toBe(0);
    // A much larger body needs a larger buffer than the one given back.
    pool.giveBack(third.lent as ArrayBuffer);
    const large = pool.encode(page(5000));
    expect(large.lent).not.toBe(third.lent);
    expect(large.body.equals(Buffer.from(page(5000)))).toBe(true);
  });

  it('keeps no more free bytes than its bound, and ignores a buffer moved to another thread', () => {
    const pool = new BodyPool(40 * 1024);
    const out = [pool.encode(page(500)), pool.encode(page(500)), pool.encode(page(500))];
    for (const { lent } of out) pool.giveBack(lent as ArrayBuffer);
    expect(pool.freeBytes).toBeLessThanOrEqual(40 * 1024);
    expect(pool.freeBytes).toBeGreaterThan(0);

    const moved = new BodyPool().encode(page(500)).lent as ArrayBuffer;
    structuredClone(moved, { transfer: [moved] });
    const empty = new BodyPool();
    empty.giveBack(moved);
    expect(empty.freeBytes).toBe(0);
  });
});
