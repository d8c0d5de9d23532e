/**
 * Spec, Respondent: `ipAddress`, `token` and `guestToken` are never returned. Hadir goes further:
 * an import drops them, no allow-list may name them, and a projection skips them all the same.
 */
export const NEVER_SERVED_FIELDS: ReadonlySet<string> = new Set([
  'ipAddress',
  'token',
  'guestToken',
]);
