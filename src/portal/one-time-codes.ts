import { randomInt, randomUUID } from 'node:crypto';
import type { AccountRow, CodePurpose } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import { digestsEqual, hmacHex } from '../secret-hash.ts';
import * as repo from './codes.repository.ts';
import { type Audit, type ClientContext, type PortalDeps, rateLimited } from './portal-context.ts';

export const CODE_TTL_MS = 10 * 60_000;
export const CODE_MAX_ATTEMPTS = 5;
/** At most this many codes per account and purpose within CODE_SEND_WINDOW_MS. */
export const CODES_PER_SEND_WINDOW = 5;
export const CODE_SEND_WINDOW_MS = 10 * 60_000;

/** Six digits from the CSPRNG, leading zeros kept. */
export function generateCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
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

/** The mail that carries a code, in Indonesian and English. */
export function codeMail(purpose: CodePurpose, code: string): { subject: string; text: string } {
  switch (purpose) {
    case 'login':
      return {
        subject: `Kode masuk Hadir: ${code}`,
        text: [
          `Kode masuk Hadir Anda: ${code}`,
          'Kode berlaku 10 menit. Jangan berikan kode ini kepada siapa pun.',
          '',
          `Your Hadir sign-in code is ${code}. It is valid for 10 minutes; never share it.`,
        ].join('\n'),
      };
    case 'step_up':
      return {
        subject: `Kode verifikasi Hadir: ${code}`,
        text: [
          `Kode verifikasi Hadir Anda: ${code}`,
          'Kode ini membuka tindakan sensitif (tampilkan atau rotasi kunci API) selama 10 menit.',
          '',
          `Your Hadir verification code is ${code}. It confirms a sensitive action (key reveal or rotation).`,
        ].join('\n'),
      };
    case 'password_reset':
      return {
        subject: `Kode atur ulang kata sandi Hadir: ${code}`,
        text: [
          `Kode untuk mengatur ulang kata sandi Hadir Anda: ${code}`,
          'Kode berlaku 10 menit. Jika Anda tidak memintanya, abaikan e-mail ini.',
          '',
          `Your Hadir password reset code is ${code}. It is valid for 10 minutes; if you did not ask for it, ignore this mail.`,
        ].join('\n'),
      };
  }
}

export const invalidCode = () =>
  new ApiError('invalid_code', 'the code is wrong, used or expired; request a new one if needed');

/** E-mailed one-time codes: sent, then redeemed once. */
export function createCodes(deps: PortalDeps, audit: Audit) {
  const { store, clock, secrets, mailer } = deps;
  const db = store.db;
  const digest = (
    code: string,
    purpose: CodePurpose,
    accountId: string,
    sessionId: string | null,
  ) => codeDigest(secrets.codeHmacKey, code, { purpose, accountId, sessionId });

  return {
    /** Sends a new code (replacing any open one), within CODES_PER_SEND_WINDOW. */
    async send(
      account: AccountRow,
      purpose: CodePurpose,
      sessionId: string | null,
      client: ClientContext,
    ): Promise<void> {
      const now = clock.now();
      const sent = await repo.codesSentSince(db, account.id, purpose, now - CODE_SEND_WINDOW_MS);
      if (sent.count >= CODES_PER_SEND_WINDOW) {
        throw rateLimited(
          'too many codes requested',
          (sent.oldest ?? now) + CODE_SEND_WINDOW_MS - now,
        );
      }
      const code = generateCode();
      await repo.replaceCode(db, {
        id: randomUUID(),
        account_id: account.id,
        purpose,
        session_id: sessionId,
        code_hmac: digest(code, purpose, account.id, sessionId),
        created_at: now,
        expires_at: now + CODE_TTL_MS,
        consumed_at: null,
        replaced_at: null,
      });
      try {
        await mailer.send({ to: account.email, ...codeMail(purpose, code) });
      } catch (error) {
        throw new ApiError(
          'service_unavailable',
          'the code could not be e-mailed; retry shortly',
          { 'retry-after': '30' },
          error,
        );
      }
      await audit(account.id, 'code.sent', client, { purpose });
    },

    /**
     * Redeems a code: one try is taken atomically, then the code is spent by one guarded UPDATE. A
     * wrong code counts only against the code it was tried on (five tries burn it); with no code
     * pending there is nothing to count, so nobody without the mailbox can lock anything.
     */
    async redeem(
      account: AccountRow,
      purpose: CodePurpose,
      sessionId: string | null,
      code: string,
    ): Promise<void> {
      const now = clock.now();
      const open = await repo.findOpenCode(db, { accountId: account.id, purpose, sessionId }, now);
      const tried = open ? await repo.takeCodeAttempt(db, open.id, CODE_MAX_ATTEMPTS) : false;
      const matches =
        open !== undefined &&
        tried &&
        digestsEqual(open.code_hmac, digest(code, purpose, account.id, sessionId));
      if (!matches || !(await repo.consumeCode(db, open.id, now))) throw invalidCode();
    },
  };
}

export type Codes = ReturnType<typeof createCodes>;
