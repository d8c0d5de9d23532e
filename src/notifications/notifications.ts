import type { Clock } from '../clock.ts';
import type { Store } from '../db/store.ts';
import {
  DEFAULT_CONCURRENCY,
  DeliveryWorker,
  type DeliveryWorkerOptions,
} from './delivery-worker.ts';
import { webhookSealKey } from './signing.ts';
import { deliveryWakeUps } from './wake-ups.ts';
import { notificationAgents, type SenderOptions } from './webhook-sender.ts';

/** How often a worker looks at the outbox without being woken: on SQLite, and on PostgreSQL. */
const POLL_MS = 50;
const WOKEN_POLL_MS = 500;

export interface NotificationSettings {
  store: Store;
  clock: Clock;
  keySealKey: Buffer;
  /** Tells a holder their endpoint was turned off. */
  disabledNotice: NonNullable<DeliveryWorkerOptions['disabledNotice']>;
  sender: SenderOptions;
  disclosures: DeliveryWorkerOptions['disclosures'];
  onOutcome?: DeliveryWorkerOptions['onOutcome'];
  onError: (error: unknown) => void;
  onWarning?: DeliveryWorkerOptions['onWarning'];
  /**
   * Where the worker listens for commits (PostgreSQL): a connection of its own, which needs a
   * session. The store's own URL unless it names a transaction pooler; then this one
   * (DATABASE_LISTEN_URL, straight to PostgreSQL), or none: the worker looks more often.
   */
  listenUrl?: string;
}

/**
 * Where a worker of this store listens for commits: PostgreSQL's own URL, or `given` (a direct
 * one) behind a transaction pooler, where LISTEN cannot go; none on SQLite, nor behind a pooler
 * without a direct URL.
 */
export function listenUrlOf(store: Store, given: string | undefined): string | undefined {
  if (store.engine !== 'postgres') return undefined;
  return given ?? (store.transactionPooler ? undefined : store.url);
}

/**
 * The sender of a serving process's notifications: the delivery worker, woken by each commit on
 * PostgreSQL. Its housekeeping (expiry notices, the delivery log's end) are workers of their own
 * (see src/serving/workers.ts).
 */
export function notificationSender(settings: NotificationSettings): {
  start(): void;
  stop(): Promise<void>;
} {
  // Woken by each commit on PostgreSQL, a worker looks at the outbox only now and then besides
  // (retries come due, leases end); on SQLite, where imports run in another process, often.
  const listenUrl = listenUrlOf(settings.store, settings.listenUrl);
  const woken = listenUrl !== undefined;
  // Connections are bounded: one per request in flight, and a few kept idle.
  const agents =
    settings.sender.agents ?? notificationAgents(DEFAULT_CONCURRENCY, settings.sender.timeoutMs);
  const worker = new DeliveryWorker({
    store: settings.store,
    clock: settings.clock,
    sealKey: webhookSealKey(settings.keySealKey),
    sender: { ...settings.sender, agents },
    disclosures: settings.disclosures,
    disabledNotice: settings.disabledNotice,
    pollIntervalMs: woken ? WOKEN_POLL_MS : POLL_MS,
    ...(settings.onOutcome ? { onOutcome: settings.onOutcome } : {}),
    ...(settings.onWarning ? { onWarning: settings.onWarning } : {}),
    onError: settings.onError,
  });
  let wakeUps: ReturnType<typeof deliveryWakeUps> | undefined;
  return {
    start() {
      worker.start();
      wakeUps = listenUrl
        ? deliveryWakeUps(listenUrl, () => worker.wake(), settings.onError)
        : undefined;
    },
    async stop() {
      await wakeUps?.stop();
      await worker.stop();
      if (!settings.sender.agents) {
        agents.http.destroy();
        agents.https.destroy();
      }
    },
  };
}
