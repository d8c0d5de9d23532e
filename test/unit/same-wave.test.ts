import { describe, expect, it } from 'vitest';
import { SameWave } from '../../src/single-flight.ts';

describe('SameWave', () => {
  it('reads the keys asked for in one wave once, together, and answers each its own', async () => {
    const reads: string[][] = [];
    const wave = new SameWave<string>(async (keys) => {
      reads.push([...keys]);
      return new Map(keys.filter((key) => key !== 'gone').map((key) => [key, key.toUpperCase()]));
    });
    // Callers resumed by one promise, as the requests a turn lets through are.
    const gate = Promise.resolve();
    const asked = ['a', 'b', 'a', 'gone'].map((key) => gate.then(() => wave.get(key)));
    expect(await Promise.all(asked)).toEqual(['A', 'B', 'A', undefined]);
    expect(reads).toEqual([['a', 'b', 'gone']]);
  });

  it('starts a new wave for keys asked after a read began, and passes a failure to its wave', async () => {
    let calls = 0;
    const wave = new SameWave<number>(async (keys) => {
      calls += 1;
      if (keys.includes('bad')) throw new Error('the store is away');
      return new Map(keys.map((key) => [key, calls]));
    });
    expect(await wave.get('x')).toBe(1);
    expect(await wave.get('x')).toBe(2);
    await expect(wave.get('bad')).rejects.toThrow('the store is away');
    expect(await wave.get('y')).toBe(4);
  });
});
