import { recordAudit } from '../audit/audit.repository.ts';
import type { Clock } from '../clock.ts';
import type { Store } from '../db/connect.ts';
import { ApiError } from '../errors.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { ServerSecrets } from '../secrets.ts';

export interface PortalSettings {
  sessionIdleMs: number;
  sessionAbsoluteMs: number;
  /** Sign-in and code attempts per client address per minute. */
  addressAttemptsPerMinute: number;
}

/** What every part of the portal works with. */
export interface PortalDeps {
  store: Store;
  clock: Clock;
  secrets: ServerSecrets;
  mailer: Mailer;
  settings: PortalSettings;
}

/** Where a request came from, for throttles and the audit log. */
export interface ClientContext {
  address: string;
  deviceLabel?: string;
}

export const iso = (ms: number) => new Date(ms).toISOString();

/** 429 with the seconds to wait, in the header and in words. */
export function rateLimited(message: string, retryAfterMs: number): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new ApiError('rate_limited', `${message}; retry after ${seconds} seconds`, {
    'retry-after': String(seconds),
  });
}

/** Records a security event of an account, with where the request came from; never a secret. */
export function auditEvents(deps: PortalDeps) {
  return (accountId: string, action: string, client: ClientContext, details: object = {}) =>
    recordAudit(
      deps.store.db,
      {
        actor: accountId,
        action,
        target: accountId,
        details: { address: client.address, deviceLabel: client.deviceLabel ?? null, ...details },
      },
      deps.clock.now(),
    );
}

export type Audit = ReturnType<typeof auditEvents>;
