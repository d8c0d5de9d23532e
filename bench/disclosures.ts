import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createAccount } from '../src/accounts/accounts.service.ts';
import { runCli } from '../src/cli/cli.ts';
import { systemClock } from '../src/clock.ts';
import { createDataReads } from '../src/data-api/data-reads.ts';
import { openStore } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import type { Disclosure } from '../src/disclosures/disclosure.ts';
import {
  DisclosureLog,
  type DisclosureRecorder,
  UNRECORDED,
} from '../src/disclosures/disclosure-log.ts';
import { insertDisclosures } from '../src/disclosures/disclosures.repository.ts';
import { idListOf, NO_IDS } from '../src/disclosures/id-list.ts';
import { reportOnRespondent } from '../src/disclosures/respondent-report.ts';
import { ExportWorker } from '../src/exports/export-worker.ts';
import { addExport, removeExport } from '../src/exports/exports.service.ts';
import { importDocument } from '../src/import/import.service.ts';
import { KeyUsage } from '../src/keys/key-usage.ts';
import { issueKey } from '../src/keys/keys.service.ts';
import { systemResolver } from '../src/outbound/resolver.ts';
import { Speedups } from '../src/speedups.ts';
import { S3_CREDENTIALS } from '../test/helpers/s3-server.ts';
import { clientHeaders, LIMIT, serverEnv } from './cases.ts';
import { type CpuSplit, measureCpuSplit } from './cpu-split.ts';
import { campaign, FIELDS } from './downloads.ts';
import { inTurn, type Load, load, median, type Pair } from './load.ts';
import { startHadir, startS3 } from './processes.ts';
import { CAMPAIGNS } from './seed.ts';

function drawPageOne(): string {
  const index = Math.floor(Math.random() * CAMPAIGNS);
  return `/developer/v1/campaigns/bench-${String(index).padStart(3, '0')}/respondents?limit=${LIMIT}`;
}

export interface RecordCostRow {
  /** a: Hadir with the record off (DISCLOSURE_RECORD_OFF=1); b: as deployed, recording. */
  pair: Pair;
  throughputRatio: number;
  /** CPU per request at full load. */
  cpu: { unrecorded: CpuSplit; recorded: CpuSplit };
  /** PostgreSQL's CPU per request at full load, recorded over unrecorded. */
  postgresCpuRatio: number;
  /** CPU per request at STEADY_RATE, below both servers' capacity, each in turn, twice. */
  steady: Array<{ unrecorded: CpuSplit; recorded: CpuSplit }>;
}

/** Requests a second in the steady comparison: well below what either server serves. */
const STEADY_RATE = 300;

/**
 * The distinct-pages load (page 1 of a campaign drawn at random, response cache off) on Hadir
 * with its disclosure record and without, in turn, with the CPU per request of each: the server
 * and PostgreSQL, whose share is what a cluster cannot add.
 */
export async function measureRecordCost(options: {
  databaseUrl: string;
  key: string;
  pairs: { rounds: number; seconds: number; warmupSeconds: number; serverWarmupSeconds: number };
  log: (line: string) => void;
  /** Extra environment for both servers (SPEEDUPS_OFF, to see the record's cost alone). */
  env?: Record<string, string>;
}): Promise<RecordCostRow> {
  const { databaseUrl, key, pairs, log } = options;
  const env = { ...serverEnv(databaseUrl, false), ...options.env };
  const request: Load = {
    path: drawPageOne(),
    draw: drawPageOne,
    headers: clientHeaders(key),
    expectStatus: 200,
  };
  const unrecorded = await startHadir({ ...env, DISCLOSURE_RECORD_OFF: '1' });
  const recorded = await startHadir(env);
  try {
    await load(unrecorded, request, pairs.serverWarmupSeconds);
    await load(recorded, request, pairs.serverWarmupSeconds);
    const pair = await inTurn(
      { server: unrecorded, request },
      { server: recorded, request },
      pairs,
    );
    const cpu = {
      unrecorded: await measureCpuSplit(unrecorded, request, pairs.seconds),
      recorded: await measureCpuSplit(recorded, request, pairs.seconds),
    };
    const postgresCpuRatio = cpu.recorded.postgresMs / cpu.unrecorded.postgresMs;
    const steadily: Load = { ...request, rate: STEADY_RATE };
    const steady = [];
    for (let round = 0; round < 2; round++) {
      steady.push({
        unrecorded: await measureCpuSplit(unrecorded, steadily, pairs.seconds),
        recorded: await measureCpuSplit(recorded, steadily, pairs.seconds),
      });
    }
    log(
      `  distinct page 1s: ${Math.round(pair.a.requestsPerSecond)} req/s without the record, ${Math.round(pair.b.requestsPerSecond)} with it (${pair.ratio.toFixed(3)}×)`,
    );
    for (const [name, split] of Object.entries(cpu)) {
      log(
        `  ${name.padEnd(11)} CPU ms per request: server ${split.serverMs.toFixed(3)}, PostgreSQL ${split.postgresMs.toFixed(3)}`,
      );
    }
    log(`  PostgreSQL CPU per request with the record: ${postgresCpuRatio.toFixed(3)}×`);
    for (const { unrecorded: off, recorded: on } of steady) {
      log(
        `  at ${STEADY_RATE} req/s, CPU ms per request without the record: server ${off.serverMs.toFixed(3)}, PostgreSQL ${off.postgresMs.toFixed(3)}; with it: ${on.serverMs.toFixed(3)}, ${on.postgresMs.toFixed(3)}`,
      );
    }
    return { pair, throughputRatio: pair.ratio, cpu, postgresCpuRatio, steady };
  } finally {
    await recorded.stop();
    await unrecorded.stop();
  }
}

export interface RecordedDeliveryRow {
  rows: number;
  /** Seconds of each run, with the record and without, taken in turn. */
  recordedSeconds: number[];
  unrecordedSeconds: number[];
  /** Median recorded over median unrecorded. */
  timeRatio: number;
}

const DELIVERY_ROWS = 100_000;
const DELIVERY_ROUNDS = 3;

/**
 * A bucket delivery of 100,000 respondents as CSV, run by the export worker's code in this
 * process, with the record and without, in turn: what recording each part before it is written
 * costs a run.
 */
export async function measureRecordedDelivery(
  log: (line: string) => void,
): Promise<RecordedDeliveryRow> {
  const folder = mkdtempSync(join(tmpdir(), 'hadir-bench-recorded-'));
  const store = openStore(`sqlite:${join(folder, 'deliveries.sqlite')}`);
  const s3 = await startS3(['partner']);
  const sealKey = Buffer.alloc(32, 9);
  const logger = pino({ level: 'silent' }) as never;
  try {
    await migrateToLatest(store);
    await importDocument(store, systemClock, campaign('tamu-100k', DELIVERY_ROWS));
    await createAccount(store, systemClock, { email: 'bi@hadir.test', mustChangePassword: false });
    const key = await issueKey(store, systemClock, {
      accountEmail: 'bi@hadir.test',
      scopes: [{ campaignId: 'tamu-100k', fields: FIELDS.map((field) => field.key) }],
    });
    const reads = createDataReads(store, {
      cursorKey: Buffer.alloc(32),
      responseCacheBytes: 0,
      speedups: Speedups.ALL_ON,
    });
    const keyUsage = new KeyUsage(store.db, logger, 3_600_000);
    const run = async (name: string, disclosures: DisclosureRecorder) => {
      const settings = {
        store,
        clock: systemClock,
        keySealKey: sealKey,
        actor: 'operator',
        allowPrivateNetworks: true,
      };
      const delivery = await addExport(settings, {
        keyId: key.id,
        to: `s3://partner/${name}`,
        endpoint: s3.url,
        credentials: S3_CREDENTIALS,
        schedule: { every: '1h' },
        formats: ['csv'],
      });
      const worker = new ExportWorker({
        ...settings,
        campaigns: reads.campaigns,
        keyUsage,
        disclosures,
        resolve: systemResolver,
        speedups: Speedups.ALL_ON,
      });
      const started = performance.now();
      await worker.runNow(delivery.id);
      const seconds = (performance.now() - started) / 1000;
      // A key chain has at most 3 deliveries.
      await removeExport(settings, delivery.id);
      return seconds;
    };
    const recorder = new DisclosureLog(store);
    await run('warm-up', UNRECORDED);
    const recordedSeconds: number[] = [];
    const unrecordedSeconds: number[] = [];
    for (let round = 0; round < DELIVERY_ROUNDS; round++) {
      unrecordedSeconds.push(await run(`off-${round}`, UNRECORDED));
      recordedSeconds.push(await run(`on-${round}`, recorder));
    }
    await recorder.close();
    await keyUsage.close();
    const timeRatio = median(recordedSeconds) / median(unrecordedSeconds);
    log(
      `  100,000 respondents as CSV to a bucket: ${median(unrecordedSeconds).toFixed(2)} s without the record, ${median(recordedSeconds).toFixed(2)} s with it (${timeRatio.toFixed(3)}×)`,
    );
    return { rows: DELIVERY_ROWS, recordedSeconds, unrecordedSeconds, timeRatio };
  } finally {
    await store.close();
    await s3.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

export interface ReportTimesRow {
  engine: string;
  /** Answers in the record, by how many keys, over a campaign of how many respondents. */
  lines: number;
  keys: number;
  respondents: number;
  /** The respondent's report: how many answers named them, and its times (ms). */
  respondentLines: number;
  respondentReportMs: number[];
  /** A key whose chain received `keyRespondents`: its report as JSON and as a document (ms). */
  keyRespondents: number;
  keyReportJsonMs: number;
  keyReportTextMs: number;
}

const REPORT_LINES = 100_000;
const REPORT_KEYS = 50;
const CAMPAIGN_ROWS = 10_000;
const KEY_RESPONDENTS = 100_000;

/**
 * The reports on a full record: 100,000 answers of pages of 200 by 50 keys over a campaign of
 * 10,000 respondents (one respondent then appears in some 2,000 of them), and a key that received
 * 100,000 respondents. Times the respondent's report, and the key's as JSON and as a document, as
 * `hadir disclosures` makes them (in this process: a command's own start is apart).
 */
export async function measureReportTimes(
  engine: 'sqlite' | 'postgres',
  databaseUrl: string,
  log: (line: string) => void,
): Promise<ReportTimesRow> {
  const store = openStore(databaseUrl);
  try {
    await migrateToLatest(store);
    await importDocument(store, systemClock, campaign('tamu-10k', CAMPAIGN_ROWS));
    await createAccount(store, systemClock, {
      email: 'mitra@hadir.test',
      mustChangePassword: false,
    });
    const keys = [];
    for (let n = 0; n < REPORT_KEYS; n++) {
      keys.push(
        await issueKey(store, systemClock, {
          accountEmail: 'mitra@hadir.test',
          name: `key ${n}`,
          scopes: [{ campaignId: 'tamu-10k', fields: ['nama', 'menu'] }],
        }),
      );
    }
    const idOf = (n: number) => `tamu-10k-${String(n).padStart(6, '0')}`;
    const lineOf = (n: number, key: { id: string }, ids: string[]): Disclosure => ({
      at: Date.parse('2026-11-01T00:00:00Z') + n * 1000,
      recipient: { keyId: key.id, lineageId: key.id, accountId: 'bench' },
      door: 'api',
      campaignId: 'tamu-10k',
      fields: ['nama', 'menu'],
      rowIds: idListOf(ids),
      removalIds: NO_IDS,
    });
    const batch: Disclosure[] = [];
    for (let n = 0; n < REPORT_LINES; n++) {
      const start = Math.floor(Math.random() * (CAMPAIGN_ROWS - 200));
      const ids = Array.from({ length: 200 }, (_, index) => idOf(start + index));
      batch.push(lineOf(n, keys[n % REPORT_KEYS] as { id: string }, ids));
      if (batch.length === 1_000) await insertDisclosures(store, batch.splice(0));
    }
    // A key that received 100,000 respondents of another campaign, a page of 200 at a time.
    const leaked = keys[0] as { id: string };
    for (let page = 0; page < KEY_RESPONDENTS / 200; page++) {
      const ids = Array.from(
        { length: 200 },
        (_, index) => `gelar-${String(page * 200 + index).padStart(6, '0')}`,
      );
      batch.push({ ...lineOf(REPORT_LINES + page, leaked, ids), campaignId: 'gelar' });
      if (batch.length === 1_000) await insertDisclosures(store, batch.splice(0));
    }
    await insertDisclosures(store, batch.splice(0));
    const target = idOf(CAMPAIGN_ROWS / 2);
    const respondentReportMs: number[] = [];
    let respondentLines = 0;
    for (let n = 0; n < 5; n++) {
      const started = performance.now();
      const report = await reportOnRespondent(store, target);
      respondentReportMs.push(Math.round(performance.now() - started));
      respondentLines = report.recipients.reduce(
        (sum, recipient) => sum + recipient.doors.reduce((each, use) => each + use.count, 0),
        0,
      );
    }
    const timeCommand = async (args: string[]) => {
      let bytes = 0;
      const started = performance.now();
      const status = await runCli(args, {
        env: { DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
        stdout: (text) => {
          bytes += text.length;
        },
        stderr: (text) => process.stderr.write(text),
        stdin: () => new Writable() as never,
      });
      if (status !== 0) throw new Error(`hadir ${args.join(' ')} exited ${status}`);
      return { ms: Math.round(performance.now() - started), bytes };
    };
    const json = await timeCommand(['disclosures', '--key', leaked.id, '--json']);
    const text = await timeCommand(['disclosures', '--key', leaked.id]);
    const row: ReportTimesRow = {
      engine,
      lines: REPORT_LINES + KEY_RESPONDENTS / 200,
      keys: REPORT_KEYS,
      respondents: CAMPAIGN_ROWS,
      respondentLines,
      respondentReportMs,
      keyRespondents: KEY_RESPONDENTS,
      keyReportJsonMs: json.ms,
      keyReportTextMs: text.ms,
    };
    log(
      `  ${engine.padEnd(8)} a respondent named by ${respondentLines} of ${row.lines} answers of ${REPORT_KEYS} keys: report in ${median(respondentReportMs)} ms (median of 5, slowest ${Math.max(...respondentReportMs)})`,
    );
    log(
      `  ${engine.padEnd(8)} a key that received ${KEY_RESPONDENTS.toLocaleString('en')} respondents: ${json.ms} ms as JSON (${(json.bytes / 1e6).toFixed(1)} MB), ${text.ms} ms as a document (${(text.bytes / 1e6).toFixed(1)} MB)`,
    );
    return row;
  } finally {
    await store.close();
  }
}
