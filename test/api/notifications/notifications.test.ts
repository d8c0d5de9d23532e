import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/db/connect.ts';
import { importDocument } from '../../../src/import/import.service.ts';
import { EVENT_TYPES } from '../../../src/journal/events.ts';
import { CHANGE_WINDOW_MS, recordEvents } from '../../../src/journal/journal.repository.ts';
import { replaceKeyScope, revokeKey } from '../../../src/keys/keys.service.ts';
import type { Mailer, MailMessage } from '../../../src/mail/mailer.ts';
import { settleDeliveries } from '../../../src/notifications/deliveries.repository.ts';
import { newestDeliveryId } from '../../../src/notifications/delivery-log.repository.ts';
import { DeliveryWorker, SECRET_UNREADABLE } from '../../../src/notifications/delivery-worker.ts';
import {
  addEndpoint,
  type EndpointSettings,
  enableEndpoint,
  listDeliveries,
  redeliver,
  removeEndpoint,
  rotateSecret,
  sendTestEvent,
  TEST_EVENT_INTERVAL_MS,
  TestEventTooSoon,
} from '../../../src/notifications/endpoints.service.ts';
import { noticeExpiringKeys } from '../../../src/notifications/housekeeping.ts';
import { listenUrlOf } from '../../../src/notifications/notifications.ts';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../../src/notifications/retry-schedule.ts';
import { webhookSealKey } from '../../../src/notifications/signing.ts';
import { deliveryWakeUps } from '../../../src/notifications/wake-ups.ts';
import { eraseRespondents } from '../../../src/removals/erasure.service.ts';
import { TEST_SECRETS } from '../../helpers/app.ts';
import { ManualClock } from '../../helpers/clock.ts';
import { eventContract } from '../../helpers/event-contract.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';
import { TestReceiver } from '../../helpers/receiver.ts';
import { createTestStore, ENGINES, openTestStore } from '../../helpers/stores.ts';
import { until } from '../../helpers/until.ts';

const DAY = 24 * 3_600_000;
const SEAL = webhookSealKey(TEST_SECRETS.keySealKey);

const respondent = (id: string, minute: number, answers: Record<string, unknown> = {}) => ({
  id,
  submittedAt: new Date(Date.UTC(2026, 10, 1, 0, minute)).toISOString(),
  attendanceStatus: 'YES' as const,
  answers,
});

class KeptMail implements Mailer {
  readonly sent: MailMessage[] = [];
  async send(message: MailMessage) {
    this.sent.push(message);
  }
  close() {}
}

/** A store, a clock at the real time (signatures are checked against it), a receiver, a worker. */
async function setUp(engine: (typeof ENGINES)[number]) {
  const store = await createTestStore(engine);
  const clock = new ManualClock(Date.now());
  const receiver = await TestReceiver.start();
  const mail = new KeptMail();
  await seedCampaign(store, clock, {
    id: 'nikah',
    fields: [
      { key: 'nama', type: 'TEXT' },
      { key: 'menu', type: 'RADIO' },
    ],
    respondents: ['r1', 'r2', 'r3'].map((id, n) =>
      respondent(id, n, { nama: `Tamu ${id}`, menu: 'Sate' }),
    ),
  });
  await seedCampaign(store, clock, { id: 'lain', respondents: [respondent('x1', 1)] });
  const key = await createTestKey(store, clock, [{ campaignId: 'nikah', fields: ['menu'] }], {
    expiresAt: clock.now() + 365 * DAY,
  });
  const settings: EndpointSettings = {
    store,
    clock,
    sealKey: SEAL,
    allowPrivateNetworks: true,
    actor: 'operator',
  };
  const { endpoint, secret } = await addEndpoint(settings, { keyId: key.id, url: receiver.url });
  const worker = new DeliveryWorker({
    store,
    clock,
    sealKey: SEAL,
    sender: {
      resolve: () => Promise.reject(new Error('tests resolve no names')),
      allowPrivateNetworks: true,
      timeoutMs: 2_000,
    },
    random: () => 0.5,
    mailer: mail,
  });
  return { store, clock, receiver, mail, key, settings, endpoint, secret, worker };
}

type World = Awaited<ReturnType<typeof setUp>>;

/** Queues a webhook.test as the outbox takes it, without the holder's once-per-interval limit. */
async function queueTestEvent(w: World, endpointId: string): Promise<string> {
  return w.store.db.transaction().execute(async (trx) => {
    await recordEvents(
      trx,
      [{ type: 'webhook.test', endpointId, data: { endpointId } }],
      w.clock.now(),
    );
    return newestDeliveryId(trx, endpointId);
  });
}

async function deliveriesOf(store: Store) {
  return store.db.selectFrom('webhook_deliveries').selectAll().orderBy('created_at').execute();
}

describe.each(ENGINES)('change notifications on %s', (engine) => {
  let w: World;
  beforeAll(async () => {
    w = await setUp(engine);
  });
  afterAll(async () => {
    await w.receiver.close();
    await w.store.close();
  });
  afterEach(() => {
    w.receiver.received.length = 0;
    w.receiver.answer = () => 204;
    // Each test starts after a quiet spell: its first change is told of at once.
    w.clock.advance(CHANGE_WINDOW_MS);
  });

  it('sends a signed respondents.changed for an import, with counts and no answer', async () => {
    // After the set-up's imports, whose stamps (one per commit) ran ahead of the stopped clock.
    w.clock.advance(CHANGE_WINDOW_MS);
    await importDocument(w.store, w.clock, {
      respondents: [
        respondent('r4', 10, { nama: 'Rahasia Sekali', menu: 'Soto' }),
        respondent('r1', 11, { nama: 'Tamu r1', menu: 'Soto' }),
        { id: 'r2', deleted: true },
      ].map((row) => ({ ...row, campaignId: 'nikah' })),
    });
    expect(await w.worker.runOnce()).toBe(2);
    const got = w.receiver.received.find((one) => one.body.includes('"respondents.changed"'));
    if (!got) throw new Error('nothing received');
    // An independent verifier: the specification's own package, over the raw body.
    const verified = new Webhook(w.secret).verify(got.body, got.headers as Record<string, string>);
    expect(verified).toEqual({
      type: 'respondents.changed',
      timestamp: new Date(w.clock.now()).toISOString(),
      data: {
        campaignId: 'nikah',
        changed: 2,
        removed: 1,
        since: new Date(Date.UTC(2026, 10, 1, 0, 10) - 1).toISOString(),
      },
    });
    expect(got.headers['webhook-id']).toMatch(/^msg_/);
    expect(w.receiver.events().find((event) => event.type === 'respondents.removed')?.data).toEqual(
      {
        campaignId: 'nikah',
        removedAt: new Date(w.clock.now()).toISOString(),
        ids: ['r2'],
      },
    );
    for (const one of w.receiver.received) {
      expect(one.body).not.toContain('Rahasia');
      expect(one.body).not.toContain('Soto');
    }
    // No second send of a delivered one.
    expect(await w.worker.runOnce()).toBe(0);
  });

  it('refuses a signature made with another secret, and one past its 5 minutes', async () => {
    await queueTestEvent(w, w.endpoint.id);
    await w.worker.runOnce();
    const [got] = w.receiver.received;
    if (!got) throw new Error('nothing received');
    const other = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    expect(() =>
      new Webhook(other).verify(got.body, got.headers as Record<string, string>),
    ).toThrow();
    const stale = { ...(got.headers as Record<string, string>) };
    stale['webhook-timestamp'] = String(Math.floor(Date.now() / 1000) - 6 * 60);
    expect(() => new Webhook(w.secret).verify(got.body, stale)).toThrow();
    expect(JSON.parse(got.body)).toMatchObject({
      type: 'webhook.test',
      data: { endpointId: w.endpoint.id },
    });
  });

  it('signs with both secrets for a day after a rotation', async () => {
    const rotated = await rotateSecret(w.settings, w.endpoint.id);
    await queueTestEvent(w, w.endpoint.id);
    await w.worker.runOnce();
    const [got] = w.receiver.received;
    if (!got) throw new Error('nothing received');
    const headers = got.headers as Record<string, string>;
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(new Webhook(w.secret).verify(got.body, headers)).toBeTruthy();
    expect(new Webhook(rotated.secret).verify(got.body, headers)).toBeTruthy();
    w.secret = rotated.secret;
  });

  it('sends the removed ids in chunks of at most 1,000 under 20 kB', async () => {
    const long = (n: number) => `${'p'.repeat(120)}-${String(n).padStart(5, '0')}`;
    const ids = Array.from({ length: 1_300 }, (_, n) =>
      n < 1_000 ? `bulk-${String(n).padStart(4, '0')}` : long(n),
    );
    await importDocument(w.store, w.clock, {
      respondents: ids.map((id, n) => ({ ...respondent(id, 100 + (n % 50)), campaignId: 'nikah' })),
    });
    await w.worker.runOnce();
    w.receiver.received.length = 0;
    w.clock.advance(1_000);
    await importDocument(w.store, w.clock, {
      respondents: ids.map((id) => ({ id, deleted: true })),
    });
    while ((await w.worker.runOnce()) > 0) {}
    const removed = w.receiver.events().filter((event) => event.type === 'respondents.removed');
    const sent = removed.flatMap((event) => event.data.ids as string[]);
    expect(sent.sort()).toEqual([...ids].sort());
    for (const event of removed) {
      expect((event.data.ids as string[]).length).toBeLessThanOrEqual(1_000);
      expect(event.data.removedAt).toBe(new Date(w.clock.now()).toISOString());
    }
    for (const got of w.receiver.received) expect(Buffer.byteLength(got.body)).toBeLessThan(20_000);
    expect(removed.length).toBeGreaterThanOrEqual(3);
    const changed = w.receiver.events().find((event) => event.type === 'respondents.changed');
    expect(changed?.data).toMatchObject({ campaignId: 'nikah', changed: 0, removed: 1_300 });
  });

  it('writes nothing to the outbox for an import that fails', async () => {
    const before = (await deliveriesOf(w.store)).length;
    await expect(
      importDocument(w.store, w.clock, {
        respondents: [
          { ...respondent('ok1', 1), campaignId: 'nikah' },
          { ...respondent('bad', 2), campaignId: 'no-such-campaign' },
        ],
      }),
    ).rejects.toThrow(/no-such-campaign/);
    expect(await deliveriesOf(w.store)).toHaveLength(before);
    expect(await w.worker.runOnce()).toBe(0);
  });

  it('reports an erasure, and tells nothing of campaigns outside the key', async () => {
    await eraseRespondents(w.store, w.clock, [{ campaignId: 'nikah', id: 'r3' }], 'ids');
    await importDocument(w.store, w.clock, {
      respondents: [{ ...respondent('x2', 5), campaignId: 'lain' }],
    });
    await w.worker.runOnce();
    expect(w.receiver.events().map((event) => [event.type, event.data.campaignId])).toEqual(
      expect.arrayContaining([
        ['respondents.changed', 'nikah'],
        ['respondents.removed', 'nikah'],
      ]),
    );
    expect(w.receiver.events().some((event) => event.data.campaignId === 'lain')).toBe(false);
  });

  it('tells of campaign changes, and of scope changes', async () => {
    await importDocument(w.store, w.clock, {
      campaigns: [
        {
          id: 'nikah',
          slug: 'nikah',
          title: 'Pernikahan Baru',
          eventDate: null,
          location: null,
          fields: [
            { key: 'nama', label: 'nama', type: 'TEXT' },
            { key: 'menu', label: 'menu', type: 'RADIO' },
          ],
        },
      ],
    });
    await w.worker.runOnce();
    expect(w.receiver.events()).toMatchObject([
      { type: 'campaign.updated', data: { campaignId: 'nikah', changed: ['title'] } },
    ]);
    w.receiver.received.length = 0;
    await replaceKeyScope(w.store, w.clock, w.key.id, [
      { campaignId: 'nikah', fields: ['menu'] },
      { campaignId: 'lain', fields: [] },
    ]);
    await w.worker.runOnce();
    expect(w.receiver.events()).toMatchObject([
      { type: 'campaign.added', data: { campaignId: 'lain' } },
    ]);
  });

  it('does not send an event about a campaign that left the key before delivery', async () => {
    await importDocument(w.store, w.clock, {
      respondents: [{ ...respondent('x3', 6), campaignId: 'lain' }],
    });
    await replaceKeyScope(w.store, w.clock, w.key.id, [{ campaignId: 'nikah', fields: ['menu'] }]);
    await w.worker.runOnce();
    expect(w.receiver.events()).toEqual([
      expect.objectContaining({
        type: 'campaign.removed',
        data: { campaignId: 'lain', reason: 'out_of_scope' },
      }),
    ]);
    const skipped = (await listDeliveries(w.settings, w.endpoint.id)).filter(
      (delivery) => delivery.state === 'skipped',
    );
    expect(skipped.map((delivery) => [delivery.event, delivery.campaignId])).toEqual([
      ['respondents.changed', 'lain'],
    ]);
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
    w.receiver.answer = () => 204;
    await enableEndpoint(w.settings, w.endpoint.id);
    await w.worker.runOnce();
  });

  it('tells of a key about to expire, once for 7 days and once for 1', async () => {
    const expiring = await createTestKey(w.store, w.clock, [{ campaignId: 'nikah', fields: [] }], {
      expiresAt: w.clock.now() + 6 * DAY,
    });
    await addEndpoint(w.settings, { keyId: expiring.id, url: `${w.receiver.url}/expiring` });
    expect(await noticeExpiringKeys(w.store.db, w.clock.now())).toBe(1);
    expect(await noticeExpiringKeys(w.store.db, w.clock.now())).toBe(0);
    w.clock.advance(5 * DAY + 1);
    expect(await noticeExpiringKeys(w.store.db, w.clock.now())).toBe(1);
    await w.worker.runOnce();
    const notices = w.receiver.events().filter((event) => event.type === 'key.expiring');
    expect(notices.map((event) => event.data.daysLeft).sort()).toEqual([1, 6]);
    expect(notices.map((event) => event.data.keyId)).toEqual([expiring.id, expiring.id]);
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

  it('tells of a steady stream of commits about once a second per campaign, and of every removal', async () => {
    // What the test's own endpoint was told (others of this key hear the same).
    const told = (type: string) =>
      w.receiver.received
        .filter((got) => got.path === new URL(w.endpoint.url).pathname)
        .map((got) => JSON.parse(got.body))
        .filter((event) => event.type === type);
    const changed = () => told('respondents.changed');
    // After a quiet spell, with whatever earlier tests left waiting sent.
    w.clock.advance(2 * CHANGE_WINDOW_MS);
    await w.worker.runOnce();
    w.receiver.received.length = 0;
    // Ten commits 100 ms apart: the first is told at once, the other nine wait for the window.
    for (let n = 0; n < 10; n++) {
      await importDocument(w.store, w.clock, {
        respondents: [
          { ...respondent(`s${n}`, 20 + n), campaignId: 'nikah' },
          ...(n === 5 ? [{ id: 's0', deleted: true }] : []),
        ],
      });
      await w.worker.runOnce();
      w.clock.advance(100);
    }
    expect(changed().map((event) => event.data.changed)).toEqual([1]);
    // Removals are never held back, nor merged away.
    expect(told('respondents.removed')).toHaveLength(1);
    // Now the window's end: the waiting one goes.
    await w.worker.runOnce();
    expect(changed().map((event) => event.data)).toEqual([
      expect.objectContaining({ changed: 1, removed: 0 }),
      {
        campaignId: 'nikah',
        changed: 9,
        removed: 1,
        // The earliest of the nine: every row they wrote is after it.
        since: new Date(Date.UTC(2026, 10, 1, 0, 21) - 1).toISOString(),
      },
    ]);
    // Once that one is sent, the next commit waits for the window after it, in an event of its own.
    w.clock.advance(100);
    await importDocument(w.store, w.clock, {
      respondents: [{ ...respondent('s10', 40), campaignId: 'nikah' }],
    });
    await w.worker.runOnce();
    expect(changed()).toHaveLength(2);
    w.clock.advance(CHANGE_WINDOW_MS);
    await w.worker.runOnce();
    expect(changed().map((event) => event.data.changed)).toEqual([1, 9, 1]);
  });

  it('lets a holder send one test event per endpoint every 10 seconds', async () => {
    w.clock.advance(TEST_EVENT_INTERVAL_MS);
    await sendTestEvent(w.settings, w.endpoint.id);
    const again = sendTestEvent(w.settings, w.endpoint.id);
    await expect(again).rejects.toBeInstanceOf(TestEventTooSoon);
    await expect(again).rejects.toThrow('send another in 10 s');
    w.clock.advance(TEST_EVENT_INTERVAL_MS - 1_500);
    await expect(sendTestEvent(w.settings, w.endpoint.id)).rejects.toThrow('send another in 2 s');
    w.clock.advance(1_500);
    await sendTestEvent(w.settings, w.endpoint.id);
    await w.worker.runOnce();
    expect(w.receiver.received).toHaveLength(2);
  });

  it('fails, on the schedule and saying why, a delivery whose secret the server cannot open', async () => {
    const warnings: string[] = [];
    const errors: unknown[] = [];
    // As after a restore on a server with another KEY_SEAL_SECRET.
    const otherServer = new DeliveryWorker({
      store: w.store,
      clock: w.clock,
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

  it('sends nothing once the key is revoked', async () => {
    await queueTestEvent(w, w.endpoint.id);
    await revokeKey(w.store, w.clock, w.key.id);
    await w.worker.runOnce();
    expect(w.receiver.received).toHaveLength(0);
  });

  // Runs last: the tests above between them send an event of every type, each checked here.
  it('sends only bodies that match the published schema of their type, of every type', () => {
    const contract = eventContract();
    const typesSent = new Set(w.receiver.everything.map((got) => contract.check(got.body)));
    expect([...typesSent].sort()).toEqual([...EVENT_TYPES].sort());
    expect([...contract.types].sort()).toEqual([...EVENT_TYPES].sort());
  });
});

describe('two serving processes on one PostgreSQL', () => {
  it('deliver each attempt once', async () => {
    const w = await setUp('postgres');
    const second = await openTestStore(w.store.url);
    try {
      const workers = [w.store, second].map(
        (store) =>
          new DeliveryWorker({
            store,
            clock: w.clock,
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
    const w = await setUp('postgres');
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
