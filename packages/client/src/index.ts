export {
  type AnswerEvent,
  type ChangesOptions,
  HadirClient,
  type HadirClientOptions,
  type RateLimitEvent,
  type RemovalsOptions,
  type RespondentsOptions,
  type RetryEvent,
} from './client.js';
export { HadirApiError, HadirNetworkError } from './errors.js';
export type { RespondentFilter } from './filters.js';
export type {
  AttendanceStatus,
  Campaign,
  Change,
  ChangesPage,
  ErrorEnvelope,
  FieldDefinition,
  PageMeta,
  Removal,
  RemovalChange,
  RemovalsPage,
  Respondent,
  RespondentsPage,
  Summary,
  UpsertChange,
} from './types.js';
export {
  type HadirEvent,
  type HadirEventType,
  HadirWebhookError,
  HadirWebhookReplayError,
  verifyWebhook,
  WEBHOOK_TOLERANCE_MS,
  type WebhookHeaders,
  WebhookReplayGuard,
} from './webhooks.js';
