import { generateToken, sha256Hex } from '../secret-hash.ts';

/** Every key's text starts with this; it lets scanners and people recognise a leaked key. */
export const KEY_PREFIX = 'hadir_sk_';
const KEY_PATTERN = /^hadir_sk_[0-9a-f]{64}$/;

/** A fresh key: the prefix and 256 bits from the CSPRNG as 64 lowercase hex characters. */
export function generateKeyText(): string {
  return generateToken(KEY_PREFIX);
}

export function isWellFormedKey(text: string): boolean {
  return KEY_PATTERN.test(text);
}

/** The stored form of a key: its SHA-256 (see `sha256Hex`). */
export function hashKey(text: string): string {
  return sha256Hex(text);
}

/** The last four characters, shown in listings to tell keys apart without revealing them. */
export function keyHint(text: string): string {
  return text.slice(-4);
}

/** Extracts the token of an `Authorization: Bearer …` header; undefined when absent or another scheme. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1];
}
