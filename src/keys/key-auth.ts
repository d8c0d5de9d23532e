import type { FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Store } from '../db/store.ts';
import { ApiError } from '../errors.ts';
import { SingleFlight } from '../single-flight.ts';
import { Speedups } from '../speedups.ts';
import { bearerToken, isWellFormedKey } from './key-format.ts';
import type { KeyUsage } from './key-usage.ts';
import { type AuthenticatedKey, type KeyVerification, verifyKey } from './keys.service.ts';

/**
 * Reads the presented key and records the verdict on the request without rejecting yet: the rate
 * limit runs next and must count failed attempts per client address. A valid key's use is noted
 * for its holder (see KeyUsage), never written here.
 */
export function authenticateKey(
  store: Store,
  clock: Clock,
  usage: KeyUsage,
  speedups = Speedups.ALL_ON,
) {
  // Requests with the same key at the same moment share one lookup (see SingleFlight).
  const lookups = new SingleFlight<KeyVerification>(speedups.on('single-flight'));
  return async function authenticateKeyHook(request: FastifyRequest): Promise<void> {
    const text = bearerToken(request.headers.authorization);
    const verification =
      text === undefined || !isWellFormedKey(text)
        ? await verifyKey(store, { bearer: text }, clock.now())
        : await lookups.run(text, () => verifyKey(store, { bearer: text }, clock.now()));
    if (verification.kind === 'valid') usage.note(verification.key.id, clock.now());
    request.keyVerification = verification;
  };
}

/** Why a key is refused, in the words every way of reading data uses. */
export function keyRejection(verification: Exclude<KeyVerification, { kind: 'valid' }>): string {
  switch (verification.kind) {
    case 'missing':
      return 'an API key is required: send Authorization: Bearer <key>';
    case 'malformed':
      return 'the API key is malformed: expected hadir_sk_ followed by 64 lowercase hex characters';
    case 'unknown':
      return 'the API key is not known';
    case 'revoked':
      return 'the API key has been revoked';
    case 'expired':
      return 'the API key has expired';
    case 'account_deactivated':
      return "the API key's account is deactivated";
  }
}

/**
 * The key of an authenticated request, or 401 `unauthorized` for any other verdict (spec,
 * Authentication 5). Asked once per data request, before its parameters are read.
 */
export function requireKey(request: FastifyRequest): AuthenticatedKey {
  const verification = request.keyVerification ?? { kind: 'missing' };
  if (verification.kind === 'valid') return verification.key;
  throw new ApiError('unauthorized', keyRejection(verification), {
    'www-authenticate': 'Bearer realm="hadir"',
  });
}
