import type { Kysely } from 'kysely';
import { recordAudit } from '../audit/audit.repository.ts';
import type { Clock } from '../clock.ts';
import type { Store } from '../db/connect.ts';
import type { Database } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { Resolver } from '../notifications/webhook-sender.ts';
import type { ServerSecrets } from '../secrets.ts';

export interface PortalSettings {
  /**
   * Where holders reach the service (links in mail, the get-started page): scheme, host and
   * port, no path. A function, since without PUBLIC_URL it is known once the server listens.
   */
  publicUrl: () => string;
  sessionIdleMs: number;
  sessionAbsoluteMs: number;
  /** Sign-in and code attempts per client address per minute. */
  addressAttemptsPerMinute: number;
  /** WEBHOOKS_ALLOW_PRIVATE_NETWORKS: endpoints may name this machine (development and tests). */
  webhooksAllowPrivateNetworks?: boolean;
  /**
   * Resolves an endpoint's host when a holder adds it, so the form refuses what delivery would
   * (the system's resolver in a server; tests inject theirs). Without it, only the URL is judged.
   */
  resolveWebhookHost?: Resolver;
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

/**
 * Why a portal request was throttled, so a page can say it in words: too many attempts from the
 * client's network, wrong passwords for an address from that network, code mails to an account,
 * or wrong reset codes for an address.
 */
export type ThrottleReason = 'network' | 'password' | 'code_mails' | 'reset_codes' | 'test_events';

/** 429 with the seconds to wait, in the header and in words, and the reason it was refused. */
export class RateLimitedError extends ApiError {
  readonly reason: ThrottleReason;
  readonly retryAfterSeconds: number;

  constructor(reason: ThrottleReason, message: string, retryAfterMs: number) {
    const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    super('rate_limited', `${message}; retry after ${seconds} seconds`, {
      'retry-after': String(seconds),
    });
    this.reason = reason;
    this.retryAfterSeconds = seconds;
  }
}

export function rateLimited(
  reason: ThrottleReason,
  message: string,
  retryAfterMs: number,
): RateLimitedError {
  return new RateLimitedError(reason, message, retryAfterMs);
}

/** Records a security event of an account, with where the request came from; never a secret. */
export function auditEvents(deps: PortalDeps) {
  return (
    accountId: string,
    action: string,
    client: ClientContext,
    details: object = {},
    executor: Kysely<Database> = deps.store.db,
  ) =>
    recordAudit(
      executor,
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
