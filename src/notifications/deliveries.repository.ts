import { type Kysely, sql } from 'kysely';
import { inList, jsonRecords, listParameter } from '../db/list-parameter.ts';
import { preparedQuery } from '../db/prepared.ts';
import type { Database } from '../db/schema.ts';
import type { Store } from '../db/store.ts';
import type { EventType } from '../journal/events.ts';
import { keyInForce } from '../key-in-force.ts';

/*
 * The worker's statements run many times a second under a burst. They are prepared (see
 * prepared.ts), lists bound as one parameter (see list-parameter.ts): PostgreSQL then plans each
 * once per connection, where planning cost more than running them.
 */

const selectDue = preparedQuery((store, now: number, limit: number, busy: unknown) =>
  store.db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .select(['d.id', 'd.endpoint_id', 'e.lineage_id'])
    .where('d.state', '=', 'pending')
    .where('d.next_attempt_at', '<=', now)
    .where('e.disabled_at', 'is', null)
    .where((eb) => eb.not(inList(store, 'd.endpoint_id', busy)))
    .orderBy('d.next_attempt_at')
    .limit(limit),
);

/**
 * Deliveries due now, oldest first, of enabled endpoints not in `busy` (those at their limit of
 * requests in flight). Read by the due index alone: the caller spreads them over endpoints.
 */
export function findDue(
  store: Store,
  now: number,
  limit: number,
  busy: readonly string[],
): Promise<Array<{ id: string; endpoint_id: string; lineage_id: string }>> {
  return selectDue(store, now, limit, listParameter(store, busy));
}

/** When the next delivery not yet due comes due (a notification waiting for its window). */
export async function findNextDue(store: Store, now: number): Promise<number | undefined> {
  const row = await store.db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('next'))
    .where('state', '=', 'pending')
    .where('next_attempt_at', '>', now)
    .executeTakeFirst();
  return row?.next === null || row?.next === undefined ? undefined : Number(row.next);
}

/**
 * Claims deliveries for one attempt: each counts the attempt and moves its due time past the
 * lease, so no other worker takes it while it is sent, and a crash frees it when the lease ends.
 * On PostgreSQL rows another worker holds are skipped (FOR UPDATE SKIP LOCKED); SQLite has one
 * writer.
 */
function claimQuery(store: Store, ids: unknown, now: unknown, leaseEnd: unknown) {
  const free = store.db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where(inList(store, 'id', ids))
    .where('state', '=', 'pending')
    .where('next_attempt_at', '<=', now as number)
    .$if(store.engine === 'postgres', (query) => query.forUpdate().skipLocked());
  return store.db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      attempts: eb('attempts', '+', 1),
      next_attempt_at: leaseEnd as number,
      last_attempt_at: now as number,
    }))
    .where('id', 'in', free);
}

/** PostgreSQL: the claim and the read of what sending needs, in one statement. */
const claimAndLoad = preparedQuery((store, ids: unknown, now: number, leaseEnd: number) =>
  store.db
    .with('won', () =>
      claimQuery(store, ids, now, leaseEnd).returning([
        'id',
        'attempts',
        'event_id',
        'endpoint_id',
      ]),
    )
    .selectFrom('won as d')
    .innerJoin('webhook_events as v', 'v.id', 'd.event_id')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .select(SENDING_COLUMNS),
);

/** SQLite, which has no statement in a WITH: the claim, then the read. */
const claimOnly = preparedQuery((store, ids: unknown, now: number, leaseEnd: number) =>
  claimQuery(store, ids, now, leaseEnd).returning('id'),
);

const loadDeliveries = preparedQuery((store, ids: unknown) =>
  store.db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as v', 'v.id', 'd.event_id')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .select(SENDING_COLUMNS)
    .where(inList(store, 'd.id', ids)),
);

/**
 * Claims deliveries for one attempt (see claimQuery), and reads what sending them needs. Returns
 * the deliveries won, with their attempt number. On PostgreSQL the claim and the read are one
 * statement: the claim is the step every worker waits on, and each round trip adds to it.
 */
export async function claimForSending(
  store: Store,
  ids: readonly string[],
  now: number,
  leaseMs: number,
): Promise<DeliveryToSend[]> {
  if (ids.length === 0) return [];
  const list = listParameter(store, ids);
  if (store.engine === 'postgres') {
    return (await claimAndLoad(store, list, now, now + leaseMs)).map(toSend);
  }
  const won = await claimOnly(store, list, now, now + leaseMs);
  if (won.length === 0) return [];
  const rows = await loadDeliveries(
    store,
    listParameter(
      store,
      won.map((row) => row.id),
    ),
  );
  return rows.map(toSend);
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

/** Every key in force of these chains with its scope, newest key first: one read. */
const selectInForce = preparedQuery((store, lineageIds: unknown, now: number) =>
  store.db
    .selectFrom('api_keys as k')
    .innerJoin('accounts as a', 'a.id', 'k.account_id')
    .leftJoin('key_scopes as s', 's.key_id', 'k.id')
    .leftJoin('campaigns as c', 'c.id', 's.campaign_id')
    .select(['k.id', 'k.lineage_id', 'k.account_id', 's.campaign_id', 'c.deleted_at'])
    .where(inList(store, 'k.lineage_id', lineageIds))
    .where(keyInForce('k', now))
    .where('a.deactivated_at', 'is', null)
    .orderBy('k.created_at', 'desc')
    .orderBy('k.id'),
);

/** A chain's newest key in force, its holder, and the campaigns it has in scope. */
export interface ChainInForce {
  keyId: string;
  accountId: string;
  /** Each campaign in scope, with whether it is live (not deleted). */
  campaigns: Map<string, { live: boolean }>;
}

/**
 * What the chains may read now: for each chain with a key in force (not revoked, not expired,
 * its account active), its newest such key and the campaigns it has in scope, each with whether
 * it is live. A chain with no key in force is absent.
 */
export async function readableNow(
  store: Store,
  lineageIds: readonly string[],
  now: number,
): Promise<Map<string, ChainInForce>> {
  const readable = new Map<string, ChainInForce>();
  if (lineageIds.length === 0) return readable;
  const rows = await selectInForce(store, listParameter(store, lineageIds), now);
  for (const row of rows) {
    let chain = readable.get(row.lineage_id);
    if (!chain) {
      chain = { keyId: row.id, accountId: row.account_id, campaigns: new Map() };
      readable.set(row.lineage_id, chain);
    }
    if (chain.keyId !== row.id || row.campaign_id === null) continue;
    chain.campaigns.set(row.campaign_id, { live: row.deleted_at === null });
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
  store: Store,
  settlements: readonly Settlement[],
): Promise<void> {
  if (settlements.length === 0) return;
  const rows = settlements.map(({ delivery, outcome, attempt }) => ({
    id: delivery.id,
    attempts: delivery.attempts,
    state: outcome.state,
    next_at: outcome.state === 'pending' ? outcome.nextAttemptAt : null,
    ended_at: outcome.state === 'pending' ? null : outcome.at,
    status: attempt.status,
    error: attempt.error,
    duration: attempt.durationMs,
  }));
  await updateSettled(store, JSON.stringify(rows));
}

const updateSettled = preparedQuery((store, json: string) => {
  const settled = jsonRecords(store, json, 'settled', [
    ['id', 'text'],
    ['attempts', 'integer'],
    ['state', 'text'],
    ['next_at', 'bigint'],
    ['ended_at', 'bigint'],
    ['status', 'integer'],
    ['error', 'text'],
    ['duration', 'integer'],
  ]);
  const update = sql`UPDATE webhook_deliveries SET state = settled.state,
      next_attempt_at = COALESCE(settled.next_at, webhook_deliveries.next_attempt_at),
      ended_at = settled.ended_at, last_status = settled.status, last_error = settled.error,
      last_duration_ms = settled.duration
    FROM ${settled}
    WHERE webhook_deliveries.id = settled.id AND webhook_deliveries.attempts = settled.attempts`;
  return { compile: () => update.compile(store.db) };
});

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

/** Pending deliveries and the age of the oldest due one, for metrics. */
export interface QueueState {
  pending: number;
  /** When the oldest due delivery became due; null when none is due. */
  oldestDueAt: number | null;
  /** When the oldest delivery not yet delivered was made, due or not; null when none waits. */
  oldestPendingSince: number | null;
  /** Endpoints by state: on and delivering, on and failing, turned off. */
  endpoints: { enabled: number; failing: number; disabled: number };
}

/** The outbox as the metrics and `hadir status` show it: two small aggregate reads. */
export async function queueState(db: Kysely<Database>, now: number): Promise<QueueState> {
  const [row, endpoints] = await Promise.all([
    db
      .selectFrom('webhook_deliveries')
      .select((eb) => [
        eb.fn.countAll<number>().as('pending'),
        eb.fn.min('next_attempt_at').as('oldest'),
        eb.fn.min('created_at').as('since'),
      ])
      .where('state', '=', 'pending')
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('webhook_endpoints')
      .select((eb) => [
        eb.fn.countAll<number>().as('all'),
        eb.fn.count<number>('disabled_at').as('disabled'),
        eb.fn
          .sum<number>(
            eb
              .case()
              .when(eb.and([eb('disabled_at', 'is', null), eb('failing_since', 'is not', null)]))
              .then(1)
              .else(0)
              .end(),
          )
          .as('failing'),
      ])
      .executeTakeFirstOrThrow(),
  ]);
  const oldest = row.oldest === null ? null : Number(row.oldest);
  const disabled = Number(endpoints.disabled);
  const failing = Number(endpoints.failing ?? 0);
  return {
    pending: Number(row.pending),
    oldestDueAt: oldest !== null && oldest <= now ? oldest : null,
    oldestPendingSince: row.since === null ? null : Number(row.since),
    endpoints: { enabled: Number(endpoints.all) - disabled - failing, failing, disabled },
  };
}
