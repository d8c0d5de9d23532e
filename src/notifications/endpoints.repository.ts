import type { Kysely } from 'kysely';
import type { Database, WebhookEndpointsTable } from '../db/schema.ts';

/** The endpoints, oldest first: all, one by id, or those of one key's chain. */
export function selectEndpoints(
  db: Kysely<Database>,
  where: { id?: string; lineageId?: string } = {},
) {
  let query = db.selectFrom('webhook_endpoints').selectAll().orderBy('created_at');
  if (where.id !== undefined) query = query.where('id', '=', where.id);
  if (where.lineageId !== undefined) query = query.where('lineage_id', '=', where.lineageId);
  return query.execute();
}

export type EndpointRow = Awaited<ReturnType<typeof selectEndpoints>>[number];

export async function endpointExists(db: Kysely<Database>, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select('id')
    .where('id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}

export async function countEndpointsOf(db: Kysely<Database>, lineageId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('lineage_id', '=', lineageId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertEndpoint(
  db: Kysely<Database>,
  row: WebhookEndpointsTable,
): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

/** Disables an enabled endpoint, saying why. */
export async function disableEndpoint(
  db: Kysely<Database>,
  id: string,
  now: number,
  reason: string,
): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ disabled_at: now, disabled_reason: reason })
    .where('id', '=', id)
    .where('disabled_at', 'is', null)
    .execute();
}

/** Enables an endpoint, and gives each delivery waiting for it its full schedule again. */
export async function enableEndpointWithDeliveries(
  db: Kysely<Database>,
  id: string,
  now: number,
): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ disabled_at: null, disabled_reason: null, failing_since: null })
    .where('id', '=', id)
    .execute();
  await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: now, attempts: 0 })
    .where('endpoint_id', '=', id)
    .where('state', '=', 'pending')
    .execute();
}

/** Deletes an endpoint and its deliveries. */
export async function deleteEndpoint(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
  await db.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
}

export async function findSealedSecret(
  db: Kysely<Database>,
  id: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select('secret_sealed')
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.secret_sealed;
}

/** A new sealed secret, the one it replaces signing beside it until `previousUntil`. */
export async function replaceSecret(
  db: Kysely<Database>,
  id: string,
  sealed: string,
  previous: string,
  previousUntil: number,
): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({
      secret_sealed: sealed,
      previous_secret_sealed: previous,
      previous_secret_until: previousUntil,
    })
    .where('id', '=', id)
    .execute();
}

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
