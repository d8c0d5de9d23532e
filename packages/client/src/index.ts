export {
  type ChangesOptions,
  HadirClient,
  type RemovalsOptions,
  type RespondentsOptions,
} from './client.js';
export type {
  AnswerEvent,
  HadirClientOptions,
  RateLimitEvent,
  RetryEvent,
} from './client-options.js';
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
