import { createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The stored form of a high-entropy secret (API key, session or device token). 256 random bits
 * cannot be guessed or reversed, so a plain SHA-256 suffices; lookups go through a unique index.
 */
export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}

/** A token with a recognisable prefix and 256 bits from the CSPRNG as 64 lowercase hex characters. */
export function generateToken(prefix: string): string {
  return prefix + randomBytes(32).toString('hex');
}

/** HMAC-SHA-256 under a server secret: for low-entropy secrets such as 6-digit codes. */
export function hmacHex(key: Buffer, message: string): string {
  return createHmac('sha256', key).update(message).digest('hex');
}

/** Compares two hex digests in constant time. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
