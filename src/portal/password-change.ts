import { findAccountByEmail, setPassword } from '../accounts/accounts.repository.ts';
import {
  hashPassword,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  passwordLength,
  verifyPassword,
} from '../accounts/passwords.ts';
import { ApiError } from '../errors.ts';
import { isCommonPassword } from './common-passwords.ts';
import { passwordThrottleKey } from './lockout.ts';
import type { Audit, ClientContext, PortalDeps } from './portal-context.ts';
import { endOtherSessions } from './sessions.repository.ts';
import type { SessionPrincipal } from './sessions.ts';
import { clearThrottles } from './throttles.repository.ts';
import type { Throttles } from './throttles.ts';
import type { TrustedDevices } from './trusted-devices.ts';

/** Why a new password is refused. */
export type PasswordProblem = 'length' | 'same_as_current' | 'common';

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

/**
 * Why a new password is refused; undefined when it is fine. A reset knows no current password to
 * compare with.
 */
export function newPasswordProblem(
  newPassword: string,
  currentPassword?: string,
): PasswordProblem | undefined {
  const length = passwordLength(newPassword);
  if (length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH) return 'length';
  if (
    currentPassword !== undefined &&
    newPassword.normalize('NFKC') === currentPassword.normalize('NFKC')
  ) {
    return 'same_as_current';
  }
  if (isCommonPassword(newPassword)) return 'common';
  return undefined;
}

/**
 * Spec: change-password, which clears mustChangePassword. Every other session ends and every
 * trusted device is revoked: whoever knew the old password is out.
 */
export function createPasswordChange(
  deps: PortalDeps,
  parts: { audit: Audit; throttles: Throttles; devices: TrustedDevices },
) {
  const { store, clock } = deps;
  const { audit, throttles, devices } = parts;

  return async (
    principal: SessionPrincipal,
    input: { currentPassword: string; newPassword: string },
    client: ClientContext,
  ) => {
    const now = clock.now();
    const account = await findAccountByEmail(store.db, principal.email);
    if (!account?.password_hash) throw new ApiError('unauthorized', 'the session has ended');
    // The new password's rules first: a request that breaks one costs no hashing.
    const problem = newPasswordProblem(input.newPassword, input.currentPassword);
    if (problem) throw new PasswordRuleError(problem);
    const throttleKey = passwordThrottleKey(account.email);
    await throttles.chargePassword(throttleKey);
    if (!(await verifyPassword(account.password_hash, input.currentPassword))) {
      throw new ApiError('invalid_credentials', 'currentPassword is wrong');
    }
    await clearThrottles(store.db, [throttleKey]);
    await setPassword(store.db, account.id, await hashPassword(input.newPassword), false);
    await endOtherSessions(store.db, account.id, principal.sessionId, now);
    await devices.revokeAll(account.id, now);
    await audit(account.id, 'password.changed', client);
    return { status: 'password_changed' as const };
  };
}
