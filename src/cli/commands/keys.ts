import { secretsFromConfig } from '../../config.ts';
import {
  issueKey,
  listKeys,
  replaceKeyScope,
  revokeKey,
  rotateKey,
} from '../../keys/keys.service.ts';
import { loadServerSecrets } from '../../secrets.ts';
import {
  type Command,
  expiryOption,
  listOption,
  onePositional,
  required,
  warnOn,
  withStore,
} from '../command.ts';
import { parseDuration } from '../durations.ts';
import { parseScopeOptions } from '../scopes.ts';

export const KEY_COMMANDS: Record<string, Command> = {
  'keys create': {
    usage:
      'keys create --account E --scope CAMPAIGN_ID=field1,field2 [--scope OTHER_ID=] [--expires-in 90d | --expires-at ISO] [--name N] [--reveal-in-portal]',
    options: {
      account: { type: 'string' },
      scope: { type: 'string', multiple: true },
      'expires-in': { type: 'string' },
      'expires-at': { type: 'string' },
      name: { type: 'string' },
      'reveal-in-portal': { type: 'boolean' },
    },
    async run(context) {
      const expiresAt = expiryOption(context);
      const name = context.values.name;
      const sealFor =
        context.values['reveal-in-portal'] === true
          ? loadServerSecrets(
              secretsFromConfig(context.config),
              context.config.production,
              undefined,
              warnOn(context.io),
            ).keySealKey
          : undefined;
      const issued = await withStore(context, (store) =>
        issueKey(store, context.clock, {
          accountEmail: required(context, 'account'),
          scopes: parseScopeOptions(listOption(context, 'scope')),
          ...(typeof name === 'string' ? { name } : {}),
          ...(expiresAt !== undefined ? { expiresAt } : {}),
          ...(sealFor ? { sealFor } : {}),
        }),
      );
      if (sealFor) {
        // The operator never sees a key meant for the portal: only its holder reveals it, once.
        return {
          json: { id: issued.id, expiresAt: issued.expiresAt, revealInPortal: true },
          text: `key ${issued.id}, expires ${issued.expiresAt}\nsealed for the account holder: they reveal it once in the portal after a step-up code`,
        };
      }
      return {
        json: issued,
        text: [
          `key ${issued.id}, expires ${issued.expiresAt}`,
          issued.key,
          'the key is shown this once: store it now',
        ].join('\n'),
      };
    },
  },
  'keys scope': {
    usage: 'keys scope KEY_ID --scope CAMPAIGN_ID=field1,field2 [--scope …]',
    options: { scope: { type: 'string', multiple: true } },
    async run(context) {
      const keyId = onePositional(context, 'KEY_ID');
      const result = await withStore(context, (store) =>
        replaceKeyScope(
          store,
          context.clock,
          keyId,
          parseScopeOptions(listOption(context, 'scope')),
        ),
      );
      const described = result.campaigns.map(
        (scope) => `${scope.campaignId}=${scope.fields.join(',')}`,
      );
      return {
        json: result,
        text: `key ${keyId} now reads: ${described.join(' ') || 'no campaigns'}`,
      };
    },
  },
  'keys revoke': {
    usage: 'keys revoke KEY_ID',
    options: {},
    async run(context) {
      const keyId = onePositional(context, 'KEY_ID');
      const result = await withStore(context, (store) => revokeKey(store, context.clock, keyId));
      return { json: result, text: `revoked key ${keyId}` };
    },
  },
  'keys rotate': {
    usage: 'keys rotate KEY_ID [--overlap 24h]',
    options: { overlap: { type: 'string' } },
    async run(context) {
      const keyId = onePositional(context, 'KEY_ID');
      const overlap = context.values.overlap;
      const overlapMs =
        typeof overlap === 'string' ? parseDuration(overlap, '--overlap') : undefined;
      const rotated = await withStore(context, (store) =>
        rotateKey(store, context.clock, keyId, overlapMs),
      );
      return {
        json: rotated,
        text: [
          `new key ${rotated.id}`,
          rotated.key,
          'the key is shown this once: store it now',
          `the old key stays valid until ${rotated.previousKeyValidUntil}`,
        ].join('\n'),
      };
    },
  },
  'keys list': {
    usage: 'keys list [--account E]',
    options: { account: { type: 'string' } },
    async run(context) {
      const account = context.values.account;
      const keys = await withStore(context, (store) =>
        listKeys(store, context.clock, typeof account === 'string' ? account : undefined),
      );
      const text = keys
        .map(
          (key) =>
            `${key.id}  …${key.hint}  ${key.status.padEnd(7)}  ${key.account}  expires ${key.expiresAt}  ` +
            (key.campaigns.map((scope) => `${scope.id}=${scope.fields.join(',')}`).join(' ') ||
              '(no campaigns)'),
        )
        .join('\n');
      return { json: { keys }, text: text || 'no keys' };
    },
  },
};
