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

/** Disables a live endpoint; true when this call disabled it. */
export async function disableEndpoint(
  db: Kysely<Database>,
  endpointId: string,
  at: number,
  reason: string,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set({ disabled_at: at, disabled_reason: reason })
    .where('id', '=', endpointId)
    .where('disabled_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
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
