import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import {
  createAccount,
  setAccountActive,
  unlockAccountByEmail,
} from '../accounts/accounts.service.ts';
import { parseInstant } from '../campaigns/instant.ts';
import { type Clock, systemClock } from '../clock.ts';
import { type Config, loadConfig, secretsFromConfig } from '../config.ts';
import { COMMAND_TIMEOUTS, openStore, type Store } from '../db/connect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { isStoreFull } from '../db/store-errors.ts';
import { UsageError } from '../errors.ts';
import { boundServerHeapGrowth } from '../heap-growth.ts';
import { importDocument } from '../import/import.service.ts';
import { parseImportDocument } from '../import/import-document.ts';
import { issueKey, listKeys, replaceKeyScope, revokeKey, rotateKey } from '../keys/keys.service.ts';
import { loadServerSecrets } from '../secrets.ts';
import { parseDuration } from './durations.ts';
import { parseScopeOptions } from './scopes.ts';

/** What a command prints: one JSON object with --json, else the text. */
interface Output {
  json: unknown;
  text: string;
}

/** Where a run of the CLI reads its environment and writes its output. */
export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

interface Context {
  io: CliIo;
  config: Config;
  clock: Clock;
  values: Record<string, string | boolean | Array<string | boolean> | undefined>;
  positionals: string[];
}

interface Command {
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /**
   * `serve` and `demo` return once listening; their open server keeps the process running. A
   * command with nothing to print (a cluster worker, whose primary speaks for it) returns nothing.
   */
  run(context: Context): Promise<Output | undefined>;
}

const serveOptions = {
  host: { type: 'string' },
  port: { type: 'string' },
} as const;

async function withStore<T>(context: Context, work: (store: Store) => Promise<T>): Promise<T> {
  const store = openStore(context.config.databaseUrl, {
    timeouts: COMMAND_TIMEOUTS,
    onWarning: warnOn(context.io),
  });
  try {
    await migrateToLatest(store);
    return await work(store);
  } finally {
    await store.close();
  }
}

/** A warning for the operator, on standard error (never in a --json answer). */
function warnOn(io: CliIo): (message: string) => void {
  return (message) => io.stderr(`hadir: warning: ${message}\n`);
}

function required(context: Context, name: string): string {
  const value = context.values[name];
  if (typeof value !== 'string' || value.trim() === '')
    throw new UsageError(`--${name} is required`);
  return value;
}

function onePositional(context: Context, what: string): string {
  const [value, ...rest] = context.positionals;
  if (!value || rest.length > 0) throw new UsageError(`expected exactly one ${what}`);
  return value;
}

function listOption(context: Context, name: string): string[] {
  const value = context.values[name];
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string')
    : [];
}

function serverConfig(context: Context): Config {
  const env = { ...context.io.env };
  if (typeof context.values.host === 'string') env.HOST = context.values.host;
  if (typeof context.values.port === 'string') env.PORT = context.values.port;
  return loadConfig(env);
}

function readImportSource(source: string): unknown {
  let text: string;
  try {
    text = source === '-' ? readFileSync(0, 'utf8') : readFileSync(source, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${source}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `${source === '-' ? 'standard input' : source} is not valid JSON: ${(error as Error).message}`,
    );
  }
}

function expiryOption(context: Context): number | undefined {
  const expiresIn = context.values['expires-in'];
  const expiresAt = context.values['expires-at'];
  if (typeof expiresIn === 'string' && typeof expiresAt === 'string') {
    throw new UsageError('give --expires-in or --expires-at, not both');
  }
  if (typeof expiresIn === 'string')
    return context.clock.now() + parseDuration(expiresIn, '--expires-in');
  if (typeof expiresAt === 'string') {
    const ms = parseInstant(expiresAt);
    if (ms === undefined)
      throw new UsageError(`--expires-at takes an ISO-8601 date-time, got '${expiresAt}'`);
    return ms;
  }
  return undefined;
}

const COMMANDS: Record<string, Command> = {
  serve: {
    usage: 'serve [--host 127.0.0.1] [--port 3000]',
    options: serveOptions,
    async run(context) {
      const config = serverConfig(context);
      boundServerHeapGrowth();
      // The server's modules load only for the commands that serve, keeping the others quick.
      if (config.workers > 1 && cluster.isPrimary) {
        const { runCluster } = await import('../cluster.ts');
        const running = await runCluster(config, (line) => context.io.stderr(`${line}\n`));
        return {
          json: {
            url: running.url,
            workers: config.workers,
            metricsUrl: running.metricsUrl ?? null,
          },
          text: `Hadir listening on ${running.url} with ${config.workers} workers${running.metricsUrl ? `; metrics on ${running.metricsUrl}` : ''}`,
        };
      }
      const { startServer, stopOnSignals } = await import('../main.ts');
      const server = await startServer(config);
      stopOnSignals(server);
      if (cluster.isWorker) return undefined;
      return {
        json: { url: server.url, metricsUrl: server.metricsUrl ?? null },
        text: `Hadir listening on ${server.url}${server.metricsUrl ? `; metrics on ${server.metricsUrl}` : ''}`,
      };
    },
  },

  demo: {
    usage: 'demo [--host 127.0.0.1] [--port 3000]',
    options: serveOptions,
    async run(context) {
      const { runDemo, describeDemo } = await import('../demo/demo.ts');
      const demo = await runDemo(serverConfig(context));
      return { json: demo, text: describeDemo(demo) };
    },
  },

  import: {
    usage: 'import FILE|-',
    options: {},
    async run(context) {
      const source = onePositional(context, 'FILE (or - for standard input)');
      const document = parseImportDocument(readImportSource(source));
      const counts = await withStore(context, (store) =>
        importDocument(store, context.clock, document),
      );
      const { ipAddress, token, guestToken } = counts.dropped;
      const dropped =
        ipAddress + token + guestToken === 0
          ? ''
          : `\ndropped ${ipAddress} ipAddress, ${token} token and ${guestToken} guestToken values: they are never served, so they are not kept`;
      return {
        json: counts,
        text:
          `imported ${counts.campaigns.upserted} campaigns (${counts.campaigns.deleted} deleted) and ` +
          `${counts.respondents.upserted} respondents (${counts.respondents.deleted} deleted)${dropped}`,
      };
    },
  },

  'accounts create': {
    usage: 'accounts create --email E [--password P] [--must-change-password]',
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      'must-change-password': { type: 'boolean' },
    },
    async run(context) {
      const password = context.values.password;
      const account = await withStore(context, (store) =>
        createAccount(store, context.clock, {
          email: required(context, 'email'),
          ...(typeof password === 'string' ? { password } : {}),
          mustChangePassword: context.values['must-change-password'] === true,
        }),
      );
      const lines = [`created account ${account.email} (${account.id})`];
      if (account.generatedPassword) {
        lines.push(
          `password: ${account.generatedPassword}`,
          'it is shown this once; store it safely',
        );
      }
      return { json: account, text: lines.join('\n') };
    },
  },

  'accounts deactivate': {
    usage: 'accounts deactivate --email E',
    options: { email: { type: 'string' } },
    async run(context) {
      const result = await withStore(context, (store) =>
        setAccountActive(store, context.clock, required(context, 'email'), false),
      );
      return {
        json: result,
        text: `deactivated ${result.email}; its keys are refused from now on`,
      };
    },
  },

  'accounts reactivate': {
    usage: 'accounts reactivate --email E',
    options: { email: { type: 'string' } },
    async run(context) {
      const result = await withStore(context, (store) =>
        setAccountActive(store, context.clock, required(context, 'email'), true),
      );
      return { json: result, text: `reactivated ${result.email}` };
    },
  },

  'accounts unlock': {
    usage: 'accounts unlock --email E',
    options: { email: { type: 'string' } },
    async run(context) {
      const result = await withStore(context, (store) =>
        unlockAccountByEmail(store, context.clock, required(context, 'email')),
      );
      return { json: result, text: `unlocked ${result.email}` };
    },
  },

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

/** Hadir's version from its package.json (found above this module, in the sources or in dist/). */
function hadirVersion(): string {
  let folder = new URL('.', import.meta.url);
  for (let depth = 0; depth < 4; depth++) {
    folder = new URL('..', folder);
    try {
      const manifest = JSON.parse(readFileSync(new URL('package.json', folder), 'utf8'));
      if (manifest.name === 'hadir') return String(manifest.version);
    } catch {}
  }
  return 'unknown';
}

function helpText(): string {
  return [
    'usage: hadir <command> [options] [--json]',
    '       hadir --version',
    '',
    ...Object.values(COMMANDS).map((command) => `  hadir ${command.usage}`),
    '',
    'Every command reads DATABASE_URL (default sqlite:./data/hadir.sqlite) and migrates it when needed.',
    'With --json a command prints one JSON object on standard output; errors go to standard error.',
  ].join('\n');
}

/** Finds the command named by the first one or two words. */
function findCommand(
  argv: string[],
): { name: string; command: Command; rest: string[] } | undefined {
  const two = `${argv[0]} ${argv[1]}`;
  if (COMMANDS[two]) return { name: two, command: COMMANDS[two], rest: argv.slice(2) };
  const one = argv[0] ?? '';
  if (COMMANDS[one]) return { name: one, command: COMMANDS[one], rest: argv.slice(1) };
  return undefined;
}

/** Runs the CLI; returns the exit status (serve and demo keep the process alive and return 0). */
export async function runCli(
  argv: string[],
  io: CliIo,
  clock: Clock = systemClock,
): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    io.stdout(`${helpText()}\n`);
    return argv.length === 0 ? 2 : 0;
  }
  if (argv[0] === '--version' || argv[0] === 'version') {
    io.stdout(`hadir ${hadirVersion()} (Node.js ${process.version})\n`);
    return 0;
  }
  const found = findCommand(argv);
  if (!found) {
    io.stderr(`hadir: unknown command '${argv.slice(0, 2).join(' ')}'\n\n${helpText()}\n`);
    return 2;
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: found.rest,
      options: { ...found.command.options, json: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    io.stderr(
      `hadir ${found.name}: ${(error as Error).message}\nusage: hadir ${found.command.usage}\n`,
    );
    return 2;
  }
  try {
    const config = loadConfig(io.env);
    const output = await found.command.run({
      io,
      config,
      clock,
      values: parsed.values,
      positionals: parsed.positionals,
    });
    if (output) {
      if (parsed.values.json) io.stdout(`${JSON.stringify(output.json)}\n`);
      else if (output.text !== '') io.stdout(`${output.text}\n`);
    }
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`hadir ${found.name}: ${error.message}\n`);
      return 1;
    }
    if (isStoreFull(error)) {
      io.stderr(
        `hadir ${found.name}: the disk that holds the database is full, so nothing was written; free some space and run the command again\n`,
      );
      return 1;
    }
    io.stderr(`hadir ${found.name}: unexpected error: ${(error as Error).message}\n`);
    return 1;
  }
}
