import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { openSealed, seal } from '../seal.ts';
import { deriveKey } from '../secrets.ts';

/** Standard Webhooks' secret form: `whsec_` and base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The AES key endpoint secrets are sealed with, derived from the key-seal secret. */
export function webhookSealKey(keySealKey: Buffer): Buffer {
  return deriveKey(keySealKey, 'hadir webhook secrets');
}

/** Seals a secret bound to its endpoint: a sealed value cannot be moved to another endpoint. */
export function sealSecret(secret: string, sealKeyBytes: Buffer, endpointId: string): string {
  return seal(secret, sealKeyBytes, `webhook:${endpointId}`);
}

export function openSecret(sealed: string, sealKeyBytes: Buffer, endpointId: string): string {
  return openSealed(sealed, sealKeyBytes, `webhook:${endpointId}`);
}

/**
 * The `webhook-signature` header: one `v1,<base64>` per secret, space-separated (during a
 * rotation the old secret signs beside the new one), by the specification's own package.
 */
export function signatureHeader(
  secrets: readonly string[],
  messageId: string,
  timestamp: Date,
  body: string,
): string {
  return secrets.map((secret) => new Webhook(secret).sign(messageId, timestamp, body)).join(' ');
}
