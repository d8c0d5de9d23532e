import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals a key's plaintext with AES-256-GCM for its one reveal in the portal. The key id is bound
 * as associated data, so a sealed value cannot be moved to another key's row.
 */
export function sealKey(plaintext: string, sealKeyBytes: Buffer, keyId: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', sealKeyBytes, iv);
  cipher.setAAD(Buffer.from(keyId));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

export function openSealedKey(sealed: string, sealKeyBytes: Buffer, keyId: string): string {
  const raw = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', sealKeyBytes, raw.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(keyId));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([
    decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)),
    decipher.final(),
  ]).toString('utf8');
}
