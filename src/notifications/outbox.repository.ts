import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { campaignOf, type EventType, type NewEvent } from './events.ts';

/** A message id (`webhook-id`): the same on every attempt of one delivery. */
export function newMessageId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}

/** Whether an endpoint's list of types takes this type (an empty list takes every type). */
export function takesType(eventTypes: string, type: EventType): boolean {
  const types = JSON.parse(eventTypes) as string[];
  return types.length === 0 || types.includes(type);
}

interface EndpointChoice {
  id: string;
  event_types: string;
}

/**
 * The endpoints an event goes to: those of the chain it names, or of every chain with a key in
 * force whose scope holds its campaign. Disabled endpoints are included: their deliveries wait
 * and go when the endpoint is enabled again.
 */
async function endpointsFor(
  db: Kysely<Database>,
  event: NewEvent,
  now: number,
): Promise<EndpointChoice[]> {
  let query = db.selectFrom('webhook_endpoints as e').select(['e.id', 'e.event_types']);
  if (event.endpointId !== undefined) return query.where('e.id', '=', event.endpointId).execute();
  if (event.lineageId !== undefined) {
    return query.where('e.lineage_id', '=', event.lineageId).execute();
  }
  const campaignId = campaignOf(event);
  if (campaignId === undefined) return [];
  query = query.where(({ exists, selectFrom }) =>
    exists(
      selectFrom('api_keys as k')
        .innerJoin('key_scopes as s', 's.key_id', 'k.id')
        .select('k.id')
        .whereRef('k.lineage_id', '=', 'e.lineage_id')
        .where('s.campaign_id', '=', campaignId)
        .where('k.expires_at', '>', now)
        .where((eb) => eb.or([eb('k.revoked_at', 'is', null), eb('k.revoked_at', '>', now)])),
    ),
  );
  return query.execute();
}

/** Whether any endpoint could receive events about this campaign (cheap: before costly events). */
export async function campaignHasListeners(
  db: Kysely<Database>,
  campaignId: string,
  now: number,
): Promise<boolean> {
  return (await endpointsFor(db, { type: 'campaign.added', data: { campaignId } }, now)).length > 0;
}

/**
 * Writes events to the outbox in the caller's transaction, each with one pending delivery per
 * endpoint that takes it: a rolled-back change sends nothing, a committed one loses nothing.
 * Returns how many deliveries were queued.
 */
export async function recordEvents(
  db: Kysely<Database>,
  events: readonly NewEvent[],
  now: number,
): Promise<number> {
  let queued = 0;
  const listeners = new Map<string, EndpointChoice[]>();
  for (const event of events) {
    // Events of one campaign (and one key's chain) share their listeners.
    const audience = `${event.endpointId ?? ''}|${event.lineageId ?? ''}|${campaignOf(event) ?? ''}`;
    let endpoints = listeners.get(audience);
    if (!endpoints) {
      endpoints = await endpointsFor(db, event, now);
      listeners.set(audience, endpoints);
    }
    const receivers = endpoints.filter((endpoint) => takesType(endpoint.event_types, event.type));
    if (receivers.length === 0) continue;
    const { id } = await db
      .insertInto('webhook_events')
      .values({
        type: event.type,
        campaign_id: campaignOf(event) ?? null,
        lineage_id: event.lineageId ?? null,
        data: JSON.stringify(event.data),
        created_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('webhook_deliveries')
      .values(
        receivers.map((endpoint) => ({
          id: newMessageId(),
          event_id: Number(id),
          endpoint_id: endpoint.id,
          state: 'pending' as const,
          next_attempt_at: now,
          created_at: now,
        })),
      )
      .execute();
    queued += receivers.length;
  }
  return queued;
}
