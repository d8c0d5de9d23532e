import { ApiError } from '../errors.ts';
import { PasswordRuleError } from '../portal/password-change.ts';
import { RateLimitedError } from '../portal/portal-context.ts';
import { PasswordsDifferError } from './form-input.ts';
import type { Messages } from './messages.ts';

/**
 * What a refused form says, in the holder's language: the same refusals the JSON API answers,
 * worded for a person. Anything else is not the holder's to fix and is thrown on.
 */
export function pageErrorOf(error: unknown, t: Messages): string {
  if (error instanceof PasswordRuleError) return t.errors[error.problem];
  if (error instanceof PasswordsDifferError) return t.errors.mismatch;
  if (error instanceof RateLimitedError) {
    return t.errors.throttled[error.reason](t.duration(error.retryAfterSeconds));
  }
  if (!(error instanceof ApiError)) throw error;
  switch (error.code) {
    case 'invalid_credentials':
    case 'invalid_code':
    case 'account_locked':
    case 'already_revealed':
    case 'not_revealable':
    case 'conflict':
    case 'service_unavailable':
    case 'not_found':
      return t.errors[error.code];
    case 'rate_limited':
      return t.errors.throttled.network(t.duration(Number(error.headers['retry-after'] ?? 60)));
    default:
      throw error;
  }
}
