import type { AddressInfo } from 'node:net';
import { KeyUsage } from '../../src/keys/key-usage.ts';
import { createSmtpMailer } from '../../src/mail/mailer.ts';
import { DeliveryWorker } from '../../src/notifications/delivery-worker.ts';
import { webhookSealKey } from '../../src/notifications/signing.ts';
import { logCapture, startTestApp, TEST_SECRETS, type TestApp } from './app.ts';
import { ManualClock } from './clock.ts';
import { seedWeddingCampaign } from './factories.ts';
import type { TestSmtpServer } from './smtp.ts';
import { createTestStore } from './stores.ts';

/**
 * A portal for a real browser, listening on 127.0.0.1: mail to `smtp`, usage flushed by the test
 * (not by its timer), the wedding campaign, and notifications allowed to 127.0.0.1. Its clock
 * starts at the real time, against which signatures are checked.
 */
export async function startBrowserPortal(
  smtp: TestSmtpServer,
): Promise<{ t: TestApp; usage: KeyUsage; base: string }> {
  const store = await createTestStore('sqlite');
  const usage = new KeyUsage(store.db, logCapture().logger, 3_600_000);
  const t = await startTestApp(store, {
    mailer: createSmtpMailer(smtp.url, 'Hadir <no-reply@hadir.test>'),
    keyUsage: usage,
    clock: new ManualClock(Date.now()),
    webhooksAllowPrivateNetworks: true,
  });
  await seedWeddingCampaign(t.store, t.clock);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return { t, usage, base: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}` };
}

/** A delivery worker for the browser portal, run by the test (`runOnce`), posting to 127.0.0.1. */
export function localDeliveryWorker(t: TestApp): DeliveryWorker {
  return new DeliveryWorker({
    store: t.store,
    clock: t.clock,
    sealKey: webhookSealKey(TEST_SECRETS.keySealKey),
    sender: {
      resolve: () => Promise.reject(new Error('no names in tests')),
      allowPrivateNetworks: true,
      timeoutMs: 2_000,
    },
  });
}
