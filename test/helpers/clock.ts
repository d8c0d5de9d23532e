import type { Clock } from '../../src/clock.ts';

/** A clock that moves only when a test says so. */
export class ManualClock implements Clock {
  #ms: number;

  constructor(start: number | string = '2026-11-22T08:00:00Z') {
    this.#ms = typeof start === 'number' ? start : Date.parse(start);
  }

  now(): number {
    return this.#ms;
  }

  advance(ms: number): void {
    this.#ms += ms;
  }

  /** Moves to a later instant (never back: the service's stamps only grow). */
  set(ms: number): void {
    if (ms < this.#ms) throw new Error('a ManualClock does not go back');
    this.#ms = ms;
  }
}
