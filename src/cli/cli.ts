import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type Clock, systemClock } from '../clock.ts';
import { loadConfig } from '../config.ts';
import { isStoreFull } from '../db/store-errors.ts';
import { ConfigError, DomainError } from '../errors.ts';
import type { CliIo, Command } from './command.ts';
import { ACCOUNT_COMMANDS } from './commands/accounts.ts';
import { BACKUP_COMMANDS } from './commands/backup.ts';
import { DISCLOSURE_COMMANDS } from './commands/disclosures.ts';
import { EXPORT_COMMANDS } from './commands/exports.ts';
import { IMPORT_COMMANDS } from './commands/import.ts';
import { INGEST_TOKEN_COMMANDS } from './commands/ingest-tokens.ts';
import { KEY_COMMANDS } from './commands/keys.ts';
import { REMOVAL_COMMANDS } from './commands/removals.ts';
import { SERVING_COMMANDS } from './commands/serving.ts';
import { STATUS_COMMANDS } from './commands/status.ts';
import { WEBHOOK_COMMANDS } from './commands/webhooks.ts';
import { UsageError } from './usage-error.ts';

export type { CliIo } from './command.ts';

export const COMMANDS: Record<string, Command> = {
  ...SERVING_COMMANDS,
  ...IMPORT_COMMANDS,
  ...ACCOUNT_COMMANDS,
  ...KEY_COMMANDS,
  ...REMOVAL_COMMANDS,
  ...DISCLOSURE_COMMANDS,
  ...WEBHOOK_COMMANDS,
  ...EXPORT_COMMANDS,
  ...STATUS_COMMANDS,
  ...INGEST_TOKEN_COMMANDS,
  ...BACKUP_COMMANDS,
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

/** Which code this is: the build that ./bin/hadir prefers while it is current, or the sources. */
function runningFrom(): string {
  return import.meta.url.endsWith('.js')
    ? 'compiled JavaScript from dist/'
    : 'TypeScript sources through tsx';
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

/** Node's parser messages, said plainly: which option, and what is wrong with it. */
function parseProblem(error: unknown): string {
  const { code, message } = error as { code?: string; message: string };
  const option = /'(-[^']*)'/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) return `unknown option ${option}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option) {
    return `option ${option.split(' ')[0]} ${/argument missing/.test(message) ? 'needs a value' : 'takes no value'}`;
  }
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return 'unexpected argument';
  return message;
}

/** `--help` of one command: its usage, what it does, and an example that works as printed. */
function commandHelp(command: Command): string {
  return [
    `usage: hadir ${command.usage}`,
    '',
    command.summary,
    '',
    'example:',
    `  hadir ${command.example}`,
    '',
    'Add --json to print one JSON object. DATABASE_URL names the database (default sqlite:./data/hadir.sqlite).',
  ].join('\n');
}

/** `--help` of a group (`hadir keys --help`): the usage of each of its commands. */
function groupHelp(group: string): string | undefined {
  const members = Object.entries(COMMANDS).filter(([name]) => name.startsWith(`${group} `));
  if (members.length === 0) return undefined;
  return [
    `usage: hadir ${group} <command> [options]`,
    '',
    ...members.map(([, command]) => `  hadir ${command.usage}\n      ${command.summary}`),
    '',
    `Each command explains itself: hadir ${group} <command> --help`,
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
    io.stdout(`hadir ${hadirVersion()} (Node.js ${process.version}, ${runningFrom()})\n`);
    return 0;
  }
  const found = findCommand(argv);
  const asksHelp = (args: string[]) => args.includes('--help') || args.includes('-h');
  if (!found && asksHelp(argv.slice(1))) {
    const group = groupHelp(argv[0] ?? '');
    if (group) {
      io.stdout(`${group}\n`);
      return 0;
    }
  }
  if (found && asksHelp(found.rest)) {
    io.stdout(`${commandHelp(found.command)}\n`);
    return 0;
  }
  if (!found) {
    const group = groupHelp(argv[0] ?? '');
    if (group && argv.length === 1) {
      io.stderr(`hadir ${argv[0]}: which one?\n\n${group}\n`);
      return 2;
    }
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
      `hadir ${found.name}: ${parseProblem(error)}\nusage: hadir ${found.command.usage}\n(hadir ${found.name} --help explains it)\n`,
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
    // The operator's mistake, a setting, or a rule of the domain: a plain line, no stack.
    if (
      error instanceof UsageError ||
      error instanceof ConfigError ||
      error instanceof DomainError
    ) {
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
