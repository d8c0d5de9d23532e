import {
  type AccountRecord,
  clearAccountLocks,
  findAccountByEmail,
  findAccountById,
  setPassword,
} from '../accounts/accounts.repository.ts';
import { getAccountByEmail, normalizeEmail } from '../accounts/accounts.service.ts';
import { generatePassword, hashPassword, newPasswordProblem } from '../accounts/passwords.ts';
import { recordAudit } from '../audit/audit.repository.ts';
import type { Clock } from '../clock.ts';
import type { Store } from '../db/connect.ts';
import { revokeAllDevices } from './devices.repository.ts';
import { MAX_WRONG_RESET_CODES, passwordThrottlePrefix, RESET_CODE_WINDOW_MS } from './lockout.ts';
import type { Codes } from './one-time-codes.ts';
import { invalidCode } from './one-time-codes.ts';
import { PasswordRuleError } from './password-change.ts';
import type { Audit, ClientContext, PortalDeps } from './portal-context.ts';
import { endAllSessions } from './sessions.repository.ts';
import { clearThrottlesStartingWith } from './throttles.repository.ts';
import type { Throttles } from './throttles.ts';

/** The notice a reset sends, so a holder who did not ask learns of it at once. */
export const PASSWORD_RESET_NOTICE = {
  subject: 'Kata sandi Hadir Anda telah diubah / Your Hadir password was reset',
  text: [
    'Kata sandi akun Hadir Anda baru saja diatur ulang. Semua sesi dan perangkat tepercaya telah',
    'diakhiri. Jika bukan Anda yang melakukannya, segera hubungi operator Hadir Anda.',
    '',
    'The password of your Hadir account was just reset. Every session and trusted device was',
    'ended. If this was not you, contact your Hadir operator at once.',
  ].join('\n'),
};

/**
 * A forgotten password, replaced with an e-mailed code or the link beside it. The request answers
 * the same whether the address has an account or not, and as fast: the code is sent after the
 * answer. Anyone may ask, so asking never voids a code already sent (the same code is mailed
 * again while it lives), the mails are bounded per hour and per day, and wrong codes for an
 * address are refused after MAX_WRONG_RESET_CODES a day, while the mail's link still works.
 */
export function createPasswordReset(
  deps: PortalDeps,
  parts: { audit: Audit; throttles: Throttles; codes: Codes },
) {
  const { store, clock, mailer } = deps;
  const { audit, throttles, codes } = parts;
  const db = store.db;
  /** Codes being sent after their answer; close() waits for them. */
  const sending = new Set<Promise<void>>();
  /**
   * The last send of each account, so an account's sends go one after another: two requests in
   * a row must find the first one's code and mail it again, not issue two codes.
   */
  const lastSendOf = new Map<string, Promise<void>>();

  function sendInBackground(accountId: string, task: () => Promise<void>): void {
    const running = (lastSendOf.get(accountId) ?? Promise.resolve())
      .then(task)
      .catch(() => {
        // Over the send limit or the mail server away: the answer was already the same as for
        // an unknown address, and the holder may ask again.
      })
      .finally(() => {
        sending.delete(running);
        if (lastSendOf.get(accountId) === running) lastSendOf.delete(accountId);
      });
    sending.add(running);
    lastSendOf.set(accountId, running);
  }

  async function setNewPassword(
    account: AccountRecord,
    newPassword: string,
    client: ClientContext,
  ) {
    const now = clock.now();
    const passwordHash = await hashPassword(newPassword);
    await db.transaction().execute(async (trx) => {
      await setPassword(trx, account.id, passwordHash, false);
      await endAllSessions(trx, account.id, now);
      await revokeAllDevices(trx, account.id, now);
      await clearAccountLocks(trx, account.id);
      await clearThrottlesStartingWith(trx, passwordThrottlePrefix(account.email));
    });
    await audit(account.id, 'password.reset', client);
    try {
      await mailer.send({ to: account.email, ...PASSWORD_RESET_NOTICE });
    } catch {
      // The reset stands; the notice is a courtesy and the audit log has the event.
    }
    return { status: 'password_reset' as const };
  }

  return {
    async forgot(input: { email: string }, client: ClientContext) {
      await throttles.chargeAddress('forgot', client);
      const account = await findAccountByEmail(db, normalizeEmail(input.email));
      if (account && account.deactivatedAt === null) {
        sendInBackground(account.id, async () => {
          if (await codes.resend(account, 'password_reset', client)) return;
          await codes.issue(account, 'password_reset', null, client);
        });
      }
      return { status: 'code_sent' as const };
    },

    /**
     * Sets the new password, ends every session and trusted device, and lifts a sign-in lock:
     * the code proves the mailbox, which is what an operator's unlock would have checked.
     */
    async reset(
      input: { email: string; code: string; newPassword: string },
      client: ClientContext,
    ) {
      await throttles.chargeAddress('reset', client);
      // The new password's rules first: a refused password does not spend the code.
      const problem = newPasswordProblem(input.newPassword);
      if (problem) throw new PasswordRuleError(problem);
      const email = normalizeEmail(input.email);
      const triesKey = `reset-code:${email}`;
      await throttles.charge({
        key: triesKey,
        budget: MAX_WRONG_RESET_CODES,
        windowMs: RESET_CODE_WINDOW_MS,
        reason: 'reset_codes',
        message: 'too many wrong reset codes for this e-mail address; use the link in the e-mail',
      });
      const account = await findAccountByEmail(db, email);
      if (!account || account.deactivatedAt !== null) throw invalidCode();
      await codes.redeem(account, 'password_reset', null, input.code);
      await throttles.clear([triesKey]);
      return setNewPassword(account, input.newPassword, client);
    },

    /** Sets the new password with the link from the reset mail (which no wrong code can void). */
    async resetWithLink(input: { token: string; newPassword: string }, client: ClientContext) {
      await throttles.chargeAddress('reset', client);
      const problem = newPasswordProblem(input.newPassword);
      if (problem) throw new PasswordRuleError(problem);
      const accountId = await codes.redeemResetLink(input.token);
      const account = await findAccountById(db, accountId);
      if (!account || account.deactivatedAt !== null) throw invalidCode();
      return setNewPassword(account, input.newPassword, client);
    },

    /** Whether a reset link can still be used, for the page that asks for the new password. */
    resetLinkIsOpen: (token: string) => codes.resetLinkIsOpen(token),

    /** Waits for codes still being sent (the server is closing). */
    async settle(): Promise<void> {
      await Promise.all(sending);
    },
  };
}

/**
 * An operator's reset: a generated one-time password that must be changed at the next sign-in.
 * Every session and trusted device ends and a sign-in lock is lifted, as with the holder's own
 * reset; the operator hands the password over.
 */
export async function resetPasswordByOperator(
  store: Store,
  clock: Clock,
  email: string,
): Promise<{ id: string; email: string; password: string; mustChangePassword: true }> {
  const account = await getAccountByEmail(store, email);
  const password = generatePassword();
  const passwordHash = await hashPassword(password);
  const now = clock.now();
  await store.db.transaction().execute(async (trx) => {
    await setPassword(trx, account.id, passwordHash, true);
    await endAllSessions(trx, account.id, now);
    await revokeAllDevices(trx, account.id, now);
    await clearAccountLocks(trx, account.id);
    await clearThrottlesStartingWith(trx, passwordThrottlePrefix(account.email));
    await recordAudit(
      trx,
      { actor: 'operator', action: 'password.reset', target: account.id },
      now,
    );
  });
  return { id: account.id, email: account.email, password, mustChangePassword: true };
}
