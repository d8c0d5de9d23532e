import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AccountRecord } from '../accounts/accounts.repository.ts';
import type { CodePurpose, Database } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import { digestsEqual, generateToken, hmacHex, sha256Hex } from '../secret-hash.ts';
import { DAY_MS, HOUR_MS } from '../time-units.ts';
import * as repo from './codes.repository.ts';
import type { Audit, ClientContext, PortalDeps } from './portal-context.ts';
import type { Budget, Throttles } from './throttles.ts';

export const CODE_TTL_MS = 10 * 60_000;
/** Tries of a code by the client it was issued to (the one holding its challenge, if it has one). */
export const CODE_MAX_ATTEMPTS = 5;
/**
 * Tries of a sign-in code without its challenge (a client of the account API that does not pass
 * it on): a budget of their own, so a stranger's wrong codes never use up the holder's tries.
 */
export const OPEN_CODE_ATTEMPTS = 3;
/** Code mails per account and purpose within CODE_MAIL_WINDOW_MS (sign-in and step-up). */
export const CODE_MAILS_PER_WINDOW = 5;
export const CODE_MAIL_WINDOW_MS = 10 * 60_000;
/**
 * Reset mails per account. Anyone who knows an address can ask for one, so they are bounded by
 * the hour and by the day; a request within a code's life sends the same code again.
 */
export const RESET_MAILS_PER_HOUR = 3;
export const RESET_MAILS_PER_DAY = 6;

export const CHALLENGE_PREFIX = 'hadir_chl_';
const CHALLENGE = /^hadir_chl_[0-9a-f]{64}$/;
/** Where a reset link leads: the portal page that sets a new password. */
export const RESET_LINK_PATH = '/developer/portal/reset-password';

/**
 * The code of a stored code row: six digits of an HMAC of the row's random id under the server
 * secret. A code can be mailed again while it lives (a new request never voids one already
 * sent), and nothing stored reveals it without the secret.
 */
export function deriveCode(secret: Buffer, codeId: string): string {
  const digest = Buffer.from(hmacHex(secret, `code\u0000${codeId}`), 'hex');
  return String(digest.readUIntBE(0, 6) % 1_000_000).padStart(6, '0');
}

/**
 * The stored form of a code: an HMAC under the server secret, bound to its purpose, account and
 * (for step-up) session, so a code can only ever be redeemed where it was issued.
 */
export function codeDigest(
  secret: Buffer,
  code: string,
  binding: { purpose: CodePurpose; accountId: string; sessionId: string | null },
): string {
  return hmacHex(
    secret,
    `${binding.purpose}\u0000${binding.accountId}\u0000${binding.sessionId ?? ''}\u0000${code}`,
  );
}

/**
 * The token of a reset link: the code row's id and an HMAC of it. It holds 256 bits nobody can
 * guess, so it needs no try limit: whoever holds the mail can always finish the reset.
 */
export function resetLinkToken(secret: Buffer, codeId: string): string {
  return `${codeId}.${hmacHex(secret, `reset-link\u0000${codeId}`)}`;
}

/** The code row a reset link names, when its HMAC is right; undefined otherwise. */
export function codeIdOfResetLink(secret: Buffer, token: string): string | undefined {
  const match = /^([0-9a-f-]{36})\.([0-9a-f]{64})$/.exec(token);
  if (!match) return undefined;
  const [, codeId, mac] = match as unknown as [string, string, string];
  return digestsEqual(mac, hmacHex(secret, `reset-link\u0000${codeId}`)) ? codeId : undefined;
}

/** The mail that carries a code, in Indonesian and English. */
export function codeMail(
  purpose: CodePurpose,
  code: string,
  resetLink?: string,
): { subject: string; text: string } {
  const minutes = CODE_TTL_MS / 60_000;
  switch (purpose) {
    case 'login':
      return {
        subject: `Kode masuk Hadir: ${code}`,
        text: [
          `Kode masuk Hadir Anda: ${code}`,
          `Kode berlaku ${minutes} menit. Jangan berikan kode ini kepada siapa pun.`,
          '',
          `Your Hadir sign-in code is ${code}. It is valid for ${minutes} minutes; never share it.`,
        ].join('\n'),
      };
    case 'step_up':
      return {
        subject: `Kode verifikasi Hadir: ${code}`,
        text: [
          `Kode verifikasi Hadir Anda: ${code}`,
          `Kode ini membuka tindakan sensitif (tampilkan atau rotasi kunci API) selama ${minutes} menit.`,
          '',
          `Your Hadir verification code is ${code}. It confirms a sensitive action (key reveal or rotation).`,
        ].join('\n'),
      };
    case 'password_reset':
      return {
        subject: `Kode atur ulang kata sandi Hadir: ${code}`,
        text: [
          `Kode untuk mengatur ulang kata sandi Hadir Anda: ${code}`,
          ...(resetLink ? ['Atau buka tautan ini:', resetLink] : []),
          `Kode dan tautan berlaku ${minutes} menit. Jika Anda tidak memintanya, abaikan e-mail ini.`,
          '',
          `Your Hadir password reset code is ${code}.`,
          ...(resetLink ? ['Or open this link:', resetLink] : []),
          `The code and the link are valid for ${minutes} minutes; if you did not ask for them, ignore this mail.`,
        ].join('\n'),
      };
  }
}

export const invalidCode = () =>
  new ApiError('invalid_code', 'the code is wrong, used or expired; request a new one if needed');

/**
 * The budgets a code mail of `purpose` spends: sign-in and step-up codes per ten minutes, reset
 * mails per hour and per day.
 */
export function codeMailBudgets(accountId: string, purpose: CodePurpose): Budget[] {
  const message = 'too many codes were e-mailed to this account';
  if (purpose !== 'password_reset') {
    return [
      {
        key: `code-mail:${purpose}:${accountId}`,
        budget: CODE_MAILS_PER_WINDOW,
        windowMs: CODE_MAIL_WINDOW_MS,
        reason: 'code_mails',
        message,
      },
    ];
  }
  return [
    {
      key: `reset-mail-hour:${accountId}`,
      budget: RESET_MAILS_PER_HOUR,
      windowMs: HOUR_MS,
      reason: 'code_mails',
      message,
    },
    {
      key: `reset-mail-day:${accountId}`,
      budget: RESET_MAILS_PER_DAY,
      windowMs: DAY_MS,
      reason: 'code_mails',
      message,
    },
  ];
}

/** E-mailed one-time codes: issued, mailed (again while they live), then redeemed once. */
export function createCodes(deps: PortalDeps, audit: Audit, throttles: Throttles) {
  const { store, clock, secrets, mailer, settings } = deps;
  const db = store.db;
  const digest = (
    code: string,
    purpose: CodePurpose,
    accountId: string,
    sessionId: string | null,
  ) => codeDigest(secrets.codeHmacKey, code, { purpose, accountId, sessionId });

  /** Mails a stored code; the caller has charged the mail budget. */
  async function send(account: AccountRecord, row: repo.CodeRow, client: ClientContext) {
    const code = deriveCode(secrets.codeHmacKey, row.id);
    const link =
      row.purpose === 'password_reset'
        ? `${settings.publicUrl()}${RESET_LINK_PATH}?token=${resetLinkToken(secrets.codeHmacKey, row.id)}`
        : undefined;
    try {
      await mailer.send({ to: account.email, ...codeMail(row.purpose, code, link) });
    } catch (error) {
      throw new ApiError(
        'service_unavailable',
        'the code could not be e-mailed; retry shortly',
        { 'retry-after': '30' },
        error,
      );
    }
    await audit(account.id, 'code.sent', client, { purpose: row.purpose });
  }

  /** Charges the budget of the mail a new code of `purpose` would send; 429 past it. */
  async function charge(account: AccountRecord, purpose: CodePurpose): Promise<void> {
    await throttles.chargeAll(codeMailBudgets(account.id, purpose));
  }

  /**
   * Stores a new code through `executor` (the transaction of a sign-in, say), retiring any open
   * one of the same account and purpose, and returns its mailing, to run once that commits.
   * The caller has charged the budget (see charge).
   */
  async function storeCode(
    executor: Kysely<Database>,
    account: AccountRecord,
    purpose: CodePurpose,
    sessionId: string | null,
    client: ClientContext,
    challenge?: string,
  ): Promise<() => Promise<void>> {
    const now = clock.now();
    const id = randomUUID();
    const row: repo.CodeRow = {
      id,
      account_id: account.id,
      purpose,
      session_id: sessionId,
      code_hmac: digest(deriveCode(secrets.codeHmacKey, id), purpose, account.id, sessionId),
      created_at: now,
      expires_at: now + CODE_TTL_MS,
      attempts: 0,
      open_attempts: 0,
      challenge_hash: challenge === undefined ? null : sha256Hex(challenge),
      consumed_at: null,
      replaced_at: null,
    };
    await repo.replaceCode(executor, row);
    return () => send(account, row, client);
  }

  return {
    /**
     * Issues and mails a new code, retiring any open one of the same account and purpose. A
     * sign-in code is issued with the challenge handed to the client that proved the password
     * (see newChallenge); only its hash is stored.
     */
    async issue(
      account: AccountRecord,
      purpose: CodePurpose,
      sessionId: string | null,
      client: ClientContext,
      challenge?: string,
    ): Promise<void> {
      // Charged before the row is stored: a code over the budget is never issued.
      await charge(account, purpose);
      const mail = await storeCode(db, account, purpose, sessionId, client, challenge);
      await mail();
    },

    charge,
    store: storeCode,

    /**
     * Mails the open code again, the same code; false when none is open, or when its own tries
     * are spent (a reset mail is still sent again then: its link works whatever the code's tries).
     */
    async resend(
      account: AccountRecord,
      purpose: CodePurpose,
      client: ClientContext,
      challenge?: string,
    ): Promise<boolean> {
      const open = await repo.findOpenCode(
        db,
        { accountId: account.id, purpose, sessionId: null },
        clock.now(),
      );
      if (!open || !holdsChallenge(open, challenge)) return false;
      if (purpose !== 'password_reset' && open.attempts >= CODE_MAX_ATTEMPTS) return false;
      await charge(account, purpose);
      await send(account, open, client);
      return true;
    },

    /** A fresh challenge for a client that has just proven the password. */
    newChallenge: () => generateToken(CHALLENGE_PREFIX),

    /** Whether some sign-in code of the account was issued with this challenge, since `since`. */
    async challengeIssued(account: AccountRecord, challenge: string, since: number) {
      if (!CHALLENGE.test(challenge)) return false;
      return repo.hasCodeWithChallenge(db, account.id, sha256Hex(challenge), since);
    },

    /**
     * Redeems a code: one try is taken atomically, then the code is spent by one guarded UPDATE.
     * A try with the code's challenge (or of a code without one) counts against the code's own
     * tries; a sign-in try without its challenge counts against OPEN_CODE_ATTEMPTS and leaves
     * the challenged client's tries alone. With no code pending there is nothing to count.
     */
    async redeem(
      account: AccountRecord,
      purpose: CodePurpose,
      sessionId: string | null,
      code: string,
      challenge?: string,
    ): Promise<void> {
      const now = clock.now();
      const open = await repo.findOpenCode(db, { accountId: account.id, purpose, sessionId }, now);
      if (!open) throw invalidCode();
      const tried = holdsChallenge(open, challenge)
        ? await repo.takeAttempt(db, open.id, 'attempts', CODE_MAX_ATTEMPTS)
        : await repo.takeAttempt(db, open.id, 'open_attempts', OPEN_CODE_ATTEMPTS);
      const matches =
        tried && digestsEqual(open.code_hmac, digest(code, purpose, account.id, sessionId));
      if (!matches || !(await repo.consumeCode(db, open.id, now))) throw invalidCode();
    },

    /** Spends the reset code a link names; the account it belongs to, or invalid_code. */
    async redeemResetLink(token: string): Promise<string> {
      const codeId = codeIdOfResetLink(secrets.codeHmacKey, token);
      const now = clock.now();
      const row = codeId ? await repo.findCode(db, codeId) : undefined;
      if (
        row?.purpose !== 'password_reset' ||
        row.expires_at <= now ||
        !(await repo.consumeCode(db, row.id, now))
      ) {
        throw invalidCode();
      }
      return row.account_id;
    },

    /** Whether a reset link is still good, without spending it (the page that asks for a password). */
    async resetLinkIsOpen(token: string): Promise<boolean> {
      const codeId = codeIdOfResetLink(secrets.codeHmacKey, token);
      const row = codeId ? await repo.findCode(db, codeId) : undefined;
      return (
        row !== undefined &&
        row.purpose === 'password_reset' &&
        row.consumed_at === null &&
        row.replaced_at === null &&
        row.expires_at > clock.now()
      );
    },
  };
}

/** Whether a try comes from the client a code was issued to (any try, for a code without a challenge). */
function holdsChallenge(row: repo.CodeRow, challenge: string | undefined): boolean {
  if (row.challenge_hash === null) return true;
  return (
    challenge !== undefined &&
    CHALLENGE.test(challenge) &&
    digestsEqual(row.challenge_hash, sha256Hex(challenge))
  );
}

export type Codes = ReturnType<typeof createCodes>;
