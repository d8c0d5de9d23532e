import { describe, expect, it } from 'vitest';
import { createTurnGate } from '../../src/http/turn-gate.ts';

describe('createTurnGate', () => {
  it('gives every caller of one turn the same opening, and a later turn a new one', async () => {
    const gate = createTurnGate();
    const first = gate();
    expect(gate()).toBe(first);
    await first;
    const next = gate();
    expect(next).not.toBe(first);
    await next;
  });

  it('opens in the check phase, not while the current work and its microtasks run', async () => {
    const gate = createTurnGate();
    const order: string[] = [];
    void gate().then(() => order.push('gate'));
    await Promise.resolve();
    await Promise.resolve();
    order.push('microtasks done');
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['microtasks done', 'gate']);
  });
});
