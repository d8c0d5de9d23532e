import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';

/**
 * An endpoint's delivery log as its holder and the operator see it: listed, sent again, its
 * newest test, and forgotten after the log's 30 days. The worker's own reads and writes of
 * deliveries are in deliveries.repository.ts.
 */

/** The message id of an endpoint's newest delivery. */
export async function newestDeliveryId(db: Kysely<Database>, endpointId: string): Promise<string> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('endpoint_id', '=', endpointId)
    .orderBy('created_at', 'desc')
    .orderBy('event_id', 'desc')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** When the newest test event for an endpoint was queued, if ever (within the log's 30 days). */
export async function lastTestEventAt(
  db: Kysely<Database>,
  endpointId: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
    .select((eb) => eb.fn.max('d.created_at').as('last'))
    .where('d.endpoint_id', '=', endpointId)
    .where('e.type', '=', 'webhook.test')
    .executeTakeFirst();
  return row?.last === null || row?.last === undefined ? undefined : Number(row.last);
}

/** An endpoint's deliveries created after `after`, newest first, with their events' type. */
export function selectDeliveryLog(
  db: Kysely<Database>,
  endpointId: string,
  after: number,
  limit: number,
) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as v', 'v.id', 'd.event_id')
    .select([
      'd.id',
      'v.type',
      'v.campaign_id',
      'd.state',
      'd.attempts',
      'd.created_at',
      'd.last_attempt_at',
      'd.last_status',
      'd.last_error',
      'd.last_duration_ms',
      'd.next_attempt_at',
    ])
    .where('d.endpoint_id', '=', endpointId)
    .where('d.created_at', '>', after)
    .orderBy('d.created_at', 'desc')
    .orderBy('d.event_id', 'desc')
    .limit(limit)
    .execute();
}

/**
 * Queues deliveries again from their first try: one finished delivery, or every failed one of
 * the endpoint created since a time. Returns how many.
 */
export async function requeueDeliveries(
  db: Kysely<Database>,
  endpointId: string,
  which: { deliveryId: string } | { failedSince: number },
  now: number,
): Promise<number> {
  let query = db
    .updateTable('webhook_deliveries')
    .set({ state: 'pending', attempts: 0, next_attempt_at: now, ended_at: null })
    .where('endpoint_id', '=', endpointId);
  query =
    'deliveryId' in which
      ? query.where('id', '=', which.deliveryId).where('state', '!=', 'pending')
      : query.where('state', '=', 'failed').where('created_at', '>=', which.failedSince);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Forgets finished deliveries created before `cutoff`, and the events none refers to any more;
 * returns how many deliveries.
 */
export async function purgeDeliveriesBefore(db: Kysely<Database>, cutoff: number): Promise<number> {
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
