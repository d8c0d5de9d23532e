import {
  createIngestToken,
  type IngestTokenRecord,
  listIngestTokens,
  revokeIngestToken,
} from '../../ingest/ingest-tokens.service.ts';
import { toIso } from '../../instant.ts';
import { type Command, onePositional, required, withStore } from '../command.ts';

function describe(token: IngestTokenRecord): string {
  const state = token.revokedAt === null ? 'in force' : `revoked ${toIso(token.revokedAt)}`;
  const used = token.lastUsedAt === null ? 'never used' : `last used ${toIso(token.lastUsedAt)}`;
  return `${token.id}  ${token.name}  ${state}  created ${toIso(token.createdAt)}  ${used}`;
}

const viewOf = (token: IngestTokenRecord) => ({
  id: token.id,
  name: token.name,
  createdAt: toIso(token.createdAt),
  revokedAt: token.revokedAt === null ? null : toIso(token.revokedAt),
  lastUsedAt: token.lastUsedAt === null ? null : toIso(token.lastUsedAt),
});

/** The platform's credentials for the ingest API (docs/ingesting.md). */
export const INGEST_TOKEN_COMMANDS: Record<string, Command> = {
  'ingest-tokens create': {
    summary:
      'Makes a token for the platform to push records with (POST /ingest/v1/batches); prints it once. It reads nothing of the data API.',
    example: 'ingest-tokens create --name platform-relay',
    usage: 'ingest-tokens create --name NAME',
    options: { name: { type: 'string' } },
    async run(context) {
      const created = await withStore(context, (store) =>
        createIngestToken(store, context.clock, required(context, 'name'), 'operator'),
      );
      return {
        json: created,
        text: [
          `ingest token ${created.id}`,
          created.token,
          'the token is shown this once: give it to the platform’s relay (HADIR_INGEST_TOKEN)',
        ].join('\n'),
      };
    },
  },
  'ingest-tokens list': {
    summary: 'Lists ingest tokens (never the tokens themselves), in force or revoked.',
    example: 'ingest-tokens list',
    usage: 'ingest-tokens list',
    options: {},
    async run(context) {
      const tokens = await withStore(context, (store) => listIngestTokens(store));
      return {
        json: { tokens: tokens.map(viewOf) },
        text: tokens.map(describe).join('\n') || 'no ingest tokens',
      };
    },
  },
  'ingest-tokens revoke': {
    summary: 'Revokes an ingest token at once: its next batch is refused.',
    example: 'ingest-tokens revoke 3f2b…',
    usage: 'ingest-tokens revoke ID',
    options: {},
    async run(context) {
      const id = onePositional(context, 'ID');
      await withStore(context, (store) => revokeIngestToken(store, context.clock, id, 'operator'));
      return { json: { id, revoked: true }, text: `revoked ingest token ${id}` };
    },
  },
};
