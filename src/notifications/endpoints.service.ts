import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { recordAudit } from '../audit/audit.repository.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import type { Store } from '../db/store.ts';
import { DomainError } from '../errors.ts';
import { EVENT_TYPES, type EventType, isEventType } from '../journal/events.ts';
import { recordEvents } from '../journal/journal.repository.ts';
import { keyStatus, lifetimeOf } from '../key-in-force.ts';
import { findKeyById } from '../keys/keys.repository.ts';
import { urlProblem } from '../outbound/url-problem.ts';
import { DAY_MS } from '../time-units.ts';
import {
  lastTestEventAt,
  newestDeliveryId,
  requeueDeliveries,
  selectDeliveryLog,
} from './delivery-log.repository.ts';
import {
  countEndpointsOf,
  deleteEndpoint,
  disableEndpoint,
  type EndpointRow,
  enableEndpointWithDeliveries,
  endpointExists,
  findSealedSecret,
  insertEndpoint,
  replaceSecret,
  selectEndpoints,
} from './endpoints.repository.ts';
import { newWebhookSecret, sealSecret } from './signing.ts';

/** After a rotation the old secret signs beside the new one this long. */
export const SECRET_OVERLAP_MS = DAY_MS;
/** The delivery log goes back this far. */
export const DELIVERY_LOG_MS = 30 * DAY_MS;
export const MAX_ENDPOINTS_PER_KEY = 10;

/** What the service needs to manage endpoints. */
export interface EndpointSettings {
  store: Store;
  clock: Clock;
  /** webhookSealKey(keySealKey). */
  sealKey: Buffer;
  allowPrivateNetworks: boolean;
  /** Who acts, for the audit log: `operator` or an account id. */
  actor: string;
}

export interface EndpointView {
  id: string;
  /** The key (its rotation chain's first id) whose events it receives. */
  keyId: string;
  url: string;
  /** Empty: every type. */
  events: EventType[];
  status: 'enabled' | 'disabled';
  disabledReason: string | null;
  createdAt: string;
  lastSuccessAt: string | null;
  failingSince: string | null;
  /** After a rotation, when the old secret stops signing. */
  previousSecretUntil: string | null;
}

function iso(value: number | string | null): string | null {
  return value === null ? null : new Date(Number(value)).toISOString();
}

/** A URL notifications may not go to (see urlProblem): the caller says it at the URL field. */
export class EndpointUrlRefused extends DomainError {
  constructor(problem: string) {
    super('invalid', `the URL ${problem}`);
    this.name = 'EndpointUrlRefused';
  }
}

/** Parses `a,b` or a list into event types; every type when empty. Refuses unknown names. */
export function parseEventTypes(names: readonly string[]): EventType[] {
  const unknown = names.filter((name) => !isEventType(name));
  if (unknown.length > 0) {
    throw new DomainError(
      'invalid',
      `unknown event type ${unknown.join(', ')}; known: ${EVENT_TYPES.join(', ')}`,
    );
  }
  return [...new Set(names as EventType[])];
}

async function lineageOf(settings: EndpointSettings, keyId: string): Promise<string> {
  const { store, clock } = settings;
  const key = await findKeyById(store.db, keyId);
  if (!key) throw new DomainError('not_found', `no key with id ${keyId}`);
  const now = clock.now();
  if (keyStatus(lifetimeOf(key), now) !== 'active') {
    throw new DomainError('conflict', `key ${keyId} is no longer in force`);
  }
  return key.lineage_id;
}

/** Adds an endpoint to a key; returns it and its secret, shown this once. */
export async function addEndpoint(
  settings: EndpointSettings,
  input: { keyId: string; url: string; events?: readonly string[] },
): Promise<{ endpoint: EndpointView; secret: string }> {
  const { store, clock } = settings;
  const problem = urlProblem(input.url, settings.allowPrivateNetworks);
  if (problem) throw new EndpointUrlRefused(problem);
  const events = parseEventTypes(input.events ?? []);
  const lineageId = await lineageOf(settings, input.keyId);
  const id = `ep_${randomBytes(12).toString('base64url')}`;
  const secret = newWebhookSecret();
  const now = clock.now();
  await store.db.transaction().execute(async (trx) => {
    if ((await countEndpointsOf(trx, lineageId)) >= MAX_ENDPOINTS_PER_KEY) {
      throw new DomainError(
        'conflict',
        `key ${input.keyId} already has ${MAX_ENDPOINTS_PER_KEY} endpoints; remove one first`,
      );
    }
    await insertEndpoint(trx, {
      id,
      lineage_id: lineageId,
      url: input.url,
      event_types: JSON.stringify(events),
      secret_sealed: sealSecret(secret, settings.sealKey, id),
      previous_secret_sealed: null,
      previous_secret_until: null,
      created_at: now,
      disabled_at: null,
      disabled_reason: null,
      failing_since: null,
      last_success_at: null,
    });
    await recordAudit(
      trx,
      {
        actor: settings.actor,
        action: 'webhook.add',
        target: id,
        details: { key: lineageId, events },
      },
      now,
    );
  });
  return { endpoint: await getEndpoint(settings, id), secret };
}

/** An endpoint as the CLI and the portal show it: never its secret. */
function viewOf(row: EndpointRow): EndpointView {
  return {
    id: row.id,
    keyId: row.lineage_id,
    url: row.url,
    events: JSON.parse(row.event_types),
    status: row.disabled_at === null ? 'enabled' : 'disabled',
    disabledReason: row.disabled_reason,
    createdAt: iso(row.created_at) as string,
    lastSuccessAt: iso(row.last_success_at),
    failingSince: iso(row.failing_since),
    previousSecretUntil: iso(row.previous_secret_until),
  };
}

export async function listEndpoints(
  settings: Pick<EndpointSettings, 'store'>,
  keyId?: string,
): Promise<EndpointView[]> {
  const { db } = settings.store;
  if (keyId === undefined) return (await selectEndpoints(db)).map(viewOf);
  const key = await findKeyById(db, keyId);
  if (!key) throw new DomainError('not_found', `no key with id ${keyId}`);
  return (await selectEndpoints(db, { lineageId: key.lineage_id })).map(viewOf);
}

export async function getEndpoint(
  settings: Pick<EndpointSettings, 'store'>,
  id: string,
): Promise<EndpointView> {
  const [row] = await selectEndpoints(settings.store.db, { id });
  if (!row) throw new DomainError('not_found', `no endpoint with id ${id}`);
  return viewOf(row);
}

async function requireEndpoint(settings: EndpointSettings, id: string): Promise<void> {
  if (!(await endpointExists(settings.store.db, id))) {
    throw new DomainError('not_found', `no endpoint with id ${id}`);
  }
}

/**
 * One change to an existing endpoint in a transaction of its own, with its audit line; the
 * endpoint must exist.
 */
async function changeEndpoint(
  settings: EndpointSettings,
  id: string,
  action: string,
  change: (trx: Kysely<Database>, now: number) => Promise<void>,
): Promise<void> {
  await requireEndpoint(settings, id);
  const now = settings.clock.now();
  await settings.store.db.transaction().execute(async (trx) => {
    await change(trx, now);
    await recordAudit(trx, { actor: settings.actor, action, target: id }, now);
  });
}

export async function disableEndpointByHand(settings: EndpointSettings, id: string) {
  await changeEndpoint(settings, id, 'webhook.disable', async (trx, now) => {
    await disableEndpoint(trx, id, now, 'by hand');
  });
  return getEndpoint(settings, id);
}

/** Enables an endpoint again; the events it missed while disabled go at once. */
export async function enableEndpoint(settings: EndpointSettings, id: string) {
  // A fresh start: each waiting delivery gets its full schedule of tries again.
  await changeEndpoint(settings, id, 'webhook.enable', (trx, now) =>
    enableEndpointWithDeliveries(trx, id, now),
  );
  return getEndpoint(settings, id);
}

export async function removeEndpoint(settings: EndpointSettings, id: string): Promise<void> {
  await changeEndpoint(settings, id, 'webhook.remove', (trx) => deleteEndpoint(trx, id));
}

/**
 * Gives an endpoint a new secret, shown this once; the old one keeps signing beside it (two
 * signatures in the header) for SECRET_OVERLAP_MS, so a receiver can switch without a gap.
 */
export async function rotateSecret(
  settings: EndpointSettings,
  id: string,
): Promise<{ secret: string; previousSecretUntil: string }> {
  const { store, clock } = settings;
  const now = clock.now();
  const secret = newWebhookSecret();
  const until = now + SECRET_OVERLAP_MS;
  await store.db.transaction().execute(async (trx) => {
    const sealed = await findSealedSecret(trx, id);
    if (sealed === undefined) throw new DomainError('not_found', `no endpoint with id ${id}`);
    await replaceSecret(trx, id, sealSecret(secret, settings.sealKey, id), sealed, until);
    await recordAudit(trx, { actor: settings.actor, action: 'webhook.rotate', target: id }, now);
  });
  return { secret, previousSecretUntil: new Date(until).toISOString() };
}

/** One test event per endpoint in this long: enough to try a receiver, too few to flood it. */
export const TEST_EVENT_INTERVAL_MS = 10_000;

/** A test event asked for too soon after the last one (see TEST_EVENT_INTERVAL_MS). */
export class TestEventTooSoon extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super(
      'conflict',
      `a test event was sent to this endpoint less than ${TEST_EVENT_INTERVAL_MS / 1000} s ago; send another in ${retryAfterSeconds} s`,
    );
    this.name = 'TestEventTooSoon';
  }
}

/** Queues a `webhook.test` for one endpoint; returns its message id. */
export async function sendTestEvent(settings: EndpointSettings, id: string): Promise<string> {
  const { store, clock } = settings;
  await requireEndpoint(settings, id);
  return store.db.transaction().execute(async (trx) => {
    const last = await lastTestEventAt(trx, id);
    const wait = last === undefined ? 0 : last + TEST_EVENT_INTERVAL_MS - clock.now();
    if (wait > 0) throw new TestEventTooSoon(Math.ceil(wait / 1000));
    await recordEvents(
      trx,
      [{ type: 'webhook.test', endpointId: id, data: { endpointId: id } }],
      clock.now(),
    );
    return newestDeliveryId(trx, id);
  });
}

/** One line of an endpoint's delivery log. */
export interface DeliveryView {
  id: string;
  event: EventType;
  campaignId: string | null;
  state: 'pending' | 'delivered' | 'failed' | 'skipped';
  attempts: number;
  createdAt: string;
  lastAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  lastDurationMs: number | null;
  nextAttemptAt: string | null;
}

/** The endpoint's deliveries of the last 30 days, newest first. */
export async function listDeliveries(
  settings: Pick<EndpointSettings, 'store' | 'clock'>,
  endpointId: string,
  limit = 100,
): Promise<DeliveryView[]> {
  const after = settings.clock.now() - DELIVERY_LOG_MS;
  const rows = await selectDeliveryLog(settings.store.db, endpointId, after, limit);
  return rows.map((row) => ({
    id: row.id,
    event: row.type as EventType,
    campaignId: row.campaign_id,
    state: row.state,
    attempts: Number(row.attempts),
    createdAt: iso(row.created_at) as string,
    lastAttemptAt: iso(row.last_attempt_at),
    lastStatus: row.last_status,
    lastError: row.last_error,
    lastDurationMs: row.last_duration_ms,
    nextAttemptAt: row.state === 'pending' ? iso(row.next_attempt_at) : null,
  }));
}

/**
 * Sends deliveries again with their own message ids (a receiver that kept them sees the same id):
 * one, or every failed one of the endpoint since a time. Returns how many were queued.
 */
export async function redeliver(
  settings: EndpointSettings,
  endpointId: string,
  which: { deliveryId: string } | { failedSince: number },
): Promise<number> {
  const { store, clock } = settings;
  await requireEndpoint(settings, endpointId);
  const now = clock.now();
  const count = await requeueDeliveries(store.db, endpointId, which, now);
  if ('deliveryId' in which && count === 0) {
    throw new DomainError('not_found', `no finished delivery ${which.deliveryId} of ${endpointId}`);
  }
  await recordAudit(
    store.db,
    { actor: settings.actor, action: 'webhook.redeliver', target: endpointId, details: { count } },
    now,
  );
  return count;
}
