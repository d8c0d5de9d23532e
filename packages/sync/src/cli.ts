import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { HadirApiError } from '@hadir/client';
import { type ExportFormat, exportRows } from './export.js';
import { Mirror } from './mirror.js';
import { runSync, type SyncProgress } from './sync.js';

const USAGE = `usage: hadir-sync --base-url URL [--api-key-env HADIR_API_KEY | --api-key-file PATH]
                  [--campaign ID ... | --all] --to sqlite:./mirror.sqlite|postgres://...
                  [--full] [--look-back 5m] [--limit 200] [--export csv|jsonl FILE]

Mirrors Hadir campaigns into a local database: rows are upserted by id, and each campaign's
watermark moves only after its whole sync succeeded, so an interrupted run is just run again.
--full walks everything and marks rows the server no longer serves as removed (never deletes).
--export writes the mirror to FILE (with or without syncing first). The key is read from the
environment variable or the file, never from a flag, and never printed.`;

function parseDuration(text: string): number {
  const match = /^(\d+)([smhd])$/.exec(text);
  if (!match) throw new Error(`--look-back takes a duration like 30s, 5m, 1h, got '${text}'`);
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

function progressReporter(stream: NodeJS.WriteStream) {
  const tty = stream.isTTY === true;
  let lastLogged = 0;
  return {
    update(progress: SyncProgress) {
      const line = `${progress.campaignId}: ${progress.rows.toLocaleString('en')}/${progress.total.toLocaleString('en')} rows · ${progress.pages} pages · ${progress.rateLimitWaits} rate-limit waits`;
      if (tty) {
        const share = progress.total === 0 ? 1 : Math.min(1, progress.rows / progress.total);
        const filled = Math.round(share * 20);
        const bar = `[${'█'.repeat(filled)}${'░'.repeat(20 - filled)}] ${String(Math.round(share * 100)).padStart(3)}%`;
        stream.write(`\r\x1b[2K${bar} ${line}`);
      } else if (progress.pages - lastLogged >= 10 || progress.pages === 1) {
        lastLogged = progress.pages;
        stream.write(`${line}\n`);
      }
    },
    done() {
      if (tty) stream.write('\n');
      lastLogged = 0;
    },
  };
}

export async function main(argv: string[]): Promise<number> {
  let values: ReturnType<typeof parseArgs>['values'];
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'base-url': { type: 'string' },
        'api-key-env': { type: 'string', default: 'HADIR_API_KEY' },
        'api-key-file': { type: 'string' },
        campaign: { type: 'string', multiple: true },
        all: { type: 'boolean' },
        to: { type: 'string' },
        full: { type: 'boolean' },
        'look-back': { type: 'string', default: '5m' },
        limit: { type: 'string', default: '200' },
        export: { type: 'string' },
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
    const campaigns = (values.campaign as string[] | undefined) ?? [];
    const baseUrl = values['base-url'] as string | undefined;
    if (!baseUrl && exportFormat === undefined) throw new Error('--base-url is required to sync');
    if (baseUrl && campaigns.length === 0 && !values.all)
      throw new Error('name campaigns with --campaign ID, or pass --all');

    const mirror = await Mirror.open(to);
    try {
      if (baseUrl) {
        const limit = Number(values.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 200)
          throw new Error('--limit takes 1 to 200');
        const progress = progressReporter(process.stderr);
        let current = '';
        const results = await runSync(
          {
            baseUrl,
            apiKey: readKey(
              values['api-key-env'] as string,
              values['api-key-file'] as string | undefined,
            ),
            campaigns,
            full: values.full === true,
            lookBackMs: parseDuration(values['look-back'] as string),
            limit,
          },
          {
            mirror,
            onProgress: (update) => {
              if (current && update.campaignId !== current) progress.done();
              current = update.campaignId;
              progress.update(update);
            },
          },
        );
        progress.done();
        for (const result of results) {
          process.stdout.write(
            `${result.campaignId}: ${result.mode} sync${result.since ? ` since ${result.since}` : ''}, ` +
              `${result.rows} rows in ${result.pages} pages${result.mode === 'full' ? `, ${result.removed} marked removed` : ''}, ` +
              `watermark ${result.watermark ?? 'none'}\n`,
          );
        }
      }
      if (exportFormat !== undefined && exportFile) {
        const count = await exportRows(
          await mirror.rows(campaigns),
          exportFormat as ExportFormat,
          exportFile,
        );
        process.stdout.write(`exported ${count} rows to ${exportFile}\n`);
      }
    } finally {
      await mirror.close();
    }
    return 0;
  } catch (error) {
    const detail =
      error instanceof HadirApiError
        ? `${error.message}${error.requestId ? ` (request id ${error.requestId})` : ''}`
        : (error as Error).message;
    process.stderr.write(`hadir-sync: ${detail}\n`);
    return 1;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await main(process.argv.slice(2));
}
