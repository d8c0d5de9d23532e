import { randomUUID } from 'node:crypto';
import { recordAudit } from '../audit/audit.repository.ts';
import type { Clock } from '../clock.ts';
import type { Store } from '../db/connect.ts';
import { DomainError } from '../errors.ts';
import {
  type AccountRecord,
  findAccountByEmail,
  insertAccount,
  listAccountsWithLiveKeys,
  setDeactivatedAt,
} from './accounts.repository.ts';
import {
  generatePassword,
  hashPassword,
  newPasswordProblem,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
} from './passwords.ts';

/** E-mail addresses are compared without case; they are stored trimmed and lowercased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

function assertEmail(email: string): void {
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
    throw new DomainError('invalid', `'${email}' is not an e-mail address`);
  }
}

export interface CreatedAccount {
  id: string;
  email: string;
  /** Only when the password was generated: shown this once. */
  generatedPassword?: string;
  mustChangePassword: boolean;
}

export async function createAccount(
  store: Store,
  clock: Clock,
  input: { email: string; password?: string; mustChangePassword: boolean; organisation?: string },
): Promise<CreatedAccount> {
  const email = normalizeEmail(input.email);
  assertEmail(email);
  const organisation = input.organisation?.trim();
  if (organisation !== undefined && (organisation === '' || organisation.length > 200)) {
    throw new DomainError('invalid', 'an organisation name is 1 to 200 characters');
  }
  const password = input.password ?? generatePassword();
  // The portal's policy: a password the portal would refuse is refused here too.
  switch (newPasswordProblem(password)) {
    case 'length':
      throw new DomainError(
        'invalid',
        `a password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long`,
      );
    case 'common':
      throw new DomainError(
        'invalid',
        'that password is one of the most common passwords; choose another',
      );
    case 'same_as_current':
    case undefined:
      break;
  }
  const passwordHash = await hashPassword(password);
  const id = randomUUID();
  await store.db.transaction().execute(async (trx) => {
    if (await findAccountByEmail(trx, email)) {
      throw new DomainError('conflict', `an account with e-mail ${email} already exists`);
    }
    await insertAccount(trx, {
      id,
      email,
      password_hash: passwordHash,
      must_change_password: input.mustChangePassword ? 1 : 0,
      deactivated_at: null,
      created_at: clock.now(),
      ...(organisation ? { organisation } : {}),
    });
    await recordAudit(
      trx,
      { actor: 'operator', action: 'account.create', target: id },
      clock.now(),
    );
  });
  return {
    id,
    email,
    mustChangePassword: input.mustChangePassword,
    ...(input.password === undefined ? { generatedPassword: password } : {}),
  };
}

/** Reads an account by e-mail, or fails with a message naming the address. */
export async function getAccountByEmail(store: Store, email: string): Promise<AccountRecord> {
  const account = await findAccountByEmail(store.db, normalizeEmail(email));
  if (!account)
    throw new DomainError('not_found', `no account with e-mail ${normalizeEmail(email)}`);
  return account;
}

/**
 * Deactivates or reactivates an account. A deactivated account's keys are refused from the very
 * next request, because every request reads the account's state.
 */
export async function setAccountActive(
  store: Store,
  clock: Clock,
  email: string,
  active: boolean,
): Promise<{ id: string; email: string; active: boolean }> {
  const account = await getAccountByEmail(store, email);
  await store.db.transaction().execute(async (trx) => {
    await setDeactivatedAt(trx, account.id, active ? null : clock.now());
    await recordAudit(
      trx,
      {
        actor: 'operator',
        action: active ? 'account.reactivate' : 'account.deactivate',
        target: account.id,
      },
      clock.now(),
    );
  });
  return { id: account.id, email: account.email, active };
}

export interface AccountListing {
  id: string;
  email: string;
  createdAt: string;
  status: 'active' | 'deactivated' | 'locked';
  mustChangePassword: boolean;
  /** Keys neither revoked nor expired. */
  liveKeys: number;
}

/** Every account, oldest first, with its state and how many live keys it holds. */
export async function listAccounts(store: Store, clock: Clock): Promise<AccountListing[]> {
  const now = clock.now();
  const rows = await listAccountsWithLiveKeys(store.db, now);
  return rows.map((row) => ({
    id: row.id,
    email: row.email,
    createdAt: new Date(Number(row.created_at)).toISOString(),
    status:
      row.deactivated_at !== null ? 'deactivated' : row.locked_at !== null ? 'locked' : 'active',
    mustChangePassword: row.must_change_password === 1,
    liveKeys: Number(row.live_keys),
  }));
}
