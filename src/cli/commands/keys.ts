import { UnknownFieldsError } from '../../keys/key-scopes.ts';
import type { KeyScope } from '../../keys/keys.repository.ts';
import {
  issueKey,
  listKeys,
  replaceKeyScope,
  revokeKey,
  rotateKey,
  showKey,
} from '../../keys/keys.service.ts';
import { serverSecretsOf } from '../../secrets.ts';
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
import { UsageError } from '../usage-error.ts';

/** A scope as the operator typed it: `campaign=field1,field2 other=`. */
function describeScopes(scopes: KeyScope[]): string {
  return (
    scopes.map((scope) => `${scope.campaignId}=${scope.fields.join(',')}`).join(' ') || 'nothing'
  );
}

/** Names the option that lets a scope name fields a campaign does not have yet. */
async function withFieldHint<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof UnknownFieldsError) {
      throw new UsageError(
        `${error.message}; check the spelling, or pass --allow-unknown-fields for fields it will gain`,
      );
    }
    throw error;
  }
}

export const KEY_COMMANDS: Record<string, Command> = {
  'keys create': {
    summary:
      'Issues an API key for an account, reading the given campaigns and fields; prints it once.',
    example:
      'keys create --account partner@example.com --scope pernikahan-rina-bayu=nama,menu --expires-in 90d',
    usage:
      'keys create --account E --scope CAMPAIGN_ID=field1,field2 [--scope OTHER_ID=] [--expires-in 90d | --expires-at ISO] [--name N] [--reveal-in-portal] [--allow-unknown-fields]',
    options: {
      account: { type: 'string' },
      scope: { type: 'string', multiple: true },
      'expires-in': { type: 'string' },
      'expires-at': { type: 'string' },
      name: { type: 'string' },
      'reveal-in-portal': { type: 'boolean' },
      'allow-unknown-fields': { type: 'boolean' },
    },
    async run(context) {
      const scopeOptions = listOption(context, 'scope');
      if (scopeOptions.length === 0) {
        throw new UsageError(
          'give at least one --scope CAMPAIGN_ID=field1,field2: a key without one reads nothing',
        );
      }
      const expiresAt = expiryOption(context);
      const name = context.values.name;
      const sealFor =
        context.values['reveal-in-portal'] === true
          ? serverSecretsOf(context.config, warnOn(context.io)).keySealKey
          : undefined;
      const issued = await withStore(context, (store) =>
        withFieldHint(
          issueKey(store, context.clock, {
            accountEmail: required(context, 'account'),
            scopes: parseScopeOptions(scopeOptions),
            ...(typeof name === 'string' ? { name } : {}),
            ...(expiresAt !== undefined ? { expiresAt } : {}),
            ...(sealFor ? { sealFor } : {}),
            fieldCheck: context.values['allow-unknown-fields'] === true ? 'any' : 'known',
          }),
        ),
      );
      const reads = `reads: ${describeScopes(issued.campaigns)}`;
      if (sealFor) {
        // The operator never sees a key meant for the portal: only its holder reveals it, once.
        return {
          json: {
            id: issued.id,
            expiresAt: issued.expiresAt,
            campaigns: issued.campaigns,
            revealInPortal: true,
          },
          text: `key ${issued.id}, expires ${issued.expiresAt}\n${reads}\nsealed for the account holder: they reveal it once in the portal after a step-up code`,
        };
      }
      return {
        json: issued,
        text: [
          `key ${issued.id}, expires ${issued.expiresAt}`,
          reads,
          issued.key,
          'the key is shown this once: store it now',
        ].join('\n'),
      };
    },
  },
  'keys scope': {
    summary: "Replaces a key's scope: the campaigns it reads and, in each, the fields.",
    example: 'keys scope KEY_ID --scope pernikahan-rina-bayu=nama,menu,alergi',
    usage:
      'keys scope KEY_ID --scope CAMPAIGN_ID=field1,field2 [--scope …] [--allow-unknown-fields]',
    options: {
      scope: { type: 'string', multiple: true },
      'allow-unknown-fields': { type: 'boolean' },
    },
    async run(context) {
      const keyId = onePositional(context, 'KEY_ID');
      const result = await withStore(context, (store) =>
        withFieldHint(
          replaceKeyScope(
            store,
            context.clock,
            keyId,
            parseScopeOptions(listOption(context, 'scope')),
            context.values['allow-unknown-fields'] === true ? 'any' : 'known',
          ),
        ),
      );
      return {
        json: result,
        text: `key ${keyId} now reads: ${describeScopes(result.campaigns)}`,
      };
    },
  },
  'keys revoke': {
    summary: 'Revokes a key at once.',
    example: 'keys revoke KEY_ID',
    usage: 'keys revoke KEY_ID',
    options: {},
    async run(context) {
      const keyId = onePositional(context, 'KEY_ID');
      const result = await withStore(context, (store) => revokeKey(store, context.clock, keyId));
      return { json: result, text: `revoked key ${keyId}` };
    },
  },
  'keys rotate': {
    summary: 'Issues a successor with the same scope; the old key keeps working for the overlap.',
    example: 'keys rotate KEY_ID --overlap 24h',
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
  'keys show': {
    summary: 'Shows one key: its account, status, scope, expiry and last use (never the key).',
    example: 'keys show KEY_ID',
    usage: 'keys show KEY_ID',
    options: {},
    async run(context) {
      const keyId = onePositional(context, 'KEY_ID');
      const key = await withStore(context, (store) => showKey(store, context.clock, keyId));
      return {
        json: key,
        text: [
          `key ${key.id} (${key.name}), …${key.hint}, ${key.status}`,
          `account: ${key.account}`,
          `reads: ${describeScopes(key.campaigns.map((scope) => ({ campaignId: scope.id, fields: scope.fields })))}`,
          `created ${key.createdAt}, expires ${key.expiresAt}, last used ${key.lastUsedAt ?? 'never'}`,
          ...(key.replacedById ? [`rotated: its successor is ${key.replacedById}`] : []),
        ].join('\n'),
      };
    },
  },
  'keys list': {
    summary: 'Lists keys (never the keys themselves), with status, scope and last use.',
    example: 'keys list --account partner@example.com',
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
