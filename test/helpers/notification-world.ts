import { afterAll, afterEach, beforeAll } from 'vitest';
import type { Store } from '../../src/db/connect.ts';
import { DisclosureLog } from '../../src/disclosures/disclosure-log.ts';
import { CHANGE_WINDOW_MS, recordEvents } from '../../src/journal/journal.repository.ts';
import type { Mailer, MailMessage } from '../../src/mail/mailer.ts';
import { newestDeliveryId } from '../../src/notifications/delivery-log.repository.ts';
import {
  DeliveryWorker,
  type DeliveryWorkerOptions,
} from '../../src/notifications/delivery-worker.ts';
import { addEndpoint, type EndpointSettings } from '../../src/notifications/endpoints.service.ts';
import { webhookSealKey } from '../../src/notifications/signing.ts';
import { endpointDisabledMail } from '../../src/portal-pages/messages.ts';
import { TEST_SECRETS } from './app.ts';
import { ManualClock } from './clock.ts';
import { createTestKey, seedCampaign } from './factories.ts';
import { TestReceiver } from './receiver.ts';
import { createTestStore, type ENGINES } from './stores.ts';

export const DAY = 24 * 3_600_000;
export const SEAL = webhookSealKey(TEST_SECRETS.keySealKey);

export const respondent = (id: string, minute: number, answers: Record<string, unknown> = {}) => ({
  id,
  submittedAt: new Date(Date.UTC(2026, 10, 1, 0, minute)).toISOString(),
  attendanceStatus: 'YES' as const,
  answers,
});

export class KeptMail implements Mailer {
  readonly sent: MailMessage[] = [];
  async send(message: MailMessage) {
    this.sent.push(message);
  }
  close() {}
}

/** A store, a clock at the real time (signatures are checked against it), a receiver, a worker. */
export async function notificationWorld(engine: (typeof ENGINES)[number]) {
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
    disclosures: new DisclosureLog(store),
    sealKey: SEAL,
    sender: {
      resolve: () => Promise.reject(new Error('tests resolve no names')),
      allowPrivateNetworks: true,
      timeoutMs: 2_000,
    },
    random: () => 0.5,
    disabledNotice: { mailer: mail, compose: endpointDisabledMail },
  });
  return { store, clock, receiver, mail, key, settings, endpoint, secret, worker };
}

export type World = Awaited<ReturnType<typeof notificationWorld>>;

/**
 * A delivery worker on `store`, sending to receivers on 127.0.0.1 (no name is resolved) and
 * recording what it hands over, as a serving process's does.
 */
export function localDeliveryWorker(
  store: Store,
  clock: ManualClock,
  options: Partial<DeliveryWorkerOptions> = {},
): DeliveryWorker {
  return new DeliveryWorker({
    store,
    clock,
    disclosures: new DisclosureLog(store),
    sealKey: SEAL,
    sender: {
      resolve: () => Promise.reject(new Error('tests resolve no names')),
      allowPrivateNetworks: true,
      timeoutMs: 5_000,
    },
    ...options,
  });
}

/** Queues a webhook.test as the outbox takes it, without the holder's once-per-interval limit. */
export async function queueTestEvent(w: World, endpointId: string): Promise<string> {
  return w.store.db.transaction().execute(async (trx) => {
    await recordEvents(
      trx,
      [{ type: 'webhook.test', endpointId, data: { endpointId } }],
      w.clock.now(),
    );
    return newestDeliveryId(trx, endpointId);
  });
}

export async function deliveriesOf(store: Store) {
  return store.db.selectFrom('webhook_deliveries').selectAll().orderBy('created_at').execute();
}

/**
 * One world for the enclosing describe: set up before its tests, closed after them, and between
 * tests the receiver emptied and a quiet spell passed, so each test's first change is told at once.
 */
export function useNotificationWorld(
  engine: (typeof ENGINES)[number],
  set: (world: World) => void,
): void {
  let w: World;
  beforeAll(async () => {
    w = await notificationWorld(engine);
    set(w);
  });
  afterAll(async () => {
    await w.receiver.close();
    await w.store.close();
  });
  afterEach(() => {
    w.receiver.received.length = 0;
    w.receiver.answer = () => 204;
    w.clock.advance(CHANGE_WINDOW_MS);
  });
}
