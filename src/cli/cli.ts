import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type Clock, systemClock } from '../clock.ts';
import { loadConfig } from '../config.ts';
import { isStoreFull } from '../db/store-errors.ts';
import { ConfigError, DomainError } from '../errors.ts';
import type { CliIo, Command } from './command.ts';
import { USAGES } from './usage.generated.ts';
import { UsageError } from './usage-error.ts';

export type { CliIo } from './command.ts';

type Commands = Record<string, Command>;

/**
 * The command groups, in the order help lists them, each loaded only when asked for: a command
 * loads its own modules (`keys list` neither the server nor the file writers), and starts at once.
 */
const GROUPS = {
  serving: () => import('./commands/serving.ts').then((group) => group.SERVING_COMMANDS),
  import: () => import('./commands/import.ts').then((group) => group.IMPORT_COMMANDS),
  accounts: () => import('./commands/accounts.ts').then((group) => group.ACCOUNT_COMMANDS),
  keys: () => import('./commands/keys.ts').then((group) => group.KEY_COMMANDS),
  removals: () => import('./commands/removals.ts').then((group) => group.REMOVAL_COMMANDS),
  disclosures: () => import('./commands/disclosures.ts').then((group) => group.DISCLOSURE_COMMANDS),
  webhooks: () => import('./commands/webhooks.ts').then((group) => group.WEBHOOK_COMMANDS),
  exports: () => import('./commands/exports.ts').then((group) => group.EXPORT_COMMANDS),
  status: () => import('./commands/status.ts').then((group) => group.STATUS_COMMANDS),
  ingestTokens: () =>
    import('./commands/ingest-tokens.ts').then((group) => group.INGEST_TOKEN_COMMANDS),
  backup: () => import('./commands/backup.ts').then((group) => group.BACKUP_COMMANDS),
} satisfies Record<string, () => Promise<Commands>>;

/** The group of each command's first word (a test holds it to every command's name). */
const GROUP_OF_WORD: Record<string, keyof typeof GROUPS> = {
  serve: 'serving',
  demo: 'serving',
  import: 'import',
  accounts: 'accounts',
  keys: 'keys',
  respondents: 'removals',
  campaigns: 'removals',
  compact: 'removals',
  retention: 'removals',
  disclosures: 'disclosures',
  webhooks: 'webhooks',
  exports: 'exports',
  status: 'status',
  'ingest-tokens': 'ingestTokens',
  backup: 'backup',
  restore: 'backup',
};

/** The commands whose first word is `word`'s (with their group's others); none for another. */
async function commandsOf(word: string | undefined): Promise<Commands> {
  const group = word === undefined ? undefined : GROUP_OF_WORD[word];
  return group ? GROUPS[group]() : {};
}

/** Every command, in help's order: each group loaded. */
export async function allCommands(): Promise<Commands> {
  const groups = await Promise.all(Object.values(GROUPS).map((load) => load()));
  return Object.assign({}, ...groups) as Commands;
}

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

/** The text of usage.generated.ts for these usage lines (see scripts/write-cli-usage.ts). */
export function usageModuleText(usages: readonly string[]): string {
  return `// Written by npm run cli-usage from every command's usage, in help's order: do not edit.\nexport const USAGES: readonly string[] = ${JSON.stringify(usages, null, 2).replace(/\n\]$/, ',\n]')};\n`;
}

/** The whole CLI's help, from the generated usage lines: no command's modules are loaded. */
function helpText(): string {
  return [
    'usage: hadir <command> [options] [--json]',
    '       hadir --version',
    '',
    ...USAGES.map((usage) => `  hadir ${usage}`),
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
async function groupHelp(group: string): Promise<string | undefined> {
  const members = Object.entries(await commandsOf(group)).filter(([name]) =>
    name.startsWith(`${group} `),
  );
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
async function findCommand(
  argv: string[],
): Promise<{ name: string; command: Command; rest: string[] } | undefined> {
  const commands = await commandsOf(argv[0]);
  const two = `${argv[0]} ${argv[1]}`;
  if (commands[two]) return { name: two, command: commands[two], rest: argv.slice(2) };
  const one = argv[0] ?? '';
  if (commands[one]) return { name: one, command: commands[one], rest: argv.slice(1) };
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
  const found = await findCommand(argv);
  const asksHelp = (args: string[]) => args.includes('--help') || args.includes('-h');
  if (!found && asksHelp(argv.slice(1))) {
    const group = await groupHelp(argv[0] ?? '');
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
    const group = await groupHelp(argv[0] ?? '');
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
