import { randomInt } from 'node:crypto';
import type { CodePurpose } from '../db/schema.ts';
import { hmacHex } from '../secret-hash.ts';

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
