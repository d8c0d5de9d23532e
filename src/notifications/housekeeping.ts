import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { recordEvents } from '../journal/journal.repository.ts';
import { DAY_MS } from '../time-units.ts';
import { purgeDeliveriesBefore } from './delivery-log.repository.ts';
import { DELIVERY_LOG_MS } from './endpoints.service.ts';
import { claimExpiryNotice, findKeysToNotice } from './expiry-notices.repository.ts';

/**
 * `key.expiring` goes this many days before a key expires. Nearest first: a key found within a
 * day of its end gets one notice, not the 7-day one as well.
 */
export const EXPIRY_NOTICE_DAYS = [1, 7] as const;

/**
 * Queues `key.expiring` for keys in force that expire within 7 days (and again within 1), once
 * each, for chains with an endpoint. A key already replaced by a rotation is its successor's
 * business. Returns how many notices were queued.
 */
export async function noticeExpiringKeys(db: Kysely<Database>, now: number): Promise<number> {
  let queued = 0;
  for (const days of EXPIRY_NOTICE_DAYS) {
    const keys = await findKeysToNotice(db, now, days);
    for (const key of keys) {
      await db.transaction().execute(async (trx) => {
        // Another process noticed it first.
        if (!(await claimExpiryNotice(trx, key.id, days))) return;
        const expiresAt = Number(key.expires_at);
        await recordEvents(
          trx,
          [
            {
              type: 'key.expiring',
              lineageId: key.lineage_id,
              data: {
                keyId: key.id,
                expiresAt: new Date(expiresAt).toISOString(),
                daysLeft: Math.ceil((expiresAt - now) / DAY_MS),
              },
            },
          ],
          now,
        );
        queued += 1;
      });
    }
  }
  return queued;
}

/** Forgets finished deliveries older than the log's 30 days, and events none refers to. */
export async function purgeDeliveryLog(db: Kysely<Database>, now: number): Promise<number> {
  return purgeDeliveriesBefore(db, now - DELIVERY_LOG_MS);
}
