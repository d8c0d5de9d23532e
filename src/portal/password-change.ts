import { findAccountByEmail, setPassword } from '../accounts/accounts.repository.ts';
import {
  hashPassword,
  newPasswordProblem,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  type PasswordProblem,
  verifyPassword,
} from '../accounts/passwords.ts';
import { ApiError } from '../errors.ts';
import { retireOpenCodes } from './codes.repository.ts';
import { revokeAllDevices } from './devices.repository.ts';
import { MAX_WRONG_CURRENT_PASSWORDS } from './lockout.ts';
import { type Audit, type ClientContext, iso, type PortalDeps } from './portal-context.ts';
import { endOtherSessions, endSession, replaceSessionToken } from './sessions.repository.ts';
import { newSessionToken, type SessionPrincipal } from './sessions.ts';
import { clearThrottles, hitThrottle } from './throttles.repository.ts';

const PROBLEM_MESSAGES: Record<PasswordProblem, string> = {
  length: `newPassword must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long`,
  same_as_current: 'newPassword must differ from the current password',
  common: 'newPassword is one of the most common passwords; choose another',
};

/** A refused new password: a 400 whose problem the portal pages show in the holder's language. */
export class PasswordRuleError extends ApiError {
  readonly problem: PasswordProblem;

  constructor(problem: PasswordProblem) {
    super('invalid_parameter', PROBLEM_MESSAGES[problem]);
    this.problem = problem;
  }
}

/** The notice a password change sends, so a holder who did not change it learns of it at once. */
export const PASSWORD_CHANGED_NOTICE = {
  subject: 'Kata sandi Hadir Anda telah diubah / Your Hadir password was changed',
  text: [
    'Kata sandi akun Hadir Anda baru saja diubah. Sesi lain dan perangkat tepercaya telah',
    'diakhiri. Jika bukan Anda yang mengubahnya, atur ulang kata sandi lewat "Lupa kata sandi?"',
    'di halaman masuk portal, lalu hubungi operator Hadir Anda.',
    '',
    'The password of your Hadir account was just changed. Other sessions and trusted devices were',
    'ended. If this was not you, reset it with "Forgot your password?" on the portal\'s sign-in',
    'page, then contact your Hadir operator.',
  ].join('\n'),
};

/**
 * Spec: change-password, which clears mustChangePassword. Whoever knew the old password is out:
 * every other session ends, every trusted device is revoked, a pending reset code is void, and
 * the calling session gets a new token (the old one may have been seen). The holder is mailed.
 * Wrong current passwords count against the session (see MAX_WRONG_CURRENT_PASSWORDS), never
 * against sign-in: past the budget the session ends, and signing in again starts afresh.
 */
export function createPasswordChange(deps: PortalDeps, audit: Audit) {
  const { store, clock, mailer } = deps;

  return async (
    principal: SessionPrincipal,
    input: { currentPassword: string; newPassword: string },
    client: ClientContext,
  ) => {
    const account = await findAccountByEmail(store.db, principal.email);
    if (!account?.passwordHash) throw new ApiError('unauthorized', 'the session has ended');
    // The new password's rules first: a request that breaks one costs no hashing.
    const problem = newPasswordProblem(input.newPassword, input.currentPassword);
    if (problem) throw new PasswordRuleError(problem);
    if (!(await verifyPassword(account.passwordHash, input.currentPassword))) {
      await refuseWrongCurrent(principal, client);
    }
    const now = clock.now();
    const passwordHash = await hashPassword(input.newPassword);
    const rotated = newSessionToken();
    await store.db.transaction().execute(async (trx) => {
      await setPassword(trx, account.id, passwordHash, false);
      await endOtherSessions(trx, account.id, principal.sessionId, now);
      await revokeAllDevices(trx, account.id, now);
      await retireOpenCodes(trx, account.id, 'password_reset', now);
      await replaceSessionToken(trx, principal.sessionId, rotated.tokenHash);
      await clearThrottles(trx, [wrongCurrentKey(principal)]);
    });
    await audit(account.id, 'password.changed', client);
    try {
      await mailer.send({ to: account.email, ...PASSWORD_CHANGED_NOTICE });
    } catch {
      // The change stands; the notice is a courtesy and the audit log has the event.
    }
    return {
      status: 'password_changed' as const,
      session: { token: rotated.token, expiresAt: iso(principal.expiresAt) },
    };
  };

  async function refuseWrongCurrent(principal: SessionPrincipal, client: ClientContext) {
    const now = clock.now();
    const window = await hitThrottle(
      store.db,
      wrongCurrentKey(principal),
      Math.max(0, principal.expiresAt - now) + 1,
      now,
    );
    if (window.count < MAX_WRONG_CURRENT_PASSWORDS) {
      throw new ApiError('invalid_credentials', 'currentPassword is wrong');
    }
    await endSession(store.db, principal.sessionId, now);
    await audit(principal.accountId, 'session.ended', client, { why: 'wrong_current_password' });
    throw new ApiError(
      'unauthorized',
      `the current password was wrong ${MAX_WRONG_CURRENT_PASSWORDS} times: this session has ended; sign in again`,
    );
  }
}

const wrongCurrentKey = (principal: SessionPrincipal) => `current-password:${principal.sessionId}`;
