import type { Generated, Insertable, Selectable } from 'kysely';
import type { DisclosuresTable } from './disclosure-tables.ts';
import type { ExportRunsTable, ExportsTable } from './export-tables.ts';

export type { DisclosuresTable, ExportRunsTable, ExportsTable };

/**
 * Table types shared by both engines. Every instant is epoch milliseconds in a BIGINT column, so
 * ordering, `since` comparisons and keyset positions are plain integer comparisons on either engine.
 * `answers` is JSON text on SQLite and JSONB on PostgreSQL; both arrive here as a JSON string.
 */
/**
 * The channel a commit that adds deliveries notifies on PostgreSQL (the trigger of migration
 * 0010), which serving processes listen on (see deliveryWakeUps). Fixed: the trigger holds it.
 */
export const DELIVERIES_CHANNEL = 'hadir_deliveries';

export interface Database {
  accounts: AccountsTable;
  campaigns: CampaignsTable;
  campaign_fields: CampaignFieldsTable;
  respondents: RespondentsTable;
  answer_counts: AnswerCountsTable;
  answer_values: AnswerValuesTable;
  api_keys: ApiKeysTable;
  key_scopes: KeyScopesTable;
  audit_log: AuditLogTable;
  sessions: SessionsTable;
  trusted_devices: TrustedDevicesTable;
  one_time_codes: OneTimeCodesTable;
  client_throttles: ClientThrottlesTable;
  key_usage_days: KeyUsageDaysTable;
  removals: RemovalsTable;
  respondent_changes: RespondentChangesTable;
  erasure_holds: ErasureHoldsTable;
  removals_horizon: RemovalsHorizonTable;
  respondent_versions: RespondentVersionsTable;
  ingest_tokens: IngestTokensTable;
  ingest_batches: IngestBatchesTable;
  change_windows: ChangeWindowsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  key_expiry_notices: KeyExpiryNoticesTable;
  exports: ExportsTable;
  export_runs: ExportRunsTable;
  disclosures: DisclosuresTable;
}

export interface AccountsTable {
  id: string;
  email: string;
  password_hash: string | null;
  must_change_password: number;
  deactivated_at: number | null;
  created_at: number;
  /**
   * Sign-in codes sent in a row, each after a correct password, without one redeemed; at the cap
   * the account is locked until an operator unlocks it (see lockout.ts).
   */
  unredeemed_login_codes: Generated<number>;
  locked_at: number | null;
  /** The organisation the account holder acts for, as reports of disclosures name it. */
  organisation: Generated<string | null>;
}

export interface CampaignsTable {
  id: string;
  slug: string;
  title: string;
  event_date: number | null;
  location: string | null;
  deleted_at: number | null;
  /** Maintained by triggers on `respondents`; never written by the service. */
  response_count: Generated<number>;
  attending_count: Generated<number>;
  not_attending_count: Generated<number>;
  maybe_count: Generated<number>;
  /** Bumped by triggers on every write that changes what the campaign serves. */
  version: Generated<number>;
  updated_at: number;
}

export const FIELD_TYPES = [
  'TEXT',
  'TEXTAREA',
  'EMAIL',
  'PHONE',
  'NUMBER',
  'DATE',
  'RADIO',
  'SELECT',
  'CHECKBOX',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export interface CampaignFieldsTable {
  campaign_id: string;
  key: string;
  label: string;
  type: FieldType;
  position: number;
}

export const ATTENDANCE_STATUSES = ['YES', 'NO', 'MAYBE'] as const;
export type AttendanceStatus = (typeof ATTENDANCE_STATUSES)[number];

export interface RespondentsTable {
  id: string;
  campaign_id: string;
  submitted_at: number;
  attendance_status: AttendanceStatus;
  answers: string;
}

/**
 * Each answer's values lower-cased, one row per value (a choice of a multi-select, each), for the
 * data API's filters; maintained by triggers (see 0018-answer-values.ts).
 */
export interface AnswerValuesTable {
  campaign_id: string;
  field_key: string;
  folded: string;
  respondent_id: string;
}

/** Per (campaign, single-choice field, value) answer counts, maintained by triggers. */
export interface AnswerCountsTable {
  campaign_id: string;
  field_key: string;
  value: string;
  count: number;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  /** Hex SHA-256 of the full key text; the plaintext is never stored. */
  key_hash: string;
  /** Last four characters of the key, to tell keys apart in listings. */
  hint: string;
  /** The id of the first key of a rotation chain; old and new keys share one rate-limit budget. */
  lineage_id: string;
  rotated_from_id: string | null;
  replaced_by_id: string | null;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
  last_used_at: number | null;
  /** Bumped whenever the key's scope is replaced, so compiled projections can be reused safely. */
  scope_version: number;
  /** AES-256-GCM sealed plaintext, held only until its one reveal in the portal. */
  sealed_key: Generated<string | null>;
  revealed_at: Generated<number | null>;
}

export interface SessionsTable {
  id: string;
  account_id: string;
  /** Hex SHA-256 of the session token. */
  token_hash: string;
  created_at: number;
  last_seen_at: number;
  /** Absolute end of the session, whatever its activity. */
  expires_at: number;
  step_up_until: number | null;
  ended_at: number | null;
}

export interface TrustedDevicesTable {
  id: string;
  account_id: string;
  token_hash: string;
  label: string;
  created_at: number;
  last_used_at: number | null;
  expires_at: number;
  revoked_at: number | null;
}

export type CodePurpose = 'login' | 'step_up' | 'password_reset';

export interface OneTimeCodesTable {
  id: string;
  account_id: string;
  purpose: CodePurpose;
  /** For step-up codes: the session the code elevates. */
  session_id: string | null;
  /** HMAC-SHA-256 of the code under the server's code secret. */
  code_hmac: string;
  created_at: number;
  expires_at: number;
  /** Tries by the client holding the code's challenge (see one-time-codes.ts). */
  attempts: Generated<number>;
  /** Tries without the challenge: a budget of their own that never spends the one above. */
  open_attempts: Generated<number>;
  /** For sign-in codes: SHA-256 of the challenge handed to the client that proved the password. */
  challenge_hash: Generated<string | null>;
  consumed_at: number | null;
  replaced_at: number | null;
}

/** Fixed-window counters for throttles that must hold across processes and never fail open. */
export interface ClientThrottlesTable {
  key: string;
  window_start: number;
  count: number;
}

export interface KeyScopesTable {
  key_id: string;
  campaign_id: string;
  /** JSON array of allow-listed field keys. */
  fields: string;
}

export interface AuditLogTable {
  id: Generated<number>;
  at: number;
  actor: string;
  action: string;
  target: string | null;
  details: string;
}

export type AccountRow = Selectable<AccountsTable>;
export type NewAccountRow = Insertable<AccountsTable>;
export type NewApiKeyRow = Insertable<ApiKeysTable>;
export type CampaignRow = Selectable<CampaignsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewRespondentRow = Insertable<RespondentsTable>;

/** A key's requests and rows of one day (Asia/Jakarta), summed over every serving process. */
export interface KeyUsageDaysTable {
  key_id: string;
  /** YYYY-MM-DD in Asia/Jakarta, the day its holder sees. */
  day: string;
  answered: number;
  not_modified: number;
  rate_limited: number;
  errors: number;
  rows: number;
}

/**
 * A removed respondent's tombstone: which campaign lost which id, and when. Nothing else about the
 * person is kept (see the removals feed).
 */
export interface RemovalsTable {
  campaign_id: string;
  respondent_id: string;
  /** When the removal was committed, as near as the service can tell (see removals.repository). */
  removed_at: number;
}

/**
 * When each live respondent was last written, for the changes feed: stamped in commit order
 * beside the removals (see change-stamps.repository.ts). Ids and times only.
 */
export interface RespondentChangesTable {
  respondent_id: string;
  campaign_id: string;
  /** The stamp of the commit that last wrote the respondent; PENDING until that commit stamps it. */
  changed_at: number;
}

/** A respondent an operator erased, held erased against the platform's later versions. */
export interface ErasureHoldsTable {
  respondent_id: string;
  campaign_id: string;
  erased_at: number;
}

/** When a campaign's next respondents.changed may go, and the event waiting to go then. */
export interface ChangeWindowsTable {
  campaign_id: string;
  next_at: number;
  pending_event_id: number | null;
}

/** A credential of the platform that pushes records (see src/ingest). */
export interface IngestTokensTable {
  id: string;
  name: string;
  /** SHA-256 of the token: the token itself is shown once and never kept. */
  token_hash: string;
  created_at: number;
  revoked_at: number | null;
  last_used_at: number | null;
}

/** A batch's answer, kept a day under its idempotency key, so a retry is answered again. */
export interface IngestBatchesTable {
  token_id: string;
  idempotency_key: string;
  body_hash: string;
  /** The answer's JSON. */
  answer: string;
  created_at: number;
}

/** The newest version of each respondent its source has sent (see import's versions). */
export interface RespondentVersionsTable {
  id: string;
  version: number;
  updated_at: number;
}

/** The one row saying from when the removals feed is complete. */
export interface RemovalsHorizonTable {
  id: number;
  /** The newest tombstone forgotten (or when the feed began): no `since` before it is vouched. */
  vouched_since: number;
  /** The newest stamp ever given: every later removal's stamp is after it. */
  last_stamp: number;
}

/** Where a key's holder hears of changes (see src/notifications). */
export interface WebhookEndpointsTable {
  id: string;
  /** The key's rotation chain (its first key's id): an endpoint outlives a rotation. */
  lineage_id: string;
  url: string;
  /** JSON array of the event types it receives; every type when empty. */
  event_types: string;
  /** AES-256-GCM sealed `whsec_` secret, bound to the endpoint's id. */
  secret_sealed: string;
  /** After a rotation, the old secret signs beside the new one until previous_secret_until. */
  previous_secret_sealed: string | null;
  previous_secret_until: number | null;
  created_at: number;
  disabled_at: number | null;
  disabled_reason: string | null;
  /** The first failure since the last success: DISABLE_AFTER_FAILING_DAYS of failures disable the endpoint. */
  failing_since: number | null;
  last_success_at: number | null;
}

/** An event of the outbox, written in the transaction of the change it reports. */
export interface WebhookEventsTable {
  id: Generated<number>;
  type: string;
  campaign_id: string | null;
  /** Set when the event concerns one key's chain alone. */
  lineage_id: string | null;
  /** The event's `data`, as JSON: ids and counts, never an answer. */
  data: string;
  created_at: number;
}

export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'skipped';

/** One event on its way to one endpoint; its id is the message's `webhook-id`. */
export interface WebhookDeliveriesTable {
  id: string;
  event_id: number;
  endpoint_id: string;
  state: DeliveryState;
  attempts: Generated<number>;
  next_attempt_at: number;
  last_attempt_at: number | null;
  last_status: number | null;
  last_error: string | null;
  last_duration_ms: number | null;
  created_at: number;
  ended_at: number | null;
}

/** The expiry notices (7 and 1 days before) a key has had. */
export interface KeyExpiryNoticesTable {
  key_id: string;
  days_before: number;
}
