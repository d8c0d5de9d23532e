import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { HadirApiError, HadirNetworkError } from '@hadir/client';
import { campaignFile, type ExportFormat, exportRows } from './export.js';
import { Mirror } from './mirror.js';
import { plural, progressReporter } from './progress.js';
import { runSync, type SyncOptions } from './sync.js';
import { DEFAULT_BUDGET_SHARE, SyncWatcher, WatchStopped } from './watch.js';

const USAGE = `usage: hadir-sync --base-url URL [--api-key-env HADIR_API_KEY | --api-key-file PATH]
                  [--campaign ID ... | --all] --to sqlite:./mirror.sqlite|postgres://...
                  [--full] [--restart] [--limit 200]
                  [--export csv|jsonl FILE [--include-removed] [--time-zone Asia/Jakarta|UTC]
                   [--headers labels|keys] [--technical-columns]]

Mirrors Hadir campaigns into a local database from each campaign's changes feed: the first run
reads every respondent, later runs only what changed since (edits and new rows upserted by id,
removals applied: a removed respondent keeps only its id and times here, its answers cleared).
Each page is stored with a checkpoint, so a run that is interrupted continues where it stopped
when run again (--restart starts the pass afresh); a campaign's watermark moves only after a
whole pass. When the server no longer keeps removals that old, a full pass runs by itself.
--full walks everything and clears rows the server no longer serves.
--export writes the mirror to FILE (with or without syncing first), streaming and readable by
its owner only: CSV has id, the submitted time in Asia/Jakarta (--time-zone UTC for UTC),
attendance, and one column per field headed by its question (--headers keys for field keys),
one file per campaign when several are exported (FILE-CAMPAIGN.csv); removed rows only with
--include-removed. The key is read from the environment variable or the file, never from a
flag, and never printed.

       hadir-sync watch --base-url URL [--api-key-env HADIR_API_KEY | --api-key-file PATH]
                  [--campaign ID ... | --all] --to sqlite:./mirror.sqlite|postgres://...
                  [--listen 127.0.0.1:8787] [--webhook-secret-env HADIR_WEBHOOK_SECRET]
                  [--poll-every 5m] [--budget-share 0.45] [--verbose]

Keeps the mirror fresh: syncs once, then listens for Hadir's signed notifications at --listen
and reads the changes of each campaign named, gathering bursts and never running two syncs at
once. It spends at most --budget-share of the key's requests a minute (0.45: 54 of the default
120), spread evenly, so the key's other clients keep the rest. The endpoint's secret is read
from the environment variable (two, space-separated, during a rotation); a notification that
does not verify is refused. A safety poll asks each campaign's changes conditionally (a 304 is
free of the rate limit) every --poll-every. Without a secret it only polls. While a sync takes a
while (the first), it says how far it is every 5 s; then it sums its syncs up once a minute
(--verbose: a line for every sync). It logs what it waits for; when the service refuses the key
(401) it stops, saying what to do. Stop with Ctrl+C.`;

function parseDuration(text: string, flag: string): number {
  const match = /^(\d+)([smhd])$/.exec(text);
  if (!match) throw new Error(`${flag} takes a duration like 30s, 5m, 1h, got '${text}'`);
  return (
    Number(match[1]) *
    { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as 's' | 'm' | 'h' | 'd']
  );
}

function readKey(envName: string, file: string | undefined): string {
  const key = file ? readFileSync(file, 'utf8').trim() : process.env[envName]?.trim();
  if (!key) {
    throw new Error(
      file
        ? `no key in ${file}`
        : `set the API key in the environment variable ${envName} (or use --api-key-file)`,
    );
  }
  return key;
}

/** --look-back is accepted from older command lines, and said to be unneeded. */
function noteLookBack(value: unknown): void {
  if (value === undefined) return;
  parseDuration(value as string, '--look-back');
  process.stderr.write(
    'hadir-sync: --look-back is no longer needed and is ignored: the changes feed names every change once, late ones included\n',
  );
}

const RESUME_HINT = 'run the same command again to continue where it stopped';

/** A failure in words: what was asked of which address, why it failed, and what to do. */
function explain(error: unknown, baseUrl: string | undefined): string {
  if (error instanceof HadirApiError) {
    const request = error.requestId ? ` (request id ${error.requestId})` : '';
    const at = baseUrl ?? 'the service';
    if (error.status === 401)
      return `${at} refused the API key: ${error.message}${request}; the key was revoked, has expired, or is unknown: ask for a new key (or rotate it in the portal) and set it in the key's environment variable or file`;
    if (error.status === 403 || error.status === 404)
      return `${at}: ${error.message}${request}; check --campaign against the key's campaigns`;
    if (error.status >= 500)
      return `${at} answered ${error.message}${request} after retries; ${RESUME_HINT} later`;
    return `${at}: ${error.message}${request}`;
  }
  if (error instanceof HadirNetworkError) {
    return `${error.message} after retries: check --base-url and that the service is running; ${RESUME_HINT}`;
  }
  return (error as Error).message;
}

async function syncCommand(mirror: Mirror, options: SyncOptions): Promise<void> {
  const progress = progressReporter(process.stderr);
  let current = '';
  const results = await runSync(options, {
    mirror,
    onProgress: (update) => {
      if (current && update.campaignId !== current) progress.done();
      current = update.campaignId;
      progress.update(update);
    },
    client: {
      onRateLimit: (event) => progress.waiting(event.retryAfterSeconds, 'rate limit'),
      onRetry: (event) =>
        progress.waiting(event.delayMs / 1000, `retry ${event.attempt} after ${event.reason}`),
    },
  });
  progress.done();
  for (const result of results) {
    const kind =
      result.mode === 'first'
        ? 'first sync'
        : result.mode === 'full'
          ? 'full sync'
          : `incremental sync since ${result.since}`;
    const resumed =
      result.resumedFrom > 0 ? `, resumed after ${plural(result.resumedFrom, 'row')}` : '';
    const removed = result.mode !== 'first' ? `, ${plural(result.removed, 'row')} removed` : '';
    if (result.fullBecause) process.stdout.write(`${result.campaignId}: ${result.fullBecause}\n`);
    process.stdout.write(
      `${result.campaignId}: ${kind}, ${plural(result.rows, 'row')} in ${plural(result.pages, 'page')}${resumed}${removed}, watermark ${result.watermark ?? 'none'}\n`,
    );
  }
}

async function exportCommand(
  mirror: Mirror,
  format: ExportFormat,
  file: string,
  options: {
    campaigns: string[];
    includeRemoved: boolean;
    timeZone?: string;
    headers: 'labels' | 'keys';
    technicalColumns: boolean;
  },
): Promise<void> {
  const campaigns = options.campaigns.length > 0 ? options.campaigns : await mirror.campaignIds();
  const read = (ids: string[]) => () =>
    mirror.rows(ids, { includeRemoved: options.includeRemoved });
  const exportOptions = {
    ...(options.timeZone ? { timeZone: options.timeZone } : {}),
    headers: options.headers,
    // Removed rows are told apart by their removedAt.
    technicalColumns: options.technicalColumns || options.includeRemoved,
  };
  // A CSV has one set of columns: each campaign gets a file of its own when there are several.
  const files =
    format === 'csv' && campaigns.length > 1
      ? campaigns.map((id) => ({ path: campaignFile(file, id), ids: [id] }))
      : [{ path: file, ids: campaigns }];
  for (const target of files) {
    const fields = await mirror.fieldDefinitions(target.ids);
    const count = await exportRows(read(target.ids), format, target.path, {
      ...exportOptions,
      fields,
    });
    process.stdout.write(`exported ${plural(count, 'row')} to ${target.path}\n`);
  }
}

function parseListen(text: string): { host: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(text);
  const port = Number(match?.[2]);
  if (!match || !Number.isInteger(port) || port > 65_535) {
    throw new Error(`--listen takes HOST:PORT, like 127.0.0.1:8787, got '${text}'`);
  }
  return { host: (match[1] as string).replace(/^\[|\]$/g, ''), port };
}

/** The options of both the one-off sync and watch: where from, with which key, and where to. */
const SOURCE_AND_MIRROR_OPTIONS = {
  'base-url': { type: 'string' },
  'api-key-env': { type: 'string', default: 'HADIR_API_KEY' },
  'api-key-file': { type: 'string' },
  campaign: { type: 'string', multiple: true },
  all: { type: 'boolean' },
  to: { type: 'string' },
} as const;

async function watchCommand(argv: string[]): Promise<number> {
  let values: ReturnType<typeof parseArgs>['values'];
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        ...SOURCE_AND_MIRROR_OPTIONS,
        listen: { type: 'string', default: '127.0.0.1:8787' },
        'webhook-secret-env': { type: 'string', default: 'HADIR_WEBHOOK_SECRET' },
        'poll-every': { type: 'string', default: '5m' },
        'budget-share': { type: 'string', default: String(DEFAULT_BUDGET_SHARE) },
        'look-back': { type: 'string' },
        limit: { type: 'string', default: '200' },
        verbose: { type: 'boolean' },
        help: { type: 'boolean' },
      },
    }));
  } catch (error) {
    process.stderr.write(`hadir-sync watch: ${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const baseUrl = values['base-url'] as string | undefined;
  try {
    const to = values.to as string | undefined;
    if (!to) throw new Error('--to is required');
    if (!baseUrl) throw new Error('--base-url is required');
    const campaigns = (values.campaign as string[] | undefined) ?? [];
    if (campaigns.length === 0 && !values.all)
      throw new Error('name campaigns with --campaign ID, or pass --all');
    const listen = parseListen(values.listen as string);
    const secretEnv = values['webhook-secret-env'] as string;
    const secrets = (process.env[secretEnv] ?? '').split(/[\s,]+/).filter((s) => s !== '');
    const pollIntervalMs = parseDuration(values['poll-every'] as string, '--poll-every');
    const budgetShare = Number(values['budget-share']);
    if (!(budgetShare > 0 && budgetShare <= 1))
      throw new Error(
        `--budget-share takes a number above 0 and at most 1, got '${values['budget-share']}'`,
      );
    noteLookBack(values['look-back']);
    const mirror = await Mirror.open(to);
    const log = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);
    const watcher = new SyncWatcher(
      {
        sync: {
          baseUrl,
          apiKey: readKey(
            values['api-key-env'] as string,
            values['api-key-file'] as string | undefined,
          ),
          campaigns,
          limit: Number(values.limit),
        },
        listen,
        secrets,
        pollIntervalMs,
        budgetShare,
        verbose: values.verbose === true,
      },
      { mirror, log },
    );
    try {
      const { url } = await watcher.start();
      const budget = `at most ${watcher.requestsPerMinute} requests a minute`;
      process.stdout.write(
        url
          ? `watching: notifications at ${url}, a safety poll every ${values['poll-every']}, ${budget}\n`
          : `watching by polling every ${values['poll-every']}, ${budget} (no secret in ${secretEnv}: notifications are not received)\n`,
      );
      const signalled = new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await Promise.race([signalled, watcher.stoppedByItself]);
      return 0;
    } finally {
      await watcher.stop();
      await mirror.close();
    }
  } catch (error) {
    const message = error instanceof WatchStopped ? error.message : explain(error, baseUrl);
    process.stderr.write(`hadir-sync watch: ${message}\n`);
    return 1;
  }
}

export async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'watch') return watchCommand(argv.slice(1));
  let values: ReturnType<typeof parseArgs>['values'];
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        ...SOURCE_AND_MIRROR_OPTIONS,
        full: { type: 'boolean' },
        'look-back': { type: 'string' },
        limit: { type: 'string', default: '200' },
        export: { type: 'string' },
        restart: { type: 'boolean' },
        'include-removed': { type: 'boolean' },
        'time-zone': { type: 'string' },
        headers: { type: 'string', default: 'labels' },
        'technical-columns': { type: 'boolean' },
        help: { type: 'boolean' },
      },
    }));
  } catch (error) {
    process.stderr.write(`hadir-sync: ${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const to = values.to as string | undefined;
  const exportFormat = values.export as string | undefined;
  const exportFile = positionals[0];
  try {
    if (!to) throw new Error('--to is required');
    if (exportFormat !== undefined && !['csv', 'jsonl'].includes(exportFormat))
      throw new Error('--export takes csv or jsonl');
    if (exportFormat !== undefined && !exportFile)
      throw new Error('--export needs a FILE after the format');
    if (!['labels', 'keys'].includes(values.headers as string))
      throw new Error('--headers takes labels or keys');
    const campaigns = (values.campaign as string[] | undefined) ?? [];
    const baseUrl = values['base-url'] as string | undefined;
    if (!baseUrl && exportFormat === undefined) throw new Error('--base-url is required to sync');
    if (baseUrl && campaigns.length === 0 && !values.all)
      throw new Error('name campaigns with --campaign ID, or pass --all');
    noteLookBack(values['look-back']);

    const mirror = await Mirror.open(to);
    try {
      if (baseUrl) {
        const limit = Number(values.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 200)
          throw new Error('--limit takes 1 to 200');
        await syncCommand(mirror, {
          baseUrl,
          apiKey: readKey(
            values['api-key-env'] as string,
            values['api-key-file'] as string | undefined,
          ),
          campaigns,
          full: values.full === true,
          restart: values.restart === true,
          limit,
        });
      }
      if (exportFormat !== undefined && exportFile) {
        await exportCommand(mirror, exportFormat as ExportFormat, exportFile, {
          campaigns,
          includeRemoved: values['include-removed'] === true,
          headers: values.headers as 'labels' | 'keys',
          technicalColumns: values['technical-columns'] === true,
          ...(typeof values['time-zone'] === 'string' ? { timeZone: values['time-zone'] } : {}),
        });
      }
    } finally {
      await mirror.close();
    }
    return 0;
  } catch (error) {
    process.stderr.write(
      `hadir-sync: ${explain(error, values['base-url'] as string | undefined)}\n`,
    );
    return 1;
  }
}
