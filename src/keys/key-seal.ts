import { openSealed, seal } from '../seal.ts';

/** Seals a key's plaintext for its one reveal in the portal, bound to the key's id. */
export function sealKey(plaintext: string, sealKeyBytes: Buffer, keyId: string): string {
  return seal(plaintext, sealKeyBytes, keyId);
}

export function openSealedKey(sealed: string, sealKeyBytes: Buffer, keyId: string): string {
  return openSealed(sealed, sealKeyBytes, keyId);
}
