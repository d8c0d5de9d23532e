import { describe, expect, it } from 'vitest';
import { DisclosureLog } from '../../../src/disclosures/disclosure-log.ts';
import { importDocument } from '../../../src/import/import.service.ts';
import { settleDeliveries } from '../../../src/notifications/deliveries.repository.ts';
import { DeliveryWorker, SECRET_UNREADABLE } from '../../../src/notifications/delivery-worker.ts';
import {
  addEndpoint,
  enableEndpoint,
  listDeliveries,
  redeliver,
  removeEndpoint,
} from '../../../src/notifications/endpoints.service.ts';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../../src/notifications/retry-schedule.ts';
import { webhookSealKey } from '../../../src/notifications/signing.ts';
import {
  DAY,
  queueTestEvent,
  respondent,
  SEAL,
  useNotificationWorld,
  type World,
} from '../../helpers/notification-world.ts';
import { ENGINES } from '../../helpers/stores.ts';

describe.each(ENGINES)('delivery attempts on %s', (engine) => {
  let w: World;
  useNotificationWorld(engine, (world) => {
    w = world;
  });

  it('treats a redirect as a failure and never follows it', async () => {
    let redirected = 0;
    w.receiver.answer = (request) => {
      if (request.path === '/elsewhere') redirected += 1;
      return { status: 302, headers: { location: '/elsewhere' } };
    };
    const id = await queueTestEvent(w, w.endpoint.id);
    await w.worker.runOnce();
    expect(redirected).toBe(0);
    const [delivery] = (await listDeliveries(w.settings, w.endpoint.id)).filter((d) => d.id === id);
    expect(delivery).toMatchObject({ state: 'pending', attempts: 1, lastStatus: 302 });
    // Not to be retried by the next test's worker runs.
    await w.store.db.deleteFrom('webhook_deliveries').where('id', '=', id).execute();
  });

  it('retries on the schedule with one message id, then gives up after 10 tries', async () => {
    w.receiver.answer = () => 503;
    const id = await queueTestEvent(w, w.endpoint.id);
    const start = w.clock.now();
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      expect(await w.worker.runOnce()).toBe(1);
      const row = await w.store.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(Number(row.attempts)).toBe(attempt);
      const delay = RETRY_DELAYS_MS[attempt - 1];
      if (delay === undefined) {
        expect(row.state).toBe('failed');
        break;
      }
      // random() = 0.5: the middle of the jitter, the schedule's own delay.
      expect(Number(row.next_attempt_at) - w.clock.now()).toBe(delay);
      w.clock.advance(delay - 1);
      expect(await w.worker.runOnce()).toBe(0);
      w.clock.advance(1);
    }
    expect(new Set(w.receiver.received.map((got) => got.headers['webhook-id']))).toEqual(
      new Set([id]),
    );
    expect(w.receiver.received).toHaveLength(MAX_ATTEMPTS);
    expect(w.clock.now() - start).toBe(RETRY_DELAYS_MS.reduce((sum, delay) => sum + delay, 0));
    // Redelivered by hand: the same id again, and it now succeeds.
    w.receiver.answer = () => 200;
    expect(await redeliver(w.settings, w.endpoint.id, { failedSince: start })).toBe(1);
    await w.worker.runOnce();
    expect(w.receiver.received.at(-1)?.headers['webhook-id']).toBe(id);
  });

  it('disables an endpoint failing for 5 days, mails its holder, and resumes on enable', async () => {
    w.receiver.answer = () => 500;
    await queueTestEvent(w, w.endpoint.id);
    await w.worker.runOnce();
    w.clock.advance(5 * DAY);
    await queueTestEvent(w, w.endpoint.id);
    await w.worker.runOnce();
    const endpoint = await w.store.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', w.endpoint.id)
      .executeTakeFirstOrThrow();
    expect(endpoint.disabled_reason).toBe('failing');
    expect(w.mail.sent.at(-1)).toMatchObject({ to: w.key.account.email });
    expect(w.mail.sent.at(-1)?.text).toContain(w.receiver.url);
    // Events while disabled wait.
    w.receiver.answer = () => 204;
    w.receiver.received.length = 0;
    await importDocument(w.store, w.clock, {
      respondents: [{ ...respondent('r9', 30), campaignId: 'nikah' }],
    });
    w.clock.advance(DAY);
    expect(await w.worker.runOnce()).toBe(0);
    await enableEndpoint(w.settings, w.endpoint.id);
    while ((await w.worker.runOnce()) > 0) {}
    expect(
      w.receiver
        .events()
        .map((event) => event.type)
        .sort(),
    ).toEqual(['respondents.changed', 'webhook.test', 'webhook.test']);
  });

  it('disables an endpoint at once on 410 Gone', async () => {
    w.receiver.answer = () => 410;
    await queueTestEvent(w, w.endpoint.id);
    await w.worker.runOnce();
    const endpoint = await w.store.db
      .selectFrom('webhook_endpoints')
      .select(['disabled_reason'])
      .where('id', '=', w.endpoint.id)
      .executeTakeFirstOrThrow();
    expect(endpoint.disabled_reason).toBe('gone');
    // The holder is told in both languages why, from the portal's message files.
    const told = w.mail.sent.at(-1);
    expect(told?.subject).toBe(
      'Endpoint notifikasi Hadir dinonaktifkan / Your Hadir notification endpoint was disabled',
    );
    expect(told?.text).toContain(
      `${w.receiver.url} dinonaktifkan karena server Anda menjawab 410 Gone.`,
    );
    expect(told?.text).toContain(
      `${w.receiver.url} was disabled because your server answered 410 Gone.`,
    );
    w.receiver.answer = () => 204;
    await enableEndpoint(w.settings, w.endpoint.id);
    await w.worker.runOnce();
  });

  it('does not let a claim that outlived its lease overwrite a later attempt', async () => {
    const id = await queueTestEvent(w, w.endpoint.id);
    w.receiver.answer = () => 503;
    await w.worker.runOnce();
    // A worker that claimed attempt 1 and comes back after attempt 2 was made elsewhere.
    await w.store.db
      .updateTable('webhook_deliveries')
      .set({ attempts: 2 })
      .where('id', '=', id)
      .execute();
    await settleDeliveries(w.store, [
      {
        delivery: { id, attempts: 1 },
        outcome: { state: 'delivered', at: w.clock.now() },
        attempt: { status: 204, error: null, durationMs: 1 },
      },
    ]);
    const row = await w.store.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ state: 'pending', last_status: 503 });
    await w.store.db.deleteFrom('webhook_deliveries').where('id', '=', id).execute();
  });

  it('keeps at most the set number of requests in flight, overall and to one endpoint', async () => {
    const others = [];
    for (const path of ['/a', '/b']) {
      others.push(
        (await addEndpoint(w.settings, { keyId: w.key.id, url: w.receiver.url + path })).endpoint,
      );
    }
    const endpoints = [w.endpoint, ...others];
    for (const endpoint of endpoints) {
      for (let n = 0; n < 4; n++) await queueTestEvent(w, endpoint.id);
    }
    const worker = (concurrency: number) =>
      new DeliveryWorker({
        store: w.store,
        clock: w.clock,
        disclosures: new DisclosureLog(w.store),
        sealKey: SEAL,
        sender: {
          resolve: () => Promise.reject(new Error('tests resolve no names')),
          allowPrivateNetworks: true,
          timeoutMs: 2_000,
        },
        concurrency,
        perEndpoint: 2,
      });
    try {
      // Three endpoints at two each could take six: the overall bound of five holds.
      expect(await worker(5).runOnce()).toBe(5);
      // With room for eight, each endpoint's bound of two holds.
      expect(await worker(8).runOnce()).toBe(6);
      expect(await worker(8).runOnce()).toBe(1);
      expect(w.receiver.received).toHaveLength(12);
    } finally {
      for (const endpoint of others) await removeEndpoint(w.settings, endpoint.id);
    }
  });

  it('fails, on the schedule and saying why, a delivery whose secret the server cannot open', async () => {
    const warnings: string[] = [];
    const errors: unknown[] = [];
    // As after a restore on a server with another KEY_SEAL_SECRET.
    const otherServer = new DeliveryWorker({
      store: w.store,
      clock: w.clock,
      disclosures: new DisclosureLog(w.store),
      sealKey: webhookSealKey(Buffer.alloc(32, 7)),
      sender: {
        resolve: () => Promise.reject(new Error('tests resolve no names')),
        allowPrivateNetworks: true,
        timeoutMs: 2_000,
      },
      random: () => 0.5,
      onWarning: (message) => warnings.push(message),
      onError: (error) => errors.push(error),
    });
    const id = await queueTestEvent(w, w.endpoint.id);
    const row = () =>
      w.store.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    for (let attempt = 1; attempt <= 3; attempt++) {
      expect(await otherServer.runOnce()).toBe(1);
      const now = await row();
      expect({ attempts: Number(now.attempts), state: now.state, error: now.last_error }).toEqual({
        attempts: attempt,
        state: 'pending',
        error: SECRET_UNREADABLE,
      });
      expect(Number(now.next_attempt_at) - w.clock.now()).toBe(RETRY_DELAYS_MS[attempt - 1]);
      expect(await otherServer.runOnce()).toBe(0);
      w.clock.advance(RETRY_DELAYS_MS[attempt - 1] as number);
    }
    expect(w.receiver.received).toEqual([]);
    expect(warnings).toEqual([`notification endpoint ${w.endpoint.id}: ${SECRET_UNREADABLE}`]);
    expect(errors).toEqual([]);
    // The right server sends it at its next try.
    await w.worker.runOnce();
    expect(w.receiver.received.map((got) => got.headers['webhook-id'])).toEqual([id]);
  });
});
