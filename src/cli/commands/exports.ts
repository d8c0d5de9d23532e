import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { createDataReads } from '../../data-api/data-reads.ts';
import type { Store } from '../../db/store.ts';
import { DisclosureLog } from '../../disclosures/disclosure-log.ts';
import { minutesOf, type Schedule } from '../../exports/export-schedule.ts';
import { ExportWorker } from '../../exports/export-worker.ts';
import {
  addExport,
  type ExportSettings,
  type ExportView,
  listExports,
  removeExport,
} from '../../exports/exports.service.ts';
import { KeyUsage } from '../../keys/key-usage.ts';
import { systemResolver } from '../../outbound/resolver.ts';
import { serverSecretsOf } from '../../secrets.ts';
import { Speedups } from '../../speedups.ts';
import {
  type Command,
  type Context,
  onePositional,
  required,
  warnOn,
  withStore,
} from '../command.ts';
import { UsageError } from '../usage-error.ts';

function keySealKeyOf(context: Context): Buffer {
  return serverSecretsOf(context.config, warnOn(context.io)).keySealKey;
}

function settingsOf(context: Context, store: Store): ExportSettings {
  return {
    store,
    clock: context.clock,
    keySealKey: keySealKeyOf(context),
    actor: 'operator',
    // An operator's bucket may be on the operator's own network.
    allowPrivateNetworks: true,
  };
}

/** `--every 1h|1d` with `--at HH:MM` (Asia/Jakarta) for a daily delivery. */
function scheduleOption(context: Context): Schedule {
  const every = required(context, 'every');
  const at = context.values.at;
  if (every === '1h') {
    if (at !== undefined) throw new UsageError('--at is for --every 1d; hourly runs on the hour');
    return { every: '1h' };
  }
  if (every !== '1d') throw new UsageError(`--every takes 1h or 1d, got '${every}'`);
  if (at === undefined) return { every: '1d', atMinute: 0 };
  const minutes = typeof at === 'string' ? minutesOf(at) : undefined;
  if (minutes === undefined) throw new UsageError(`--at takes HH:MM (00:00 to 23:59), got '${at}'`);
  return { every: '1d', atMinute: minutes };
}

/** A credential from the environment variable named by `--NAME-env`: never from a flag. */
function credentialFrom(context: Context, option: string): string {
  const name = required(context, option);
  const value = context.io.env[name];
  if (!value) throw new UsageError(`--${option} names ${name}, which is not set or is empty`);
  return value;
}

function keepOption(context: Context): number | undefined {
  const keep = context.values.keep;
  if (keep === undefined) return undefined;
  if (typeof keep !== 'string' || !/^\d+$/.test(keep)) {
    throw new UsageError(`--keep takes a whole number, got '${keep}'`);
  }
  return Number(keep);
}

function describe(view: ExportView): string {
  const last = view.lastRun;
  const lastText = !last
    ? 'no run yet'
    : last.state === 'done'
      ? `last run ${last.run}: ${last.files} files, ${last.rows} rows, ${last.bytes} bytes`
      : last.state === 'running'
        ? `running ${last.run}`
        : `last run ${last.run} FAILED after ${last.attempts} tries: ${last.error}${last.nextAttemptAt ? `; tried again at ${last.nextAttemptAt}` : ''}`;
  return `${view.id}  key ${view.keyId}  ${view.to}  ${view.schedule}  ${view.formats.join(',')}  keeps ${view.keep}  next ${view.nextRunAt}  ${lastText}`;
}

export const EXPORT_COMMANDS: Record<string, Command> = {
  'exports add': {
    summary:
      "Sets a scheduled delivery of a key's guest lists to an S3-compatible bucket. The credentials come from the two environment variables named, are stored sealed and never shown.",
    example:
      'exports add --key KEY_ID --to s3://partner-bucket/hadir --endpoint https://s3.ap-southeast-1.amazonaws.com --access-key-env PARTNER_KEY_ID --secret-key-env PARTNER_SECRET --every 1d --at 06:00 --format csv,parquet',
    usage:
      'exports add --key KEY_ID --to s3://BUCKET/PREFIX --endpoint URL --access-key-env NAME --secret-key-env NAME --every 1h|1d [--at HH:MM] --format csv,parquet,xlsx [--keep 7] [--region REGION]',
    options: {
      key: { type: 'string' },
      to: { type: 'string' },
      endpoint: { type: 'string' },
      region: { type: 'string' },
      'access-key-env': { type: 'string' },
      'secret-key-env': { type: 'string' },
      every: { type: 'string' },
      at: { type: 'string' },
      format: { type: 'string' },
      keep: { type: 'string' },
    },
    async run(context) {
      const schedule = scheduleOption(context);
      const input = {
        keyId: required(context, 'key'),
        to: required(context, 'to'),
        endpoint: required(context, 'endpoint'),
        credentials: {
          accessKeyId: credentialFrom(context, 'access-key-env'),
          secretAccessKey: credentialFrom(context, 'secret-key-env'),
        },
        schedule,
        formats: required(context, 'format').split(','),
        ...(typeof context.values.region === 'string' ? { region: context.values.region } : {}),
      };
      const keep = keepOption(context);
      const added = await withStore(context, (store) =>
        addExport(settingsOf(context, store), {
          ...input,
          ...(keep !== undefined ? { keep } : {}),
        }),
      );
      return {
        json: added,
        text: `delivery ${added.id} for key ${added.keyId} to ${added.to}, ${added.schedule}, ${added.formats.join(', ')}; first run ${added.nextRunAt}`,
      };
    },
  },
  'exports list': {
    summary: 'Lists the deliveries (never their credentials), with their last run.',
    example: 'exports list --key KEY_ID',
    usage: 'exports list [--key KEY_ID]',
    options: { key: { type: 'string' } },
    async run(context) {
      const key = context.values.key;
      const exports = await withStore(context, (store) =>
        listExports({ store, clock: context.clock }, typeof key === 'string' ? key : undefined),
      );
      return { json: { exports }, text: exports.map(describe).join('\n') || 'no deliveries' };
    },
  },
  'exports run': {
    summary:
      'Runs one delivery now and exits once its manifest is written (or with the failure in words).',
    example: 'exports run EXPORT_ID',
    usage: 'exports run EXPORT_ID',
    options: {},
    async run(context) {
      const id = onePositional(context, 'EXPORT_ID');
      const logger = pino({ level: 'warn' }, pino.destination(2)) as unknown as FastifyBaseLogger;
      const result = await withStore(context, async (store) => {
        const keyUsage = new KeyUsage(store.db, logger);
        const disclosures = new DisclosureLog(store);
        try {
          const reads = createDataReads(store, {
            cursorKey: Buffer.alloc(32),
            responseCacheBytes: 0,
            speedups: Speedups.ALL_ON,
          });
          const worker = new ExportWorker({
            ...settingsOf(context, store),
            campaigns: reads.campaigns,
            keyUsage,
            disclosures,
            resolve: systemResolver,
            speedups: Speedups.ALL_ON,
          });
          return await worker.runNow(id);
        } finally {
          await disclosures.close();
          await keyUsage.close();
        }
      });
      const { manifest } = result;
      return {
        json: { id, ...result },
        text: [
          `run ${manifest.run} of ${id}: ${manifest.files.length} files, ${result.rows} rows, ${result.bytes} bytes; manifest.json written`,
          ...manifest.files.map(
            (file) =>
              `  ${file.path}  ${file.rows} rows  ${file.bytes} bytes  sha256 ${file.sha256}`,
          ),
          ...(result.runsRemoved.length > 0
            ? [`older runs deleted: ${result.runsRemoved.join(', ')}`]
            : []),
        ].join('\n'),
      };
    },
  },
  'exports remove': {
    summary: 'Removes a delivery; what it already wrote stays in the bucket.',
    example: 'exports remove EXPORT_ID',
    usage: 'exports remove EXPORT_ID',
    options: {},
    async run(context) {
      const id = onePositional(context, 'EXPORT_ID');
      await withStore(context, (store) => removeExport(settingsOf(context, store), id));
      return { json: { id, removed: true }, text: `removed ${id}` };
    },
  },
};
