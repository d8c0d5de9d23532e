import type { AccountRecord } from '../accounts/accounts.repository.ts';
import { hashPassword, verifyPassword } from '../accounts/passwords.ts';
import { generateToken } from '../secret-hash.ts';
import {
  ADDRESS_WINDOW_MS,
  decideThrottle,
  MAX_FAILED_PASSWORDS,
  PASSWORD_FAILURE_WINDOW_MS,
} from './lockout.ts';
import {
  type ClientContext,
  type PortalDeps,
  rateLimited,
  type ThrottleReason,
} from './portal-context.ts';
import { clearThrottles, hitThrottle, peekThrottle } from './throttles.repository.ts';

/** A fixed-window budget: at most `budget` hits per `windowMs`, refused for `reason`. */
export interface Budget {
  key: string;
  budget: number;
  windowMs: number;
  reason: ThrottleReason;
  message: string;
}

/** The throttles in front of every password and code attempt (see lockout.ts). */
export function createThrottles(deps: PortalDeps) {
  const { store, clock, settings } = deps;
  let dummyHash: Promise<string> | undefined;

  /** Counts one hit; 429 when the window is then over its budget. */
  async function charge(budget: Budget): Promise<void> {
    const now = clock.now();
    const window = await hitThrottle(store.db, budget.key, budget.windowMs, now);
    const decision = decideThrottle(window, budget.budget, budget.windowMs, now);
    if (decision.kind === 'throttled') {
      throw rateLimited(budget.reason, budget.message, decision.retryAfterMs);
    }
  }

  return {
    charge,

    /**
     * Counts one hit against every budget, but only when none of them is spent already: a
     * refused request uses up nothing (a stranger's refused requests cannot eat a daily budget).
     */
    async chargeAll(budgets: Budget[]): Promise<void> {
      const now = clock.now();
      for (const budget of budgets) {
        const window = await peekThrottle(store.db, budget.key, budget.windowMs, now);
        const decision = decideThrottle(
          { ...window, count: window.count + 1 },
          budget.budget,
          budget.windowMs,
          now,
        );
        if (decision.kind === 'throttled') {
          throw rateLimited(budget.reason, budget.message, decision.retryAfterMs);
        }
      }
      for (const budget of budgets) await hitThrottle(store.db, budget.key, budget.windowMs, now);
    },

    /** Forgets what budgets counted (a proven password, a redeemed code). */
    clear: (keys: string[]) => clearThrottles(store.db, keys),

    /** Counts an attempt from the client's network address; 429 past its budget. */
    chargeAddress(kind: string, client: ClientContext): Promise<void> {
      return charge({
        key: `${kind}:${client.address}`,
        budget: settings.addressAttemptsPerMinute,
        windowMs: ADDRESS_WINDOW_MS,
        reason: 'network',
        message: 'too many attempts from this network address',
      });
    },

    /**
     * Counts a password attempt against its throttle (see passwordThrottleKey) before any hashing;
     * 429 past the budget, whether or not the address has an account.
     */
    chargePassword(key: string): Promise<void> {
      return charge({
        key,
        budget: MAX_FAILED_PASSWORDS,
        windowMs: PASSWORD_FAILURE_WINDOW_MS,
        reason: 'password',
        message: 'too many failed passwords for this e-mail address from this network',
      });
    },

    /** Checks a password, or does the same work for an address without an account (timing). */
    async passwordMatches(account: AccountRecord | undefined, password: string): Promise<boolean> {
      if (account?.passwordHash) return verifyPassword(account.passwordHash, password);
      dummyHash ??= hashPassword(generateToken('dummy_'));
      await verifyPassword(await dummyHash, password);
      return false;
    },
  };
}

export type Throttles = ReturnType<typeof createThrottles>;
