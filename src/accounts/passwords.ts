import { randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import { isCommonPassword } from './common-passwords.ts';

/** argon2id with OWASP's baseline parameters: 19 MiB of memory, two passes, one lane. */
export const PASSWORD_HASH_OPTIONS = {
  // Algorithm.Argon2id; the enum is a const enum, which verbatimModuleSyntax cannot import.
  algorithm: 2,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 72;

/** Passwords are hashed in NFKC form, so the same characters typed differently still match. */
export function hashPassword(password: string): Promise<string> {
  return hash(password.normalize('NFKC'), PASSWORD_HASH_OPTIONS);
}

export function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  return verify(passwordHash, password.normalize('NFKC'));
}

const CURRENT_PARAMETERS = `$argon2id$v=19$m=${PASSWORD_HASH_OPTIONS.memoryCost},t=${PASSWORD_HASH_OPTIONS.timeCost},p=${PASSWORD_HASH_OPTIONS.parallelism}$`;

/** True when a stored hash was made with other parameters and should be redone at the next login. */
export function needsRehash(passwordHash: string): boolean {
  return !passwordHash.startsWith(CURRENT_PARAMETERS);
}

/** Length in Unicode code points after NFKC, the measure the length limits apply to. */
export function passwordLength(password: string): number {
  return [...password.normalize('NFKC')].length;
}

/** A random password for a new account: 24 characters from 144 bits of the CSPRNG. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}

/** Why a new password is refused. */
export type PasswordProblem = 'length' | 'same_as_current' | 'common';

/**
 * Why a new password is refused, by the one policy of the CLI, the portal and the account API;
 * undefined when it is fine. A reset or a new account knows no current password to compare with.
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
