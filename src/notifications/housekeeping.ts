import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { recordEvents } from '../journal/journal.repository.ts';
import { keyInForce } from '../key-in-force.ts';
import { DAY_MS } from '../time-units.ts';
import { DELIVERY_LOG_MS } from './endpoints.service.ts';

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
    const keys = await db
      .selectFrom('api_keys as k')
      .select(['k.id', 'k.lineage_id', 'k.expires_at'])
      .where(keyInForce('k', now))
      .where('k.expires_at', '<=', now + days * DAY_MS)
      .where('k.replaced_by_id', 'is', null)
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('webhook_endpoints as e')
            .select('e.id')
            .whereRef('e.lineage_id', '=', 'k.lineage_id'),
        ),
      )
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('key_expiry_notices as n')
              .select('n.key_id')
              .whereRef('n.key_id', '=', 'k.id')
              .where('n.days_before', '<=', days),
          ),
        ),
      )
      .execute();
    for (const key of keys) {
      await db.transaction().execute(async (trx) => {
        const inserted = await trx
          .insertInto('key_expiry_notices')
          .values({ key_id: key.id, days_before: days })
          .onConflict((oc) => oc.doNothing())
          .executeTakeFirst();
        // Another process noticed it first.
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return;
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
  const cutoff = now - DELIVERY_LOG_MS;
  const result = await db
    .deleteFrom('webhook_deliveries')
    .where('created_at', '<', cutoff)
    .where('state', '!=', 'pending')
    .executeTakeFirst();
  await db
    .deleteFrom('webhook_events')
    .where('created_at', '<', cutoff)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('webhook_deliveries as d')
            .select('d.id')
            .whereRef('d.event_id', '=', 'webhook_events.id'),
        ),
      ),
    )
    .execute();
  return Number(result.numDeletedRows);
}
