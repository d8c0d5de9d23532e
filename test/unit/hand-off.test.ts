import { describe, expect, it } from 'vitest';
import { HandOff } from '../../src/db/prepared-statements.ts';

describe('HandOff', () => {
  it('gives its value once and then refers to it no more', () => {
    const box = new HandOff('a page of text');
    expect(box.take()).toBe('a page of text');
    expect(() => box.take()).toThrow(/taken twice/);
  });

  it('hands over a null the same way', () => {
    const box = new HandOff<string | null>(null);
    expect(box.take()).toBeNull();
    expect(() => box.take()).toThrow(/taken twice/);
  });
});
