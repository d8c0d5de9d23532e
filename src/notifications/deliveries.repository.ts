import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { Engine } from '../db/store.ts';
import type { EventType } from './events.ts';

/**
 * Deliveries due now, oldest first, of enabled endpoints not in `busy` (those at their limit of
 * requests in flight). Read by the due index alone: the caller spreads them over endpoints.
 */
export async function findDue(
  db: Kysely<Database>,
  now: number,
  limit: number,
  busy: readonly string[],
): Promise<Array<{ id: string; endpoint_id: string }>> {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .select(['d.id', 'd.endpoint_id'])
    .where('d.state', '=', 'pending')
    .where('d.next_attempt_at', '<=', now)
    .where('e.disabled_at', 'is', null)
    .$if(busy.length > 0, (query) => query.where('d.endpoint_id', 'not in', busy))
    .orderBy('d.next_attempt_at')
    .limit(limit)
    .execute();
}

/**
 * Claims deliveries for one attempt: each counts the attempt and moves its due time past the
 * lease, so no other worker takes it while it is sent, and a crash frees it when the lease ends.
 * On PostgreSQL rows another worker holds are skipped (FOR UPDATE SKIP LOCKED); SQLite has one
 * writer.
 */
function claimQuery(
  db: Kysely<Database>,
  engine: Engine,
  ids: readonly string[],
  now: number,
  leaseMs: number,
) {
  const free = db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('id', 'in', ids)
    .where('state', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .$if(engine === 'postgres', (query) => query.forUpdate().skipLocked());
  return db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      attempts: eb('attempts', '+', 1),
      next_attempt_at: now + leaseMs,
      last_attempt_at: now,
    }))
    .where('id', 'in', free)
    .returning('id');
}

/**
 * Claims deliveries for one attempt (see claimQuery), and reads what sending them needs. Returns
 * the deliveries won, with their attempt number.
 */
export async function claimForSending(
  db: Kysely<Database>,
  engine: Engine,
  ids: readonly string[],
  now: number,
  leaseMs: number,
): Promise<DeliveryToSend[]> {
  if (ids.length === 0) return [];
  const won = await claimQuery(db, engine, ids, now, leaseMs).execute();
  return loadDeliveries(
    db,
    won.map((row) => row.id),
  );
}

/** What sending a claimed delivery needs: its event, its endpoint, and the endpoint's chain. */
export interface DeliveryToSend {
  id: string;
  attempts: number;
  type: EventType;
  campaignId: string | null;
  /** Set when the event concerns one key's chain alone. */
  eventLineageId: string | null;
  data: string;
  createdAt: number;
  endpointId: string;
  url: string;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretUntil: number | null;
  lineageId: string;
  failingSince: number | null;
}

async function loadDeliveries(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<DeliveryToSend[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as v', 'v.id', 'd.event_id')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .select(SENDING_COLUMNS)
    .where('d.id', 'in', ids)
    .execute();
  return rows.map(toSend);
}

/** The columns of a delivery, its event and its endpoint that sending needs. */
const SENDING_COLUMNS = [
  'd.id',
  'd.attempts',
  'v.type',
  'v.campaign_id',
  'v.lineage_id as event_lineage_id',
  'v.data',
  'v.created_at',
  'e.id as endpoint_id',
  'e.url',
  'e.secret_sealed',
  'e.previous_secret_sealed',
  'e.previous_secret_until',
  'e.lineage_id',
  'e.failing_since',
] as const;

function toSend(row: {
  id: string;
  attempts: number | string;
  type: string;
  campaign_id: string | null;
  event_lineage_id: string | null;
  data: string;
  created_at: number | string;
  endpoint_id: string;
  url: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_until: number | string | null;
  lineage_id: string;
  failing_since: number | string | null;
}): DeliveryToSend {
  return {
    id: row.id,
    attempts: Number(row.attempts),
    type: row.type as EventType,
    campaignId: row.campaign_id,
    eventLineageId: row.event_lineage_id,
    data: row.data,
    createdAt: Number(row.created_at),
    endpointId: row.endpoint_id,
    url: row.url,
    secretSealed: row.secret_sealed,
    previousSecretSealed: row.previous_secret_sealed,
    previousSecretUntil: nullable(row.previous_secret_until),
    lineageId: row.lineage_id,
    failingSince: nullable(row.failing_since),
  };
}

function nullable(value: number | string | null): number | null {
  return value === null ? null : Number(value);
}

/**
 * What the chains may read now: for each chain with a key in force (not revoked, not expired,
 * its account active), the campaigns its newest such key has in scope, each with whether it is
 * live. A chain with no key in force is absent.
 */
export async function readableNow(
  db: Kysely<Database>,
  lineageIds: readonly string[],
  now: number,
): Promise<Map<string, Map<string, { live: boolean }>>> {
  const readable = new Map<string, Map<string, { live: boolean }>>();
  if (lineageIds.length === 0) return readable;
  // Every key in force of these chains with its scope, newest key first: one read.
  const rows = await db
    .selectFrom('api_keys as k')
    .innerJoin('accounts as a', 'a.id', 'k.account_id')
    .leftJoin('key_scopes as s', 's.key_id', 'k.id')
    .leftJoin('campaigns as c', 'c.id', 's.campaign_id')
    .select(['k.id', 'k.lineage_id', 's.campaign_id', 'c.deleted_at'])
    .where('k.lineage_id', 'in', lineageIds)
    .where('k.expires_at', '>', now)
    .where((eb) => eb.or([eb('k.revoked_at', 'is', null), eb('k.revoked_at', '>', now)]))
    .where('a.deactivated_at', 'is', null)
    .orderBy('k.created_at', 'desc')
    .orderBy('k.id')
    .execute();
  const newest = new Map<string, string>();
  for (const row of rows) {
    if (!newest.has(row.lineage_id)) {
      newest.set(row.lineage_id, row.id);
      readable.set(row.lineage_id, new Map());
    }
    if (newest.get(row.lineage_id) !== row.id || row.campaign_id === null) continue;
    readable.get(row.lineage_id)?.set(row.campaign_id, { live: row.deleted_at === null });
  }
  return readable;
}

/** How an attempt ended, as the delivery row records it. */
export interface AttemptRecord {
  status: number | null;
  error: string | null;
  durationMs: number;
}

/** One attempt's end, as settleDeliveries writes it. */
export interface Settlement {
  delivery: { id: string; attempts: number };
  outcome:
    | { state: 'delivered' | 'failed' | 'skipped'; at: number }
    | { state: 'pending'; nextAttemptAt: number };
  attempt: AttemptRecord;
}

/**
 * Ends or reschedules claimed deliveries, in one statement for many: each only if its claim is
 * still this attempt's (a worker that outlived its lease must not overwrite a later attempt).
 */
export async function settleDeliveries(
  db: Kysely<Database>,
  settlements: readonly Settlement[],
): Promise<void> {
  if (settlements.length === 0) return;
  const rows = settlements.map(
    ({ delivery, outcome, attempt }) =>
      sql`(${delivery.id}, CAST(${delivery.attempts} AS integer), ${outcome.state},
        CAST(${outcome.state === 'pending' ? outcome.nextAttemptAt : null} AS bigint),
        CAST(${outcome.state === 'pending' ? null : outcome.at} AS bigint),
        CAST(${attempt.status} AS integer), CAST(${attempt.error} AS text),
        CAST(${attempt.durationMs} AS integer))`,
  );
  await sql`WITH settled (id, attempts, state, next_at, ended_at, status, error, duration) AS
      (VALUES ${sql.join(rows)})
    UPDATE webhook_deliveries SET state = settled.state,
      next_attempt_at = COALESCE(settled.next_at, webhook_deliveries.next_attempt_at),
      ended_at = settled.ended_at, last_status = settled.status, last_error = settled.error,
      last_duration_ms = settled.duration
    FROM settled
    WHERE webhook_deliveries.id = settled.id AND webhook_deliveries.attempts = settled.attempts`.execute(
    db,
  );
}

export async function noteEndpointSuccess(
  db: Kysely<Database>,
  endpointId: string,
  at: number,
): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ failing_since: null, last_success_at: at })
    .where('id', '=', endpointId)
    .execute();
}

/** Records a failure; returns since when the endpoint has failed without a success. */
export async function noteEndpointFailure(
  db: Kysely<Database>,
  endpointId: string,
  at: number,
): Promise<number> {
  await db
    .updateTable('webhook_endpoints')
    .set({ failing_since: at })
    .where('id', '=', endpointId)
    .where('failing_since', 'is', null)
    .execute();
  const row = await db
    .selectFrom('webhook_endpoints')
    .select('failing_since')
    .where('id', '=', endpointId)
    .executeTakeFirst();
  return Number(row?.failing_since ?? at);
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

/** Pending deliveries and the age of the oldest due one, for metrics. */
export async function queueState(
  db: Kysely<Database>,
  now: number,
): Promise<{ pending: number; oldestDueAt: number | null }> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => [
      eb.fn.countAll<number>().as('pending'),
      eb.fn.min('next_attempt_at').as('oldest'),
    ])
    .where('state', '=', 'pending')
    .executeTakeFirstOrThrow();
  const oldest = row.oldest === null ? null : Number(row.oldest);
  return {
    pending: Number(row.pending),
    oldestDueAt: oldest !== null && oldest <= now ? oldest : null,
  };
}
