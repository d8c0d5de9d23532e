import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IngestClient } from '../packages/relay/src/index.ts';
import { Mirror, SyncWatcher } from '../packages/sync/src/index.ts';
import { systemClock } from '../src/clock.ts';
import { openStore, type Store } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { importDocument } from '../src/import/import.service.ts';
import { createIngestToken } from '../src/ingest/ingest-tokens.service.ts';
import { addEndpoint } from '../src/notifications/endpoints.service.ts';
import { webhookSealKey } from '../src/notifications/signing.ts';
import { createTestKey } from '../test/helpers/factories.ts';
import { startHadir } from './processes.ts';

const CAMPAIGN = 'pernikahan';
/** Guests the campaign holds before the stream starts: what edits and deletions pick from. */
const SEEDED = 500;
/** Batches a second the platform's relay sends; the changes of a second are spread over them. */
const BATCHES_PER_SECOND = 5;
const MINUTE_MS = 60_000;

export interface PartnerMirrorRow {
  changesPerSecond: number;
  seconds: number;
  changes: number;
  /** From the batch's answer to the change in the mirror (a version upserted, a row cleared). */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Changes the mirror never showed, and rows where it differs from the server at the end. */
  missed: number;
  differing: number;
  rateLimited: number;
  /** Requests the rate limit counted (not 304), in the busiest minute and in all. */
  countedPeakMinute: number;
  counted: number;
  notModified: number;
  requestsPerChange: number;
  rowsReadPerChange: number;
  /** Counted requests a minute the watch allowed itself. */
  watchBudgetPerMinute: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? Number.NaN;
}

/**
 * A partner's `hadir-sync watch` as it comes, on the key's default budget (120 a minute): a
 * platform sends `changesPerSecond` changes a second through the ingest API (70 % edits, 20 %
 * new guests, 10 % deletions) for `seconds`, to `serve` on the embedded SQLite with its default
 * settings, which notifies the watch. Each change is timed from its batch's answer to the mirror;
 * every request the watch makes is counted, with the rows its answers carried.
 */
export async function measurePartnerMirror(options: {
  changesPerSecond: number;
  seconds: number;
  log: (line: string) => void;
}): Promise<PartnerMirrorRow> {
  const folder = mkdtempSync(join(tmpdir(), 'hadir-bench-partner-'));
  const databaseUrl = `sqlite:${join(folder, 'hadir.sqlite')}`;
  const sealSecret = randomBytes(32).toString('hex');
  const store = openStore(databaseUrl);
  await migrateToLatest(store);
  await importDocument(store, systemClock, {
    campaigns: [
      {
        id: CAMPAIGN,
        slug: CAMPAIGN,
        title: 'Pernikahan',
        eventDate: null,
        location: null,
        fields: [
          { key: 'nama', label: 'Nama', type: 'TEXT' },
          { key: 'jumlah_tamu', label: 'Jumlah tamu', type: 'NUMBER' },
        ],
      },
    ],
    respondents: Array.from({ length: SEEDED }, (_, n) => ({
      id: `g${n}`,
      campaignId: CAMPAIGN,
      submittedAt: new Date(Date.now() - MINUTE_MS).toISOString(),
      attendanceStatus: 'YES' as const,
      answers: { nama: `Tamu ${n}`, jumlah_tamu: '1' },
    })),
  });
  const key = await createTestKey(
    store,
    systemClock,
    [{ campaignId: CAMPAIGN, fields: ['nama', 'jumlah_tamu'] }],
    { expiresAt: Date.now() + 30 * 86_400_000 },
  );
  const { endpoint, secret } = await addEndpoint(
    {
      store,
      clock: systemClock,
      sealKey: webhookSealKey(Buffer.from(sealSecret, 'hex')),
      allowPrivateNetworks: true,
      actor: 'bench',
    },
    { keyId: key.id, url: 'http://127.0.0.1:9/' },
  );
  const { token } = await createIngestToken(store, systemClock, 'bench relay', 'bench');

  // The user's defaults: no raised rate limit, no tuning.
  const server = await startHadir({
    DATABASE_URL: databaseUrl,
    KEY_SEAL_SECRET: sealSecret,
    // Notifications to the watch on this machine: a development setting, as in the live case.
    NODE_ENV: 'development',
    WEBHOOKS_ALLOW_PRIVATE_NETWORKS: '1',
    RATE_LIMIT_PER_MINUTE: '',
  });
  // Stopped however the case ends: a run that fails leaves no server behind.
  try {
    return await streamThrough(
      server.url,
      { store, key: key.key, endpointId: endpoint.id, secret, token, folder, databaseUrl },
      options,
    );
  } finally {
    await server.stop();
    await store.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

/** The stream, the watch and its counts, against a running server (see measurePartnerMirror). */
async function streamThrough(
  serverUrl: string,
  world: {
    store: Store;
    key: string;
    endpointId: string;
    secret: string;
    token: string;
    folder: string;
    databaseUrl: string;
  },
  options: { changesPerSecond: number; seconds: number; log: (line: string) => void },
): Promise<PartnerMirrorRow> {
  const { store, secret, token, folder, databaseUrl } = world;
  const counted: number[] = [];
  let notModified = 0;
  let rateLimited = 0;
  let rowsRead = 0;
  const counting: typeof fetch = async (input, init) => {
    const answer = await fetch(input, init);
    if (answer.status === 304) notModified += 1;
    else counted.push(Date.now());
    if (answer.status === 429) rateLimited += 1;
    if (answer.status === 200 && new URL(String(input)).pathname.endsWith('/changes')) {
      const body = (await answer.clone().json()) as { data: unknown[] };
      rowsRead += body.data.length;
    }
    return answer;
  };

  /** Versions sent and when their batch was answered, until the mirror shows them. */
  const waiting = new Map<string, { answeredAt: number; removal: boolean }>();
  const delays: number[] = [];
  const mirror = await Mirror.open(`sqlite:${join(folder, 'mirror.sqlite')}`);
  const look = async () => {
    if (waiting.size === 0) return;
    const now = Date.now();
    const held = new Map<string, string | null>();
    for await (const row of mirror.rows([CAMPAIGN], { includeRemoved: true }))
      held.set(row.id, row.removedAt === null ? row.submittedAt : null);
    for (const [version, sent] of waiting) {
      const [id, at] = version.split('@') as [string, string];
      // A guest added and removed between two reads is never in the mirror: absent is removed.
      const shown = sent.removal ? (held.get(id) ?? null) === null : (held.get(id) ?? '') >= at;
      if (!shown) continue;
      delays.push(now - sent.answeredAt);
      waiting.delete(version);
    }
  };
  const watcher = new SyncWatcher(
    {
      sync: { baseUrl: serverUrl, apiKey: world.key, campaigns: [CAMPAIGN], limit: 200 },
      listen: { host: '127.0.0.1', port: 0 },
      secrets: [secret],
      // hadir-sync watch's defaults.
      pollIntervalMs: 5 * MINUTE_MS,
    },
    {
      mirror,
      client: { fetch: counting },
      log: (line) => options.log(`    watch: ${line}`),
      onSynced: () => {
        look().catch(() => {});
      },
    },
  );
  const { url } = await watcher.start();
  await store.db
    .updateTable('webhook_endpoints')
    .set({ url: url as string })
    .where('id', '=', world.endpointId)
    .execute();
  const countedBefore = counted.length;
  const rowsBefore = rowsRead;

  const ingest = new IngestClient({ baseUrl: serverUrl, token });
  const live = Array.from({ length: SEEDED }, (_, n) => `g${n}`);
  const versions = new Map<string, number>(live.map((id) => [id, 1]));
  let next = SEEDED;
  let changes = 0;
  let carry = 0;
  const started = Date.now();
  try {
    for (let tick = 0; Date.now() - started < options.seconds * 1000; tick++) {
      const due = started + (tick * 1000) / BATCHES_PER_SECOND;
      if (due > Date.now()) await sleep(due - Date.now());
      carry += options.changesPerSecond / BATCHES_PER_SECOND;
      const records: unknown[] = [];
      const sent: Array<{ version: string; removal: boolean }> = [];
      const touched = new Set<string>();
      for (; carry >= 1; carry -= 1) {
        const roll = Math.random();
        const submittedAt = new Date().toISOString();
        if (roll < 0.2 || live.length === 0) {
          const id = `g${next++}`;
          live.push(id);
          touched.add(id);
          versions.set(id, 1);
          records.push({
            type: 'respondent',
            id,
            campaignId: CAMPAIGN,
            submittedAt,
            attendanceStatus: 'YES',
            answers: { nama: `Tamu ${id}`, jumlah_tamu: '2' },
            version: 1,
          });
          sent.push({ version: `${id}@${submittedAt}`, removal: false });
        } else {
          const index = Math.floor(Math.random() * live.length);
          const id = live[index] as string;
          if (touched.has(id)) continue;
          touched.add(id);
          const version = (versions.get(id) ?? 1) + 1;
          versions.set(id, version);
          if (roll < 0.9) {
            records.push({
              type: 'respondent',
              id,
              campaignId: CAMPAIGN,
              submittedAt,
              attendanceStatus: roll < 0.5 ? 'YES' : 'MAYBE',
              answers: { nama: `Tamu ${id} v${version}`, jumlah_tamu: String(version % 4) },
              version,
            });
            sent.push({ version: `${id}@${submittedAt}`, removal: false });
          } else {
            live.splice(index, 1);
            records.push({ type: 'deletion', respondentId: id, version });
            sent.push({ version: `${id}@removed`, removal: true });
          }
        }
      }
      if (records.length === 0) continue;
      const result = await ingest.send(records, `bench-${tick}`);
      if (result.kind !== 'applied') {
        throw new Error(
          `a batch was not applied: ${result.kind === 'refused' ? result.message : result.kind}`,
        );
      }
      const answeredAt = Date.now();
      for (const change of sent) {
        // A newer version of the same guest supersedes the one still waiting.
        const id = change.version.split('@')[0] as string;
        for (const version of waiting.keys())
          if (version.startsWith(`${id}@`)) waiting.delete(version);
        waiting.set(change.version, { answeredAt, removal: change.removal });
      }
      changes += records.length;
    }
    const deadline = Date.now() + 60_000;
    while (waiting.size > 0 && Date.now() < deadline) {
      await sleep(200);
      await look();
    }
  } finally {
    await watcher.stop();
  }
  const elapsedMs = Date.now() - started;
  // What the mirror holds against what the server serves, row for row.
  const served = new Map<string, string>();
  const readStore = openStore(databaseUrl);
  for (const row of await readStore.db
    .selectFrom('respondents')
    .select(['id', 'submitted_at'])
    .where('campaign_id', '=', CAMPAIGN)
    .execute()) {
    served.set(row.id, new Date(Number(row.submitted_at)).toISOString());
  }
  await readStore.close();
  let differing = 0;
  const mirrored = new Map<string, string>();
  for await (const row of mirror.rows([CAMPAIGN])) mirrored.set(row.id, row.submittedAt);
  for (const [id, at] of served) if (mirrored.get(id) !== at) differing += 1;
  for (const id of mirrored.keys()) if (!served.has(id)) differing += 1;
  await mirror.close();

  const during = counted.slice(countedBefore);
  let countedPeakMinute = 0;
  for (let i = 0; i < during.length; i++) {
    const start = during[i] as number;
    let n = 0;
    for (let j = i; j < during.length && (during[j] as number) < start + MINUTE_MS; j++) n++;
    countedPeakMinute = Math.max(countedPeakMinute, n);
  }
  const sorted = [...delays].sort((a, b) => a - b);
  const row: PartnerMirrorRow = {
    changesPerSecond: options.changesPerSecond,
    seconds: Math.round(elapsedMs / 1000),
    changes,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    maxMs: sorted.at(-1) ?? Number.NaN,
    missed: waiting.size,
    differing,
    rateLimited,
    countedPeakMinute,
    counted: during.length,
    notModified,
    requestsPerChange: during.length / Math.max(1, changes),
    rowsReadPerChange: (rowsRead - rowsBefore) / Math.max(1, changes),
    watchBudgetPerMinute: watcher.requestsPerMinute,
  };
  options.log(
    `  ${row.changesPerSecond}/s for ${row.seconds} s: ${row.changes} changes, batch answer to mirror p50 ${row.p50Ms} ms, p99 ${row.p99Ms} ms, max ${row.maxMs} ms; ${row.missed} missed, ${row.differing} rows differ; ${row.rateLimited} × 429; counted ${row.counted} (busiest minute ${row.countedPeakMinute}, watch allows ${row.watchBudgetPerMinute}), ${row.notModified} × 304; ${row.requestsPerChange.toFixed(3)} requests and ${row.rowsReadPerChange.toFixed(2)} rows read per change`,
  );
  return row;
}
