import {
  clearAccountLocks,
  clearUnredeemedLoginCodes,
  countUnredeemedLoginCode,
  findAccountByEmail,
  lockAccount,
  setPassword,
} from '../accounts/accounts.repository.ts';
import { getAccountByEmail, normalizeEmail } from '../accounts/accounts.service.ts';
import { hashPassword, needsRehash } from '../accounts/passwords.ts';
import { recordAudit } from '../audit/audit.repository.ts';
import type { Clock } from '../clock.ts';
import type { Store } from '../db/connect.ts';
import { ApiError } from '../errors.ts';
import { listDeviceIds } from './devices.repository.ts';
import {
  clientNetwork,
  decideSignIn,
  deviceThrottleKey,
  passwordThrottleKey,
  passwordThrottlePrefix,
} from './lockout.ts';
import { CODE_TTL_MS, type Codes, invalidCode } from './one-time-codes.ts';
import type { Audit, ClientContext, PortalDeps } from './portal-context.ts';
import type { IssuedSession, Sessions } from './sessions.ts';
import { clearThrottles, clearThrottlesStartingWith } from './throttles.repository.ts';
import type { Throttles } from './throttles.ts';
import type { TrustedDevices } from './trusted-devices.ts';

const invalidCredentials = () =>
  new ApiError('invalid_credentials', 'the e-mail address or password is wrong');
const accountLocked = () =>
  new ApiError(
    'account_locked',
    'this account is locked after repeated unfinished sign-ins; an operator must unlock it',
  );

/**
 * How long a challenge may ask for the code to be mailed again, counted from its last code: a
 * holder whose mail is slow can ask for it on the code page without typing the password again.
 */
export const CHALLENGE_RESEND_MS = 3 * CODE_TTL_MS;

/**
 * Signing in: a password, then an e-mailed code or a trusted device. Until the password is
 * proven, a real and an unknown address get the same answers (see lockout.ts). The client that
 * proves the password receives a challenge to send back with the code: only it can spend the
 * code's tries, so nobody who knows just the address can make the holder's sign-in fail.
 */
export function createSignIn(
  deps: PortalDeps,
  parts: {
    audit: Audit;
    throttles: Throttles;
    codes: Codes;
    sessions: Sessions;
    devices: TrustedDevices;
  },
) {
  const { store, clock } = deps;
  const { audit, throttles, codes, sessions, devices } = parts;
  const db = store.db;

  return {
    /** Spec: password login; a valid trusted-device token skips the e-mailed code. */
    async login(
      input: { email: string; password: string; deviceToken?: string },
      client: ClientContext,
    ): Promise<
      | { status: 'code_sent'; challenge: string }
      | { status: 'authenticated'; session: IssuedSession }
    > {
      await throttles.chargeAddress('login', client);
      const now = clock.now();
      const email = normalizeEmail(input.email);
      const account = await findAccountByEmail(db, email);
      const device = account
        ? await devices.findValid(account.id, input.deviceToken, now)
        : undefined;
      const throttleKey = passwordThrottleKey(email, clientNetwork(client.address), device?.id);
      await throttles.chargePassword(throttleKey);
      const passwordOk = await throttles.passwordMatches(account, input.password);
      if (!account || !passwordOk || account.deactivatedAt !== null) {
        if (account) await audit(account.id, 'login.failed', client);
        throw invalidCredentials();
      }
      await clearThrottles(db, [throttleKey]);
      const decision = decideSignIn({
        lockedAt: account.lockedAt,
        unredeemedLoginCodes: account.unredeemedLoginCodes,
      });
      if (decision === 'locked') throw accountLocked();
      // Slow work first: the change below holds SQLite's one writer while it runs.
      const rehashed =
        decision === 'open' && account.passwordHash !== null && needsRehash(account.passwordHash)
          ? await hashPassword(input.password)
          : undefined;
      if (decision === 'open' && !device) await codes.charge(account, 'login');
      // The decision is applied as one change: all of it is written, or none.
      const applied = await db.transaction().execute(async (trx) => {
        if (decision === 'lock_now') {
          await lockAccount(trx, account.id, now);
          await audit(account.id, 'account.locked', client, {}, trx);
          return { kind: 'locked' } as const;
        }
        if (rehashed !== undefined) {
          await setPassword(trx, account.id, rehashed, account.mustChangePassword);
        }
        if (device) {
          await devices.markUsed(device.id, now, trx);
          await clearUnredeemedLoginCodes(trx, account.id);
          const session = await sessions.issue(account.id, trx);
          const details = { via: 'trusted_device', deviceId: device.id };
          await audit(account.id, 'login', client, details, trx);
          return { kind: 'authenticated', session } as const;
        }
        const challenge = codes.newChallenge();
        const mail = await codes.store(trx, account, 'login', null, client, challenge);
        await countUnredeemedLoginCode(trx, account.id);
        return { kind: 'code_sent', challenge, mail } as const;
      });
      switch (applied.kind) {
        case 'locked':
          throw accountLocked();
        case 'authenticated':
          return { status: 'authenticated', session: applied.session };
        case 'code_sent':
          // Mailed once the code is stored for good.
          await applied.mail();
          return { status: 'code_sent', challenge: applied.challenge };
      }
    },

    /**
     * Mails the sign-in code again for the client holding its challenge: the same code while it
     * lives, else a new one under the same challenge. Anything else answers as an address
     * without a pending code would.
     */
    async resendCode(input: { email: string; challenge: string }, client: ClientContext) {
      await throttles.chargeAddress('resend', client);
      const account = await findAccountByEmail(db, normalizeEmail(input.email));
      if (!account || account.deactivatedAt !== null || account.lockedAt !== null) {
        throw invalidCode();
      }
      const now = clock.now();
      if (await codes.resend(account, 'login', client, input.challenge)) {
        return { status: 'code_sent' as const };
      }
      if (!(await codes.challengeIssued(account, input.challenge, now - CHALLENGE_RESEND_MS))) {
        throw invalidCode();
      }
      await codes.issue(account, 'login', null, client, input.challenge);
      await countUnredeemedLoginCode(db, account.id);
      return { status: 'code_sent' as const };
    },

    /** Spec: exchanges the e-mailed code for a session; optionally trusts this device for 30 days. */
    async verifyOtp(
      input: {
        email: string;
        code: string;
        challenge?: string;
        rememberDevice?: boolean;
        deviceLabel?: string;
      },
      client: ClientContext,
    ) {
      await throttles.chargeAddress('verify', client);
      const account = await findAccountByEmail(db, normalizeEmail(input.email));
      // A locked account answers like any address with no code pending: its state is told only
      // to a request that proved the password (see login).
      if (!account || account.deactivatedAt !== null || account.lockedAt !== null) {
        throw invalidCode();
      }
      await codes.redeem(account, 'login', null, input.code, input.challenge);
      // The code is spent; the sign-in it buys is one change.
      const session = await db.transaction().execute(async (trx) => {
        await clearUnredeemedLoginCodes(trx, account.id);
        const opened = await sessions.issue(account.id, trx);
        await audit(account.id, 'login', client, { via: 'code' }, trx);
        return opened;
      });
      if (!input.rememberDevice) return { session };
      return { session, trustedDevice: await devices.trust(account.id, input.deviceLabel, client) };
    },
  };
}

/**
 * Lifts an account's sign-in lock (see lockout.ts) and forgets its failed passwords: an operator
 * who unlocks means to let the holder in.
 */
export async function unlockSignIn(
  store: Store,
  clock: Clock,
  email: string,
): Promise<{ id: string; email: string; unlocked: true }> {
  const account = await getAccountByEmail(store, email);
  await store.db.transaction().execute(async (trx) => {
    await clearAccountLocks(trx, account.id);
    const devices = await listDeviceIds(trx, account.id);
    await clearThrottlesStartingWith(trx, passwordThrottlePrefix(account.email));
    await clearThrottles(trx, devices.map(deviceThrottleKey));
    await recordAudit(
      trx,
      { actor: 'operator', action: 'account.unlock', target: account.id },
      clock.now(),
    );
  });
  return { id: account.id, email: account.email, unlocked: true };
}
