import { findAccountByEmail } from '../accounts/accounts.repository.ts';
import { ApiError } from '../errors.ts';
import type { Codes } from './one-time-codes.ts';
import { type Audit, type ClientContext, iso, type PortalDeps } from './portal-context.ts';
import { setStepUpUntil } from './sessions.repository.ts';
import type { SessionPrincipal } from './sessions.ts';

/** How long a redeemed step-up code elevates its session. */
export const STEP_UP_TTL_MS = 10 * 60_000;

/** Whether the session is elevated now: key reveal and rotation need it. */
export function isSteppedUp(principal: SessionPrincipal, now: number): boolean {
  return principal.stepUpUntil !== null && principal.stepUpUntil > now;
}

/** Refuses a sensitive action (a key's reveal or rotation, an endpoint's secret) without one. */
export function requireStepUp(principal: SessionPrincipal, now: number): void {
  if (!isSteppedUp(principal, now)) {
    throw new ApiError(
      'step_up_required',
      'this action needs a step-up code: POST /developer/auth/step-up first',
    );
  }
}

/** Spec: step-up codes guard key reveal and rotation; a code is bound to its session. */
export function createStepUp(deps: PortalDeps, codes: Codes, audit: Audit) {
  const { store, clock } = deps;
  const accountOf = async (principal: SessionPrincipal) => {
    const account = await findAccountByEmail(store.db, principal.email);
    if (!account) throw new ApiError('unauthorized', 'the session has ended');
    return account;
  };

  return {
    async request(principal: SessionPrincipal, client: ClientContext) {
      await codes.issue(await accountOf(principal), 'step_up', principal.sessionId, client);
      return { status: 'code_sent' as const };
    },

    /** Elevates the current session for 10 minutes; the elevation ends with the session. */
    async redeem(principal: SessionPrincipal, code: string, client: ClientContext) {
      const account = await accountOf(principal);
      await codes.redeem(account, 'step_up', principal.sessionId, code);
      const validUntil = clock.now() + STEP_UP_TTL_MS;
      await setStepUpUntil(store.db, principal.sessionId, validUntil);
      await audit(account.id, 'step_up', client);
      return { status: 'verified' as const, validUntil: iso(validUntil) };
    },
  };
}
