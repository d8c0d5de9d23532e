import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { keyInForce } from '../key-in-force.ts';
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
        .where(keyInForce('k', now)),
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
  for (const event of events)
    queued += (await insertEvent(db, event, now, now, new Map()))?.queued ?? 0;
  return queued;
}

/** One event and its deliveries, due at `due`; undefined when no endpoint takes it. */
async function insertEvent(
  db: Kysely<Database>,
  event: NewEvent,
  now: number,
  due: number,
  listeners: Map<string, EndpointChoice[]>,
): Promise<{ id: number; queued: number } | undefined> {
  const receivers = await receiversOf(db, event, now, listeners);
  if (receivers.length === 0) return undefined;
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
        next_attempt_at: due,
        created_at: now,
      })),
    )
    .execute();
  return { id: Number(id), queued: receivers.length };
}

/** The endpoints that take an event (events of one audience share one lookup). */
async function receiversOf(
  db: Kysely<Database>,
  event: NewEvent,
  now: number,
  listeners: Map<string, EndpointChoice[]>,
): Promise<EndpointChoice[]> {
  const audience = `${event.endpointId ?? ''}|${event.lineageId ?? ''}|${campaignOf(event) ?? ''}`;
  let endpoints = listeners.get(audience);
  if (!endpoints) {
    endpoints = await endpointsFor(db, event, now);
    listeners.set(audience, endpoints);
  }
  return endpoints.filter((endpoint) => takesType(endpoint.event_types, event.type));
}

/** How far apart a campaign's `respondents.changed` go under a steady stream of commits. */
export const CHANGE_WINDOW_MS = 1_000;

type ChangedEvent = Extract<NewEvent, { type: 'respondents.changed' }>;

/**
 * Records a `respondents.changed` so that under a steady stream of commits each endpoint hears of
 * a campaign about once per CHANGE_WINDOW_MS. The first after a quiet spell goes at once; a later
 * one waits for the next window, and what comes before that window opens merges into it (counts
 * added, `since` the earliest). A merge takes only an event none of whose deliveries is due yet:
 * no worker can have claimed one, and the rows it updates stay locked until this commit.
 * Returns how many deliveries were queued (0 for a merge).
 */
export async function recordChange(
  db: Kysely<Database>,
  event: ChangedEvent,
  now: number,
): Promise<number> {
  const campaignId = event.data.campaignId;
  const window = await db
    .selectFrom('change_windows')
    .select(['next_at', 'pending_event_id'])
    .where('campaign_id', '=', campaignId)
    .executeTakeFirst();
  const listeners = new Map<string, EndpointChoice[]>();
  const pending = window?.pending_event_id == null ? undefined : Number(window.pending_event_id);
  if (pending !== undefined && (await mergeInto(db, pending, event, now, listeners))) return 0;
  const nextAt = window === undefined ? 0 : Number(window.next_at);
  const due = nextAt <= now ? now : nextAt;
  const inserted = await insertEvent(db, event, now, due, listeners);
  // Nobody was told: the next change may go at once.
  if (!inserted) return 0;
  const waiting = due > now ? inserted.id : undefined;
  const values = {
    next_at: due + CHANGE_WINDOW_MS,
    pending_event_id: waiting ?? null,
  };
  await db
    .insertInto('change_windows')
    .values({ campaign_id: campaignId, ...values })
    .onConflict((oc) => oc.column('campaign_id').doUpdateSet(values))
    .execute();
  return inserted.queued;
}

/** Adds a change to the event waiting for its window, when it still waits, for the same endpoints. */
async function mergeInto(
  db: Kysely<Database>,
  eventId: number,
  change: ChangedEvent,
  now: number,
  listeners: Map<string, EndpointChoice[]>,
): Promise<boolean> {
  const held = await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({ next_attempt_at: eb.ref('next_attempt_at') }))
    .where('event_id', '=', eventId)
    .where('state', '=', 'pending')
    .where('attempts', '=', 0)
    .where('next_attempt_at', '>', now)
    .returning('endpoint_id')
    .execute();
  const all = await db
    .selectFrom('webhook_deliveries')
    .select('endpoint_id')
    .where('event_id', '=', eventId)
    .execute();
  const receivers = await receiversOf(db, change, now, listeners);
  const same = (a: ReadonlyArray<{ endpoint_id?: string; id?: string }>) =>
    a
      .map((row) => row.endpoint_id ?? row.id)
      .sort()
      .join('\n');
  if (held.length === 0 || held.length !== all.length) return false;
  if (same(held) !== same(receivers.map((endpoint) => ({ id: endpoint.id })))) return false;
  const stored = await db
    .selectFrom('webhook_events')
    .select('data')
    .where('id', '=', eventId)
    .executeTakeFirst();
  if (!stored) return false;
  const before = JSON.parse(stored.data) as ChangedEvent['data'];
  const merged: ChangedEvent['data'] = {
    campaignId: before.campaignId,
    changed: before.changed + change.data.changed,
    removed: before.removed + change.data.removed,
    since: before.since < change.data.since ? before.since : change.data.since,
  };
  await db
    .updateTable('webhook_events')
    .set({ data: JSON.stringify(merged) })
    .where('id', '=', eventId)
    .execute();
  return true;
}

/** How many tombstones the transaction stamped at `stamp`, per campaign. */
export async function removedPerCampaign(
  db: Kysely<Database>,
  stamp: number,
): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('removals')
    .select(['campaign_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('removed_at', '=', stamp)
    .groupBy('campaign_id')
    .execute();
  return new Map(rows.map((row) => [row.campaign_id, Number(row.n)]));
}

/** Up to `limit` ids of a campaign's tombstones stamped at `stamp`, after `after`, in id order. */
export async function findStampedIds(
  db: Kysely<Database>,
  campaignId: string,
  stamp: number,
  after: string,
  limit: number,
): Promise<string[]> {
  const rows = await db
    .selectFrom('removals')
    .select('respondent_id')
    .where('campaign_id', '=', campaignId)
    .where('removed_at', '=', stamp)
    .where('respondent_id', '>', after)
    .orderBy('respondent_id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.respondent_id);
}
