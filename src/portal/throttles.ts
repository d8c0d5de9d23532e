import { hashPassword, verifyPassword } from '../accounts/passwords.ts';
import type { AccountRow } from '../db/schema.ts';
import { generateToken } from '../secret-hash.ts';
import {
  ADDRESS_WINDOW_MS,
  decideThrottle,
  MAX_FAILED_PASSWORDS,
  PASSWORD_FAILURE_WINDOW_MS,
} from './lockout.ts';
import { type ClientContext, type PortalDeps, rateLimited } from './portal-context.ts';
import { hitThrottle } from './throttles.repository.ts';

/** The throttles in front of every password and code attempt (see lockout.ts). */
export function createThrottles(deps: PortalDeps) {
  const { store, clock, settings } = deps;
  let dummyHash: Promise<string> | undefined;

  return {
    /** Counts an attempt from the client's network address; 429 past its budget. */
    async chargeAddress(kind: string, client: ClientContext): Promise<void> {
      const now = clock.now();
      const window = await hitThrottle(
        store.db,
        `${kind}:${client.address}`,
        ADDRESS_WINDOW_MS,
        now,
      );
      const decision = decideThrottle(
        window,
        settings.addressAttemptsPerMinute,
        ADDRESS_WINDOW_MS,
        now,
      );
      if (decision.kind === 'throttled') {
        throw rateLimited('too many attempts from this network address', decision.retryAfterMs);
      }
    },

    /**
     * Counts a password attempt against its throttle (see passwordThrottleKey) before any hashing;
     * 429 past the budget, whether or not the address has an account.
     */
    async chargePassword(key: string): Promise<void> {
      const now = clock.now();
      const window = await hitThrottle(store.db, key, PASSWORD_FAILURE_WINDOW_MS, now);
      const decision = decideThrottle(
        window,
        MAX_FAILED_PASSWORDS,
        PASSWORD_FAILURE_WINDOW_MS,
        now,
      );
      if (decision.kind === 'throttled') {
        throw rateLimited(
          'too many failed passwords for this e-mail address',
          decision.retryAfterMs,
        );
      }
    },

    /** Checks a password, or does the same work for an address without an account (timing). */
    async passwordMatches(account: AccountRow | undefined, password: string): Promise<boolean> {
      if (account?.password_hash) return verifyPassword(account.password_hash, password);
      dummyHash ??= hashPassword(generateToken('dummy_'));
      await verifyPassword(await dummyHash, password);
      return false;
    },
  };
}

export type Throttles = ReturnType<typeof createThrottles>;
