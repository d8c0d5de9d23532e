import type { Clock } from '../clock.ts';
import type { Store } from '../db/store.ts';
import type { Mailer } from '../mail/mailer.ts';
import { DeliveryWorker, type DeliveryWorkerOptions } from './delivery-worker.ts';
import { noticeExpiringKeys, purgeDeliveryLog } from './housekeeping.ts';
import { webhookSealKey } from './signing.ts';
import type { SenderOptions } from './webhook-sender.ts';

export interface NotificationSettings {
  store: Store;
  clock: Clock;
  keySealKey: Buffer;
  mailer: Mailer;
  sender: SenderOptions;
  onOutcome?: DeliveryWorkerOptions['onOutcome'];
  onError: (error: unknown) => void;
  /** How often expiry notices and the delivery log's end are looked after. */
  housekeepingIntervalMs?: number;
}

/**
 * The notifications of a serving process: the delivery worker, and now and then the expiry
 * notices and the trimming of the 30-day delivery log. Returns what stops them.
 */
export function startNotifications(settings: NotificationSettings): {
  worker: DeliveryWorker;
  stop(): Promise<void>;
} {
  const worker = new DeliveryWorker({
    store: settings.store,
    clock: settings.clock,
    sealKey: webhookSealKey(settings.keySealKey),
    sender: settings.sender,
    mailer: settings.mailer,
    ...(settings.onOutcome ? { onOutcome: settings.onOutcome } : {}),
    onError: settings.onError,
  });
  worker.start();
  const housekeeping = async () => {
    const now = settings.clock.now();
    await noticeExpiringKeys(settings.store.db, now);
    await purgeDeliveryLog(settings.store.db, now);
  };
  const run = () => {
    housekeeping().catch(settings.onError);
  };
  const first = setTimeout(run, 5_000);
  const every = setInterval(run, settings.housekeepingIntervalMs ?? 10 * 60_000);
  first.unref();
  every.unref();
  return {
    worker,
    async stop() {
      clearTimeout(first);
      clearInterval(every);
      await worker.stop();
    },
  };
}
