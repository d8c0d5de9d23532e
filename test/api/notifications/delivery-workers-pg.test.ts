import { describe, expect, it } from 'vitest';
import type { Store } from '../../../src/db/connect.ts';
import { DisclosureLog } from '../../../src/disclosures/disclosure-log.ts';
import { recordEvents } from '../../../src/journal/journal.repository.ts';
import { DeliveryWorker } from '../../../src/notifications/delivery-worker.ts';
import { listenUrlOf } from '../../../src/notifications/notifications.ts';
import { deliveryWakeUps } from '../../../src/notifications/wake-ups.ts';
import { notificationWorld, queueTestEvent, SEAL } from '../../helpers/notification-world.ts';
import { createTestStore, openTestStore } from '../../helpers/stores.ts';
import { until } from '../../helpers/until.ts';

describe('two serving processes on one PostgreSQL', () => {
  it('deliver each attempt once', async () => {
    const w = await notificationWorld('postgres');
    const second = await openTestStore(w.store.url);
    try {
      const workers = [w.store, second].map(
        (store) =>
          new DeliveryWorker({
            store,
            clock: w.clock,
            disclosures: new DisclosureLog(store),
            sealKey: SEAL,
            sender: {
              resolve: () => Promise.reject(new Error('no')),
              allowPrivateNetworks: true,
              timeoutMs: 2_000,
            },
            concurrency: 8,
          }),
      );
      for (let n = 0; n < 60; n++) await queueTestEvent(w, w.endpoint.id);
      w.receiver.answer = () => 204;
      for (let round = 0; round < 20; round++) {
        const started = await Promise.all(workers.map((worker) => worker.runOnce()));
        if (started.every((count) => count === 0)) break;
      }
      const ids = w.receiver.received.map((got) => got.headers['webhook-id']);
      expect(ids).toHaveLength(60);
      expect(new Set(ids).size).toBe(60);
    } finally {
      await second.close();
      await w.receiver.close();
      await w.store.close();
    }
  });
});

describe('wake-ups on PostgreSQL', () => {
  it('wake the workers when a commit adds deliveries, and never for a rollback', async () => {
    const w = await notificationWorld('postgres');
    let wakes = 0;
    const errors: unknown[] = [];
    const wakeUps = deliveryWakeUps(
      w.store.url,
      () => {
        wakes += 1;
      },
      (error) => errors.push(error),
    );
    try {
      await wakeUps?.ready;
      // Once as it starts to listen: what was committed before is not missed.
      await until(() => wakes === 1, 'the first wake-up');
      await queueTestEvent(w, w.endpoint.id);
      await until(() => wakes === 2, 'the wake-up of a commit');
      await w.store.db
        .transaction()
        .execute(async (trx) => {
          await recordEvents(
            trx,
            [
              {
                type: 'webhook.test',
                data: { endpointId: w.endpoint.id },
                endpointId: w.endpoint.id,
                lineageId: w.key.id,
              },
            ],
            w.clock.now(),
          );
          throw new Error('rolled back');
        })
        .catch(() => {});
      await queueTestEvent(w, w.endpoint.id);
      // Notifications come in commit order: had the rollback sent one, it would be counted too.
      await until(() => wakes >= 3, 'the wake-up of the next commit');
      expect(wakes).toBe(3);
      expect(errors).toEqual([]);
    } finally {
      await wakeUps?.stop();
      await w.receiver.close();
      await w.store.close();
    }
  });

  it('are not made on SQLite, whose worker looks often, nor through a transaction pooler', async () => {
    const store = await createTestStore('sqlite');
    try {
      expect(listenUrlOf(store, undefined)).toBeUndefined();
    } finally {
      await store.close();
    }
    const direct = 'postgres://hadir@db.example/hadir';
    const postgres = { engine: 'postgres', url: direct } as Store;
    expect(listenUrlOf(postgres, undefined)).toBe(direct);
    const pooled = { engine: 'postgres', url: 'postgres://pool/hadir', transactionPooler: true };
    expect(listenUrlOf(pooled as Store, undefined)).toBeUndefined();
    expect(listenUrlOf(pooled as Store, direct)).toBe(direct);
  });
});
