import type { Store } from '../../db/store.ts';
import {
  addEndpoint,
  disableEndpointByHand,
  type EndpointSettings,
  type EndpointView,
  enableEndpoint,
  listDeliveries,
  listEndpoints,
  redeliver,
  removeEndpoint,
  rotateSecret,
  sendTestEvent,
} from '../../notifications/endpoints.service.ts';
import { webhookSealKey } from '../../notifications/signing.ts';
import { serverSecretsOf } from '../../secrets.ts';
import {
  type Command,
  type Context,
  onePositional,
  required,
  warnOn,
  withStore,
} from '../command.ts';
import { UsageError } from '../usage-error.ts';

function settingsOf(context: Context, store: Store): EndpointSettings {
  const secrets = serverSecretsOf(context.config, warnOn(context.io));
  return {
    store,
    clock: context.clock,
    sealKey: webhookSealKey(secrets.keySealKey),
    allowPrivateNetworks: context.config.webhooksAllowPrivateNetworks,
    actor: 'operator',
  };
}

function describe(endpoint: EndpointView): string {
  const events = endpoint.events.length === 0 ? 'every event' : endpoint.events.join(',');
  const status =
    endpoint.status === 'enabled' ? 'enabled' : `disabled (${endpoint.disabledReason ?? '?'})`;
  return `${endpoint.id}  key ${endpoint.keyId}  ${status}  ${endpoint.url}  ${events}`;
}

function eventsOption(context: Context): string[] {
  const value = context.values.events;
  if (typeof value !== 'string') return [];
  return value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

export const WEBHOOK_COMMANDS: Record<string, Command> = {
  'webhooks add': {
    summary:
      'Adds a notification endpoint to a key; prints its id and its signing secret once. It hears only of campaigns the key may read.',
    example:
      'webhooks add --key KEY_ID --url https://partner.example.com/hadir-events --events respondents.changed,respondents.removed',
    usage: 'webhooks add --key KEY_ID --url URL [--events TYPE,…]',
    options: { key: { type: 'string' }, url: { type: 'string' }, events: { type: 'string' } },
    async run(context) {
      const keyId = required(context, 'key');
      const added = await withStore(context, (store) =>
        addEndpoint(settingsOf(context, store), {
          keyId,
          url: required(context, 'url'),
          events: eventsOption(context),
        }),
      );
      // The endpoint follows the key's chain of rotations; the key named is the one said.
      const chain =
        added.endpoint.keyId === keyId
          ? ''
          : ` (and the other keys of its rotations, first ${added.endpoint.keyId})`;
      return {
        json: { id: added.endpoint.id, secret: added.secret, endpoint: added.endpoint },
        text: [
          `endpoint ${added.endpoint.id} for key ${keyId}${chain}`,
          added.secret,
          'the secret is shown this once: store it where the receiver verifies signatures',
        ].join('\n'),
      };
    },
  },
  'webhooks list': {
    summary: 'Lists notification endpoints (never their secrets), with status and events.',
    example: 'webhooks list --key KEY_ID',
    usage: 'webhooks list [--key KEY_ID]',
    options: { key: { type: 'string' } },
    async run(context) {
      const key = context.values.key;
      const endpoints = await withStore(context, (store) =>
        listEndpoints({ store }, typeof key === 'string' ? key : undefined),
      );
      return {
        json: { endpoints },
        text: endpoints.map(describe).join('\n') || 'no endpoints',
      };
    },
  },
  'webhooks disable': {
    summary: 'Disables an endpoint; its events wait and go when it is enabled again.',
    example: 'webhooks disable ENDPOINT_ID',
    usage: 'webhooks disable ENDPOINT_ID',
    options: {},
    async run(context) {
      const id = onePositional(context, 'ENDPOINT_ID');
      const endpoint = await withStore(context, (store) =>
        disableEndpointByHand(settingsOf(context, store), id),
      );
      return { json: endpoint, text: `disabled ${id}` };
    },
  },
  'webhooks enable': {
    summary: 'Enables an endpoint again; the events it missed go at once.',
    example: 'webhooks enable ENDPOINT_ID',
    usage: 'webhooks enable ENDPOINT_ID',
    options: {},
    async run(context) {
      const id = onePositional(context, 'ENDPOINT_ID');
      const endpoint = await withStore(context, (store) =>
        enableEndpoint(settingsOf(context, store), id),
      );
      return { json: endpoint, text: `enabled ${id}` };
    },
  },
  'webhooks remove': {
    summary: 'Removes an endpoint and its delivery log.',
    example: 'webhooks remove ENDPOINT_ID',
    usage: 'webhooks remove ENDPOINT_ID',
    options: {},
    async run(context) {
      const id = onePositional(context, 'ENDPOINT_ID');
      await withStore(context, (store) => removeEndpoint(settingsOf(context, store), id));
      return { json: { id, removed: true }, text: `removed ${id}` };
    },
  },
  'webhooks rotate-secret': {
    summary:
      'Gives an endpoint a new signing secret, printed once; the old one keeps signing beside it for 24 hours.',
    example: 'webhooks rotate-secret ENDPOINT_ID',
    usage: 'webhooks rotate-secret ENDPOINT_ID',
    options: {},
    async run(context) {
      const id = onePositional(context, 'ENDPOINT_ID');
      const rotated = await withStore(context, (store) =>
        rotateSecret(settingsOf(context, store), id),
      );
      return {
        json: { id, ...rotated },
        text: [
          `new secret for ${id}`,
          rotated.secret,
          'the secret is shown this once',
          `the old secret also signs until ${rotated.previousSecretUntil}`,
        ].join('\n'),
      };
    },
  },
  'webhooks test': {
    summary: 'Sends a webhook.test event to an endpoint (a running server delivers it).',
    example: 'webhooks test ENDPOINT_ID',
    usage: 'webhooks test ENDPOINT_ID',
    options: {},
    async run(context) {
      const id = onePositional(context, 'ENDPOINT_ID');
      const messageId = await withStore(context, (store) =>
        sendTestEvent(settingsOf(context, store), id),
      );
      return { json: { id, messageId }, text: `queued test message ${messageId} for ${id}` };
    },
  },
  'webhooks deliveries': {
    summary: "Shows an endpoint's deliveries of the last 30 days, newest first.",
    example: 'webhooks deliveries ENDPOINT_ID',
    usage: 'webhooks deliveries ENDPOINT_ID',
    options: {},
    async run(context) {
      const id = onePositional(context, 'ENDPOINT_ID');
      const deliveries = await withStore(context, (store) =>
        listDeliveries({ store, clock: context.clock }, id),
      );
      const text = deliveries
        .map(
          (d) =>
            `${d.createdAt}  ${d.id}  ${d.event.padEnd(19)}  ${d.state.padEnd(9)}  ${d.attempts} tries` +
            (d.lastStatus !== null ? `  HTTP ${d.lastStatus}` : '') +
            (d.lastError ? `  ${d.lastError}` : '') +
            (d.nextAttemptAt ? `  next ${d.nextAttemptAt}` : ''),
        )
        .join('\n');
      return { json: { deliveries }, text: text || 'no deliveries in the last 30 days' };
    },
  },
  'webhooks redeliver': {
    summary: 'Sends a finished delivery again, or every failed one since a time.',
    example: 'webhooks redeliver ENDPOINT_ID --failed-since 2026-11-24T00:00:00Z',
    usage: 'webhooks redeliver ENDPOINT_ID (--delivery MESSAGE_ID | --failed-since ISO)',
    options: { delivery: { type: 'string' }, 'failed-since': { type: 'string' } },
    async run(context) {
      const id = onePositional(context, 'ENDPOINT_ID');
      const delivery = context.values.delivery;
      const since = context.values['failed-since'];
      if ((typeof delivery === 'string') === (typeof since === 'string')) {
        throw new UsageError('give either --delivery MESSAGE_ID or --failed-since ISO');
      }
      let which: { deliveryId: string } | { failedSince: number };
      if (typeof delivery === 'string') {
        which = { deliveryId: delivery };
      } else {
        const at = Date.parse(since as string);
        if (Number.isNaN(at))
          throw new UsageError(`--failed-since must be an ISO date-time, got '${since}'`);
        which = { failedSince: at };
      }
      const count = await withStore(context, (store) =>
        redeliver(settingsOf(context, store), id, which),
      );
      return { json: { id, queued: count }, text: `queued ${count} for ${id}` };
    },
  },
};
