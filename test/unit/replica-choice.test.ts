import { describe, expect, it } from 'vitest';
import { ReplicaChoice, walPosition } from '../../src/data-api/replica-choice.ts';

/** Positions a test sets by hand, and a clock it moves. */
function setUp(maxLagMs = 1_000) {
  const state = { primary: 100n, replayed: 100n as bigint | undefined, now: 0 };
  const choice = new ReplicaChoice(
    {
      primary: async () => state.primary,
      replayed: async () => state.replayed,
    },
    { maxLagMs, now: () => state.now },
  );
  return { state, choice };
}

const key = { lineageId: 'chain-a' };
const other = { lineageId: 'chain-b' };

describe('which reads the replica may answer', () => {
  it('reads WAL positions as numbers that compare', () => {
    expect(walPosition('0/16B3748')).toBe(0x16b3748n);
    expect(walPosition('16/B374D848')).toBe((0x16n << 32n) + 0xb374d848n);
    expect(walPosition('1/0') > walPosition('0/FFFFFFFF')).toBe(true);
  });

  it('never sends a key back to a replica behind what the primary answered it', async () => {
    const { state, choice } = setUp();
    await choice.poll();
    expect(await choice.replicaServes(key)).toBe(true);
    // The primary moves on and answers the key; the replica, still in time, has not caught up.
    state.primary = 150n;
    state.replayed = 120n;
    state.now = 100;
    await choice.poll();
    // The first position the replica lacks was read just now: it is not behind in time yet.
    expect(choice.lagMs).toBe(0);
    await choice.primaryAnswered(key);
    expect(await choice.replicaServes(key)).toBe(false);
    // Another key has seen nothing newer than the replica holds.
    expect(await choice.replicaServes(other)).toBe(true);
    state.replayed = 150n;
    await choice.poll();
    expect(await choice.replicaServes(key)).toBe(true);
  });

  it('leaves a replica out once it is further behind than allowed, and takes it back', async () => {
    const { state, choice } = setUp(1_000);
    await choice.poll();
    state.primary = 200n;
    state.now = 10;
    await choice.poll();
    state.now = 900;
    await choice.poll();
    expect(choice.lagMs).toBe(890);
    expect(await choice.replicaServes(other)).toBe(true);
    state.now = 1_100;
    await choice.poll();
    expect(choice.lagMs).toBe(1_090);
    expect(await choice.replicaServes(other)).toBe(false);
    state.replayed = 200n;
    await choice.poll();
    expect(choice.lagMs).toBe(0);
    expect(await choice.replicaServes(other)).toBe(true);
  });

  it('uses no replica it cannot read, nor one that is not replaying', async () => {
    const { state, choice } = setUp();
    state.replayed = undefined;
    await choice.poll();
    expect(await choice.replicaServes(other)).toBe(false);
    expect(choice.lagMs).toBe(Number.POSITIVE_INFINITY);
  });

  it('starts from the primary’s position at start: what was answered before is covered', async () => {
    const { state, choice } = setUp();
    state.primary = 300n;
    state.replayed = 250n;
    await choice.poll();
    expect(await choice.replicaServes(other)).toBe(false);
  });
});
