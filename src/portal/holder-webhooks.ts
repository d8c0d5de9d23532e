import { ApiError, DomainError } from '../errors.ts';
import { findKeyById } from '../keys/keys.repository.ts';
import { selectEndpoints } from '../notifications/endpoints.repository.ts';
import {
  addEndpoint,
  disableEndpointByHand,
  type EndpointSettings,
  EndpointUrlRefused,
  enableEndpoint,
  listDeliveries,
  listEndpoints,
  redeliver,
  removeEndpoint,
  rotateSecret,
  sendTestEvent,
  TestEventTooSoon,
} from '../notifications/endpoints.service.ts';
import { webhookSealKey } from '../notifications/signing.ts';
import { endpointUrlProblem } from '../notifications/webhook-sender.ts';
import { urlProblem } from '../outbound/url-problem.ts';
import {
  type Audit,
  type ClientContext,
  type PortalDeps,
  RateLimitedError,
} from './portal-context.ts';
import type { SessionPrincipal } from './sessions.ts';
import { requireStepUp } from './step-up.ts';

/** How long the add form waits for an endpoint's host to resolve before leaving it to delivery. */
const LOOKUP_MS = 5_000;

/** A URL the service will not send notifications to, said as the holder can act on it. */
export class EndpointUrlError extends ApiError {
  constructor(message: string) {
    super('invalid_parameter', message);
  }
}

/**
 * The notification endpoints of the signed-in account's keys: added and rotated (their secret
 * shown once, after a step-up), tested, disabled, enabled, removed, and their delivery log.
 */
export function createHolderWebhooks(deps: PortalDeps, audit: Audit) {
  const { store, clock, secrets } = deps;
  const sealKey = webhookSealKey(secrets.keySealKey);

  const settingsFor = (principal: SessionPrincipal): EndpointSettings => ({
    store,
    clock,
    sealKey,
    allowPrivateNetworks: deps.settings.webhooksAllowPrivateNetworks ?? false,
    actor: principal.accountId,
  });

  /** The key's chain, when the key is the account's; a 404 otherwise. */
  async function ownKey(principal: SessionPrincipal, keyId: string): Promise<string> {
    const key = await findKeyById(store.db, keyId);
    if (!key || key.account_id !== principal.accountId) {
      throw new ApiError('not_found', `no key ${keyId} on this account`);
    }
    return key.lineage_id;
  }

  async function ownEndpoint(principal: SessionPrincipal, keyId: string, endpointId: string) {
    const lineageId = await ownKey(principal, keyId);
    const [endpoint] = await selectEndpoints(store.db, { id: endpointId });
    if (!endpoint || endpoint.lineage_id !== lineageId) {
      throw new ApiError('not_found', `no endpoint ${endpointId} on key ${keyId}`);
    }
  }

  /** Domain refusals in the portal's terms. */
  async function asPortal<T>(work: Promise<T>): Promise<T> {
    try {
      return await work;
    } catch (error) {
      if (error instanceof DomainError) {
        if (error instanceof EndpointUrlRefused) throw new EndpointUrlError(error.message);
        if (error instanceof TestEventTooSoon) {
          throw new RateLimitedError(
            'test_events',
            'a test event was just sent to this endpoint',
            error.retryAfterSeconds * 1000,
          );
        }
        throw new ApiError(error.kind === 'not_found' ? 'not_found' : 'conflict', error.message);
      }
      throw error;
    }
  }

  return {
    async list(principal: SessionPrincipal, keyId: string) {
      await ownKey(principal, keyId);
      return listEndpoints({ store }, keyId);
    },

    /**
     * Refuses a URL notifications may not go to, judged as delivery judges it (resolved
     * addresses included), before any step-up is asked for it.
     */
    async checkUrl(principal: SessionPrincipal, keyId: string, url: string): Promise<void> {
      await ownKey(principal, keyId);
      const allowPrivateNetworks = deps.settings.webhooksAllowPrivateNetworks ?? false;
      const resolve = deps.settings.resolveWebhookHost;
      const problem = resolve
        ? await endpointUrlProblem(url, { resolve, allowPrivateNetworks, timeoutMs: LOOKUP_MS })
        : urlProblem(url, allowPrivateNetworks);
      if (problem) throw new EndpointUrlError(`the URL ${problem}`);
    },

    async add(
      principal: SessionPrincipal,
      keyId: string,
      input: { url: string; events: string[] },
      client: ClientContext,
    ) {
      requireStepUp(principal, clock.now());
      await ownKey(principal, keyId);
      const added = await asPortal(addEndpoint(settingsFor(principal), { keyId, ...input }));
      await audit(principal.accountId, 'webhook.added', client, {
        keyId,
        endpointId: added.endpoint.id,
      });
      return added;
    },

    async rotate(
      principal: SessionPrincipal,
      keyId: string,
      endpointId: string,
      client: ClientContext,
    ) {
      requireStepUp(principal, clock.now());
      await ownEndpoint(principal, keyId, endpointId);
      const rotated = await asPortal(rotateSecret(settingsFor(principal), endpointId));
      await audit(principal.accountId, 'webhook.rotated', client, { keyId, endpointId });
      return rotated;
    },

    async change(
      principal: SessionPrincipal,
      keyId: string,
      endpointId: string,
      change: 'test' | 'disable' | 'enable' | 'remove',
    ): Promise<void> {
      await ownEndpoint(principal, keyId, endpointId);
      const settings = settingsFor(principal);
      const actions: Record<typeof change, () => Promise<unknown>> = {
        test: () => sendTestEvent(settings, endpointId),
        disable: () => disableEndpointByHand(settings, endpointId),
        enable: () => enableEndpoint(settings, endpointId),
        remove: () => removeEndpoint(settings, endpointId),
      };
      await asPortal(actions[change]());
    },

    /** Refuses (404) an endpoint that is not on this account's key. */
    async checkEndpoint(principal: SessionPrincipal, keyId: string, endpointId: string) {
      await ownEndpoint(principal, keyId, endpointId);
    },

    async deliveries(principal: SessionPrincipal, keyId: string, endpointId: string) {
      await ownEndpoint(principal, keyId, endpointId);
      return listDeliveries({ store, clock }, endpointId);
    },

    async redeliver(
      principal: SessionPrincipal,
      keyId: string,
      endpointId: string,
      which: { deliveryId: string } | { failedSince: number },
    ): Promise<number> {
      await ownEndpoint(principal, keyId, endpointId);
      return asPortal(redeliver(settingsFor(principal), endpointId, which));
    },
  };
}
