import { ApiError, DomainError } from '../errors.ts';
import {
  addExport,
  type ExportSettings,
  type ExportView,
  listExports,
  type NewExport,
  ownExport,
  removeExport,
} from '../exports/exports.service.ts';
import { findKeyById } from '../keys/keys.repository.ts';
import type { PortalDeps } from './portal-context.ts';
import type { SessionPrincipal } from './sessions.ts';
import { requireStepUp } from './step-up.ts';

/** A delivery the service refused to set up, in the service's words (said on the key page). */
export class ExportRefused extends ApiError {
  constructor(message: string) {
    super('invalid_parameter', message);
  }
}

/**
 * The deliveries to a bucket of the signed-in account's keys: listed with their last run, set up
 * after a step-up (their credentials sealed and never shown), and removed. The exports service
 * audits each change with the account as its actor.
 */
export function createHolderExports(deps: PortalDeps) {
  const { store, clock, secrets } = deps;

  const settingsFor = (principal: SessionPrincipal): ExportSettings => ({
    store,
    clock,
    keySealKey: secrets.keySealKey,
    actor: principal.accountId,
    // A holder's bucket must be public, as a notification endpoint must (see bucket.ts).
    allowPrivateNetworks: deps.settings.webhooksAllowPrivateNetworks ?? false,
  });

  async function ownKey(principal: SessionPrincipal, keyId: string): Promise<void> {
    const key = await findKeyById(store.db, keyId);
    if (!key || key.account_id !== principal.accountId) {
      throw new ApiError('not_found', `no key ${keyId} on this account`);
    }
  }

  async function asPortal<T>(work: Promise<T>): Promise<T> {
    try {
      return await work;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      if (error.kind === 'not_found') throw new ApiError('not_found', error.message);
      throw new ExportRefused(error.message);
    }
  }

  return {
    async list(principal: SessionPrincipal, keyId: string): Promise<ExportView[]> {
      await ownKey(principal, keyId);
      return listExports({ store, clock }, keyId);
    },

    async add(
      principal: SessionPrincipal,
      keyId: string,
      input: Omit<NewExport, 'keyId'>,
    ): Promise<ExportView> {
      requireStepUp(principal, clock.now());
      await ownKey(principal, keyId);
      const added = await asPortal(addExport(settingsFor(principal), { ...input, keyId }));
      return added;
    },

    async remove(principal: SessionPrincipal, keyId: string, exportId: string): Promise<void> {
      await ownKey(principal, keyId);
      const settings = settingsFor(principal);
      await asPortal(ownExport(settings, exportId));
      await asPortal(removeExport(settings, exportId));
    },
  };
}
