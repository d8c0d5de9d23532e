import { ApiError, DomainError } from '../errors.ts';
import { openSealedKey } from '../keys/key-seal.ts';
import { findSealedKey, wipeSealedKey } from '../keys/keys.repository.ts';
import { listKeys, rotateKey } from '../keys/keys.service.ts';
import { HOUR_MS } from '../time-units.ts';
import { guestListOverview, readingKeys } from './guest-list-overview.ts';
import { keyOverview } from './key-overview.ts';
import type { Audit, ClientContext, PortalDeps } from './portal-context.ts';
import type { SessionPrincipal } from './sessions.ts';
import { requireStepUp } from './step-up.ts';

/** The keys of the signed-in account: listed, revealed once, rotated, never widened. */
export function createHolderKeys(deps: PortalDeps, audit: Audit) {
  const { store, clock, secrets } = deps;

  async function ownKey(principal: SessionPrincipal, keyId: string) {
    const key = await findSealedKey(store.db, keyId);
    if (!key || key.account_id !== principal.accountId) {
      throw new ApiError('not_found', `no key ${keyId} on this account`);
    }
    return key;
  }

  return {
    async list(principal: SessionPrincipal) {
      const keys = await listKeys(store, clock, principal.email);
      return {
        data: keys.map((key) => ({
          id: key.id,
          name: key.name,
          hint: key.hint,
          status: key.status,
          createdAt: key.createdAt,
          expiresAt: key.expiresAt,
          lastUsedAt: key.lastUsedAt,
          campaigns: key.campaigns,
        })),
      };
    },

    /** The keys as the portal pages show them: state in words, scope by title, 30 days of use. */
    async overview(principal: SessionPrincipal) {
      return keyOverview(store.db, principal.accountId, clock.now());
    },

    /** The campaigns the account's keys in force read: what its guest-list page offers. */
    async guestLists(principal: SessionPrincipal) {
      const keys = await readingKeys(store.db, principal.accountId, clock.now());
      return guestListOverview(store.db, keys);
    },

    /** Shows a key the operator sealed for the portal, once; the sealed copy is wiped as it is shown. */
    async reveal(principal: SessionPrincipal, keyId: string, client: ClientContext) {
      requireStepUp(principal, clock.now());
      const key = await ownKey(principal, keyId);
      if (key.revealed_at !== null) {
        throw new ApiError('already_revealed', `key ${keyId} was already revealed`);
      }
      if (key.sealed_key === null) {
        throw new ApiError(
          'not_revealable',
          `key ${keyId} was not issued for reveal in the portal`,
        );
      }
      const plaintext = openSealedKey(key.sealed_key, secrets.keySealKey, keyId);
      if (!(await wipeSealedKey(store.db, keyId, clock.now()))) {
        throw new ApiError('already_revealed', `key ${keyId} was already revealed`);
      }
      await audit(principal.accountId, 'key.revealed', client, { keyId });
      return { key: plaintext };
    },

    async rotate(
      principal: SessionPrincipal,
      keyId: string,
      overlapHours: number,
      client: ClientContext,
    ) {
      requireStepUp(principal, clock.now());
      await ownKey(principal, keyId);
      try {
        const rotated = await rotateKey(
          store,
          clock,
          keyId,
          overlapHours * HOUR_MS,
          principal.accountId,
        );
        await audit(principal.accountId, 'key.rotated', client, { keyId, successor: rotated.id });
        return rotated;
      } catch (error) {
        if (error instanceof DomainError) throw new ApiError('conflict', error.message);
        throw error;
      }
    },
  };
}
