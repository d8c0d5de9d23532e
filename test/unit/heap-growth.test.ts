import { describe, expect, it } from 'vitest';
import { operatorSizedHeap } from '../../src/heap-growth.ts';

describe('the server bounds its heap growth unless the operator sized the heap', () => {
  it('leaves the choice to the operator when a heap flag is on the command line', () => {
    expect(operatorSizedHeap(['--max-old-space-size=512'], '')).toBe(true);
    expect(operatorSizedHeap(['--heap-growing-percent=100'], '')).toBe(true);
    expect(operatorSizedHeap(['--max_heap_size=300'], '')).toBe(true);
  });

  it('leaves the choice to the operator when NODE_OPTIONS sizes the heap', () => {
    expect(operatorSizedHeap([], '--enable-source-maps  --max-old-space-size=256')).toBe(true);
  });

  it('applies its own bound otherwise, whatever else is set', () => {
    expect(operatorSizedHeap([], '')).toBe(false);
    expect(
      operatorSizedHeap(['--enable-source-maps', '--max-semi-space-size=8'], '--trace-warnings'),
    ).toBe(false);
    expect(operatorSizedHeap(['--max-old-space-size-extra'], '')).toBe(false);
  });
});
