/** A source of the current time in epoch milliseconds; injected wherever time decides an outcome. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
