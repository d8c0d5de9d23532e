import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReplicaChoice } from '../../../src/data-api/replica-choice.ts';
import { RedisSeenPositions } from '../../../src/data-api/seen-positions.ts';
import { connectRedis } from '../../../src/redis.ts';
import { logCapture } from '../../helpers/app.ts';
import { type RedisServer, startRedisServer } from '../../helpers/redis-server.ts';
import { until } from '../../helpers/until.ts';

describe('what a key has seen, shared by the instances through Redis', () => {
  let server: RedisServer;
  const clients: Redis[] = [];

  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await server.stop();
  });

  /** One instance's choice, over the positions a test sets, sharing Redis with the others. */
  function instance(state: { primary: bigint; replayed: bigint }) {
    // As the server connects (connectRedis): commands fail at once while Redis is away.
    const redis = connectRedis(server.url, logCapture().logger);
    clients.push(redis);
    return new ReplicaChoice(
      { primary: async () => state.primary, replayed: async () => state.replayed },
      { seen: new RedisSeenPositions(redis), now: () => 0 },
    );
  }

  it('keeps a key off the replica on every instance once one answered it newer', async () => {
    const state = { primary: 100n, replayed: 100n };
    const one = instance(state);
    const two = instance(state);
    await until(() => clients.every((client) => client.status === 'ready'), 'the connections');
    await Promise.all([one.poll(), two.poll()]);
    const key = { lineageId: `chain-${Date.now()}` };
    expect(await two.replicaServes(key)).toBe(true);
    // Instance one's primary answers the key past what the replica has replayed.
    state.primary = 0x1_0000_0150n;
    state.replayed = 0x1_0000_0120n;
    await Promise.all([one.poll(), two.poll()]);
    await one.primaryAnswered(key);
    expect(await two.replicaServes(key)).toBe(false);
    // A lower position never lowers what was seen.
    state.primary = 0x1_0000_0130n;
    await one.primaryAnswered(key);
    state.replayed = 0x1_0000_0140n;
    await two.poll();
    expect(await two.replicaServes(key)).toBe(false);
    state.replayed = 0x1_0000_0150n;
    await two.poll();
    expect(await two.replicaServes(key)).toBe(true);
  });

  it('sends a key to the primary while Redis cannot say what it has seen', async () => {
    const state = { primary: 100n, replayed: 100n };
    const lonely = instance(state);
    await lonely.poll();
    await until(() => (clients.at(-1) as Redis).status === 'ready', 'the connection to Redis');
    const key = { lineageId: 'chain-unreadable' };
    expect(await lonely.replicaServes(key)).toBe(true);
    await server.stop();
    try {
      expect(await lonely.replicaServes(key)).toBe(false);
    } finally {
      await server.start();
    }
  });
});
