import { generateToken, sha256Hex } from '../secret-hash.ts';

/** Every ingest token starts with this: never taken for an API key (`hadir_sk_`), nor one for it. */
export const INGEST_TOKEN_PREFIX = 'hadir_it_';
const INGEST_TOKEN_PATTERN = /^hadir_it_[0-9a-f]{64}$/;

/** A fresh token: the prefix and 256 bits from the CSPRNG as 64 lowercase hex characters. */
export function generateIngestToken(): string {
  return generateToken(INGEST_TOKEN_PREFIX);
}

export function isWellFormedIngestToken(text: string): boolean {
  return INGEST_TOKEN_PATTERN.test(text);
}

/** The stored form of a token: its SHA-256. */
export function hashIngestToken(text: string): string {
  return sha256Hex(text);
}
