export {
  HadirClient,
  type HadirClientOptions,
  type RateLimitEvent,
  type RespondentsOptions,
  type RetryEvent,
} from './client.js';
export { HadirApiError } from './errors.js';
export type {
  AttendanceStatus,
  Campaign,
  ErrorEnvelope,
  PageMeta,
  Respondent,
  RespondentsPage,
  Summary,
} from './types.js';
