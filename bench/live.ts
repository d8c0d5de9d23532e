import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { IngestClient, runRelay } from '../packages/relay/src/index.ts';
import { Mirror, SyncWatcher } from '../packages/sync/src/index.ts';
import { systemClock } from '../src/clock.ts';
import { type Engine, openStore, type Store } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { importDocument } from '../src/import/import.service.ts';
import { createIngestToken } from '../src/ingest/ingest-tokens.service.ts';
import { addEndpoint } from '../src/notifications/endpoints.service.ts';
import { webhookSealKey } from '../src/notifications/signing.ts';
import { createTestKey } from '../test/helpers/factories.ts';
import { freePort } from '../test/helpers/postgres-cluster.ts';
import { type ServerProcess, sampleRss, startHadir } from './processes.ts';

const ROOT = new URL('..', import.meta.url).pathname;
export const LIVE_CAMPAIGNS = 20;
/** Changes per second the platform writes, in transactions of TX_CHANGES every TICK_MS. */
export const LIVE_RATE = 1_000;
const TX_CHANGES = 10;
const TICK_MS = (1_000 * TX_CHANGES) / LIVE_RATE;
/** Relays draining the outbox at once. */
const RELAYS = 2;
/** Rows queued before the relays start, for the ingest rate. */
const RATE_ROWS = 60_000;

/** The platform's side, as docs/ingesting.md has it: its RSVP table, the outbox, the trigger. */
const PLATFORM_SQL = `
  CREATE TABLE rsvps (
    id text PRIMARY KEY, campaign_id text NOT NULL, attendance text NOT NULL,
    answers jsonb NOT NULL, row_version bigint NOT NULL, updated_at timestamptz NOT NULL);
  CREATE TABLE hadir_outbox (
    id bigserial PRIMARY KEY, record jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
  CREATE TABLE hadir_outbox_rejected (
    id bigint PRIMARY KEY, record jsonb NOT NULL, created_at timestamptz NOT NULL,
    problem text NOT NULL, rejected_at timestamptz NOT NULL DEFAULT now());
  CREATE FUNCTION rsvps_to_hadir() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'DELETE' THEN
      INSERT INTO hadir_outbox (record) VALUES (jsonb_build_object(
        'type', 'deletion', 'respondentId', OLD.id, 'version', OLD.row_version + 1));
      RETURN OLD;
    END IF;
    INSERT INTO hadir_outbox (record) VALUES (jsonb_build_object(
      'type', 'respondent', 'id', NEW.id, 'campaignId', NEW.campaign_id,
      'submittedAt', to_char(NEW.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'attendanceStatus', NEW.attendance, 'answers', NEW.answers, 'version', NEW.row_version));
    RETURN NEW;
  END $$;
  CREATE TRIGGER rsvps_to_hadir AFTER INSERT OR UPDATE OR DELETE ON rsvps
    FOR EACH ROW EXECUTE FUNCTION rsvps_to_hadir();
  CREATE FUNCTION hadir_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN PERFORM pg_notify('hadir_outbox', ''); RETURN NULL; END $$;
  CREATE TRIGGER hadir_outbox_notify AFTER INSERT ON hadir_outbox
    FOR EACH STATEMENT EXECUTE FUNCTION hadir_outbox_notify();`;

export interface Latency {
  samples: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface LiveRow {
  seconds: number;
  changes: number;
  /** From the platform's commit to Hadir's answer to the batch that held it. */
  readable: Latency;
  /** From the platform's commit to the row (that version of it) in the partner's mirror. */
  mirrored: Latency;
  /** Rows of the mirror whose final version was never timed (see watchMirror): 0, or say so. */
  mirroredUntimed: number;
  peakRssBytes: number;
  /** The same run with the relays and `serve` killed every minute and started again. */
  kills?: {
    rounds: number;
    changes: number;
    lost: number;
    staleOverwrites: number;
    notRemoved: number;
    replays: number;
    /** The same counts for Hadir's own rows. */
    atHadir: { lost: number; staleOverwrites: number; notRemoved: number };
  };
}

export interface IngestRateRow {
  engine: Engine;
  /** Relays sending at once: batches in flight. */
  relays: number;
  rows: number;
  seconds: number;
  /** CPU time of the serving process while it took them. */
  serveCpuSeconds: number;
  rowsPerSecond: number;
  rowsPerServeCpuSecond: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function latency(values: number[]): Latency {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (share: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? Number.NaN;
  return {
    samples: sorted.length,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    maxMs: sorted.at(-1) ?? Number.NaN,
  };
}

/** CPU seconds a process has used (user and system), from /proc. */
function cpuSecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** A version of a row, as Hadir and the mirror name it: its id and its submitted time. */
const versionKey = (id: string, submittedAt: string) => `${id}@${submittedAt}`;

/** The simulated platform: RSVP changes at LIVE_RATE a second, each commit's time kept. */
class Platform {
  readonly committed = new Map<string, number>();
  readonly live: string[] = [];
  private next = 0;
  private stopped = false;
  changes = 0;

  constructor(private readonly pool: pg.Pool) {}

  async run(seconds: number): Promise<void> {
    const started = Date.now();
    for (let tick = 0; !this.stopped && Date.now() - started < seconds * 1000; tick++) {
      const due = started + tick * TICK_MS;
      if (due > Date.now()) await sleep(due - Date.now());
      await this.transaction();
    }
  }

  stop(): void {
    this.stopped = true;
  }

  /** TX_CHANGES changes: mostly edits, some new RSVPs, a few deleted. */
  private async transaction(): Promise<void> {
    const db = await this.pool.connect();
    try {
      await db.query('BEGIN');
      const written: Array<{ id: string; at: string }> = [];
      for (let n = 0; n < TX_CHANGES; n++) {
        const roll = Math.random();
        if (this.live.length < 500 || roll < 0.2) {
          const id = `r${this.next++}`;
          const { rows } = await db.query(
            `INSERT INTO rsvps VALUES ($1, $2, 'YES', $3, 1, clock_timestamp())
             RETURNING to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at`,
            [id, `live-${this.next % LIVE_CAMPAIGNS}`, JSON.stringify({ nama: `Tamu ${id}` })],
          );
          this.live.push(id);
          written.push({ id, at: rows[0].at });
        } else if (roll < 0.9) {
          const id = this.live[Math.floor(Math.random() * this.live.length)] as string;
          const { rows } = await db.query(
            `UPDATE rsvps SET row_version = row_version + 1, updated_at = clock_timestamp(),
               answers = jsonb_build_object('nama', 'Tamu ' || id || ' v' || (row_version + 1))
             WHERE id = $1
             RETURNING to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at`,
            [id],
          );
          if (rows[0]) written.push({ id, at: rows[0].at });
        } else {
          const index = Math.floor(Math.random() * this.live.length);
          const id = this.live[index] as string;
          this.live.splice(index, 1);
          await db.query('DELETE FROM rsvps WHERE id = $1', [id]);
        }
      }
      await db.query('COMMIT');
      const now = Date.now();
      for (const row of written) this.committed.set(versionKey(row.id, row.at), now);
      this.changes += TX_CHANGES;
    } catch (error) {
      await db.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      db.release();
    }
  }
}

/** hadir-relay as a platform runs it: a process of its own, killed and started again at will. */
function startRelayProcess(
  env: Record<string, string>,
  onLine: (line: string) => void,
): ChildProcess {
  const child = spawn(join(ROOT, 'packages/relay/dev/hadir-relay'), [], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line) onLine(line);
  });
  return child;
}

/** How far behind the newest row seen the mirror is read again: rows arrive out of order. */
const MIRROR_LOOK_BACK_MS = 5_000;

/**
 * Polls the mirror's file for versions of rows it did not hold before, and when they came. A
 * version that arrives more than MIRROR_LOOK_BACK_MS behind the newest one seen is not timed:
 * `unseen` counts the rows whose final version was never timed, so that none go unnoticed.
 */
function watchMirror(path: string, committed: Map<string, number>, seen: number[]) {
  const known = new Set<string>();
  let database: SqliteDatabase.Database | undefined;
  let newest = '';
  const timer = setInterval(() => {
    try {
      database ??= new SqliteDatabase(path, { readonly: true, fileMustExist: true });
      const from = newest ? new Date(Date.parse(newest) - MIRROR_LOOK_BACK_MS).toISOString() : '';
      const rows = database
        .prepare(
          'SELECT id, submitted_at AS at FROM mirror_respondents WHERE submitted_at > ? AND removed_at IS NULL',
        )
        .all(from) as Array<{ id: string; at: string }>;
      const now = Date.now();
      for (const row of rows) {
        const key = versionKey(row.id, row.at);
        if (row.at > newest) newest = row.at;
        if (known.has(key)) continue;
        known.add(key);
        const at = committed.get(key);
        if (at !== undefined) seen.push(now - at);
      }
    } catch {}
  }, 50);
  return {
    /** Whether the mirror was seen holding this version of the row. */
    saw: (id: string, at: string) => known.has(versionKey(id, at)),
    /** Stops polling; returns how many of the mirror's rows hold a version never timed. */
    stop(): number {
      clearInterval(timer);
      const rows = (database
        ?.prepare('SELECT id, submitted_at AS at FROM mirror_respondents WHERE removed_at IS NULL')
        .all() ?? []) as Array<{ id: string; at: string }>;
      database?.close();
      return rows.filter((row) => !known.has(versionKey(row.id, row.at))).length;
    },
  };
}

interface World {
  hadirUrl: string;
  store: Store;
  platform: pg.Pool;
  platformUrl: string;
  token: string;
  apiKey: string;
  sealSecret: string;
  endpointId: string;
  secret: string;
  /** Where the mirror and serve's log are written. */
  folder: string;
  mirrorPath: string;
}

async function prepare(hadirUrl: string, platformUrl: string): Promise<World> {
  const store = openStore(hadirUrl);
  await migrateToLatest(store);
  const campaigns = Array.from({ length: LIVE_CAMPAIGNS }, (_, n) => `live-${n}`);
  await importDocument(store, systemClock, {
    campaigns: campaigns.map((id) => ({
      id,
      slug: id,
      title: id,
      eventDate: null,
      location: null,
      fields: [{ key: 'nama', label: 'Nama', type: 'TEXT' }],
    })),
  });
  const sealSecret = randomBytes(32).toString('hex');
  const key = await createTestKey(
    store,
    systemClock,
    campaigns.map((campaignId) => ({ campaignId, fields: ['nama'] })),
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
    {
      keyId: key.id,
      url: 'http://127.0.0.1:9/',
      events: ['respondents.changed', 'respondents.removed'],
    },
  );
  const { token } = await createIngestToken(store, systemClock, 'bench relay', 'bench');
  const platform = new pg.Pool({ connectionString: platformUrl, max: 4 });
  await platform.query(PLATFORM_SQL);
  const folder = mkdtempSync(join(tmpdir(), 'hadir-bench-live-'));
  return {
    hadirUrl,
    store,
    platform,
    platformUrl,
    token,
    apiKey: key.key,
    sealSecret,
    endpointId: endpoint.id,
    secret,
    folder,
    mirrorPath: join(folder, 'mirror.sqlite'),
  };
}

/** A compiled `serve` on the world's database; `port` keeps its address across restarts. */
function serve(world: World, port?: number): Promise<ServerProcess> {
  return startHadir(
    {
      DATABASE_URL: world.hadirUrl,
      KEY_SEAL_SECRET: world.sealSecret,
      NODE_ENV: 'development',
      WEBHOOKS_ALLOW_PRIVATE_NETWORKS: '1',
      INGEST_MAX_CONCURRENT_BATCHES: '8',
    },
    undefined,
    { ...(port ? { port } : {}), logFile: join(world.folder, 'serve.log') },
  );
}

/** The error lines serve logged, for a run that failed. */
function serveErrors(world: World): string {
  try {
    return readFileSync(join(world.folder, 'serve.log'), 'utf8')
      .split('\n')
      .filter((line) => /"level":(50|60)/.test(line))
      .slice(-5)
      .join('\n');
  } catch {
    return '(serve left no log)';
  }
}

async function startWatcher(world: World, baseUrl: string, pollMs: number) {
  const mirror = await Mirror.open(`sqlite:${world.mirrorPath}`);
  const watcher = new SyncWatcher(
    {
      sync: { baseUrl, apiKey: world.apiKey, campaigns: [], limit: 200 },
      listen: { host: '127.0.0.1', port: 0 },
      secrets: [world.secret],
      pollIntervalMs: pollMs,
      gatherMs: 20,
    },
    { mirror, log: () => {} },
  );
  const { url } = await watcher.start();
  await world.store.db
    .updateTable('webhook_endpoints')
    .set({ url: url as string })
    .where('id', '=', world.endpointId)
    .execute();
  return {
    async stop() {
      await watcher.stop();
      await mirror.close();
    },
  };
}

async function outboxLeft(platform: pg.Pool): Promise<number> {
  return Number((await platform.query('SELECT count(*) AS n FROM hadir_outbox')).rows[0].n);
}

/**
 * Live: a simulated platform writes LIVE_RATE changes a second for `seconds`; in-process relays
 * (the package's own code) carry them to a compiled `serve` on PostgreSQL, which tells
 * `hadir-sync watch` of them. Each version's time from the platform's commit to Hadir's answer,
 * and to the partner's mirror.
 */
export async function measureLive(options: {
  hadirUrl: string;
  platformUrl: string;
  seconds: number;
  log: (line: string) => void;
}): Promise<LiveRow> {
  const world = await prepare(options.hadirUrl, options.platformUrl);
  const platform = new Platform(world.platform);
  const server = await serve(world);
  const peakRss = sampleRss(server.pid);
  const watcher = await startWatcher(world, server.url, 3_600_000);
  const readable: number[] = [];
  const mirrored: number[] = [];
  const mirrorWatch = watchMirror(world.mirrorPath, platform.committed, mirrored);
  let untimed = 0;
  const stopRelays = new AbortController();
  const relays = Array.from({ length: RELAYS }, () =>
    runRelay(
      new IngestClient({
        baseUrl: server.url,
        token: world.token,
        fetch: async (input, init) => {
          const answer = await fetch(input, init);
          if (answer.status === 200) {
            const now = Date.now();
            for (const line of String(init?.body ?? '').split('\n')) {
              if (!line) continue;
              const record = JSON.parse(line) as { id?: string; submittedAt?: string };
              const at =
                record.id && record.submittedAt
                  ? platform.committed.get(versionKey(record.id, record.submittedAt))
                  : undefined;
              if (at !== undefined) readable.push(now - at);
            }
          }
          return answer;
        },
      }),
      {
        sourceUrl: world.platformUrl,
        table: 'hadir_outbox',
        rejectedTable: 'hadir_outbox_rejected',
        batchSize: 500,
        pollMs: 100,
      },
      stopRelays.signal,
      () => {},
    ),
  );
  // A relay that stops ends the run, with what serve logged as errors.
  let stopped: Error | undefined;
  for (const relay of relays) {
    relay.catch((error: Error) => {
      stopped ??= error;
      platform.stop();
    });
  }
  let rss = 0;
  try {
    await platform.run(options.seconds);
    if (stopped) throw new Error(`a relay stopped: ${stopped.message}\n${serveErrors(world)}`);
    const deadline = Date.now() + 60_000;
    while ((await outboxLeft(world.platform)) > 0 && Date.now() < deadline) await sleep(100);
    await sleep(3_000);
  } finally {
    platform.stop();
    stopRelays.abort();
    await Promise.all(relays).catch(() => {});
    untimed = mirrorWatch.stop();
    await watcher.stop();
    rss = peakRss();
    await server.stop();
    await world.platform.end();
    await world.store.close();
    rmSync(join(world.mirrorPath, '..'), { recursive: true, force: true });
  }
  const row: LiveRow = {
    seconds: options.seconds,
    changes: platform.changes,
    readable: latency(readable),
    mirrored: latency(mirrored),
    mirroredUntimed: untimed,
    peakRssBytes: rss,
  };
  options.log(
    `  ${row.changes} changes in ${row.seconds} s: commit to readable p50 ${row.readable.p50Ms} ms, p99 ${row.readable.p99Ms} ms; to the mirror (rate limit raised) p50 ${row.mirrored.p50Ms} ms, p99 ${row.mirrored.p99Ms} ms (${row.mirrored.samples} versions timed, ${row.mirroredUntimed} rows' last not); serve's peak RSS ${Math.round(rss / 1_048_576)} MB`,
  );
  return row;
}

/**
 * The same stream with `hadir-relay` processes and `serve` killed (SIGKILL) every minute and
 * started again; at the end the mirror must equal the platform row for row, by id and version.
 */
export async function measureLiveKills(options: {
  hadirUrl: string;
  platformUrl: string;
  seconds: number;
  log: (line: string) => void;
}): Promise<NonNullable<LiveRow['kills']>> {
  const world = await prepare(options.hadirUrl, options.platformUrl);
  const platform = new Platform(world.platform);
  const port = await freePort();
  let server = await serve(world, port);
  let replays = 0;
  const relayEnv = () => ({
    HADIR_INGEST_URL: server.url,
    HADIR_INGEST_TOKEN: world.token,
    RELAY_SOURCE_URL: world.platformUrl,
    RELAY_POLL_MS: '100',
  });
  const onLine = (line: string) => {
    if (line.includes('a replay')) replays += 1;
  };
  let relays = Array.from({ length: RELAYS }, () => startRelayProcess(relayEnv(), onLine));
  // The mirror's safety poll catches what a killed server's notifications did not say.
  const watcher = await startWatcher(world, server.url, 5_000);
  // What the mirror held along the way: a row that went back to an older version is told apart.
  const mirrorWatch = watchMirror(world.mirrorPath, platform.committed, []);
  let rounds = 0;
  const killer = setInterval(() => {
    rounds += 1;
    for (const relay of relays) relay.kill('SIGKILL');
    process.kill(server.pid, 'SIGKILL');
    restarting = (async () => {
      await sleep(500);
      server = await serve(world, port);
      relays = Array.from({ length: RELAYS }, () => startRelayProcess(relayEnv(), onLine));
    })();
  }, 60_000);
  let restarting: Promise<void> = Promise.resolve();
  try {
    await platform.run(options.seconds);
    clearInterval(killer);
    await restarting;
    const deadline = Date.now() + 120_000;
    while ((await outboxLeft(world.platform)) > 0 && Date.now() < deadline) await sleep(200);
    await sleep(12_000);
  } finally {
    clearInterval(killer);
    platform.stop();
    await restarting.catch(() => {});
    for (const relay of relays) relay.kill('SIGTERM');
    await watcher.stop();
    mirrorWatch.stop();
    await server.stop();
  }
  const final = await world.platform.query<{ id: string; at: string; version: string }>(
    `SELECT id, to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at,
       row_version AS version FROM rsvps`,
  );
  const mirror = new SqliteDatabase(world.mirrorPath, { readonly: true });
  const mirrored = new Map(
    (
      mirror
        .prepare('SELECT id, submitted_at AS at FROM mirror_respondents WHERE removed_at IS NULL')
        .all() as Array<{ id: string; at: string }>
    ).map((row) => [row.id, row.at]),
  );
  mirror.close();
  const platformRows = new Map(final.rows.map((row) => [row.id, row]));
  const hadirRows = new Map(
    (await world.store.db.selectFrom('respondents').select(['id', 'submitted_at']).execute()).map(
      (row) => [row.id, new Date(Number(row.submitted_at)).toISOString()],
    ),
  );
  const hadirVersions = new Map(
    (
      await world.store.db.selectFrom('respondent_versions').select(['id', 'version']).execute()
    ).map((row) => [row.id, Number(row.version)]),
  );
  /**
   * Hadir's rows and the mirror's, each against the platform's by id and version (its time). A
   * row missing, or holding an older version, is lost, unless it once held the newest: then an
   * older write landed over it, a stale overwrite.
   */
  const compare = (
    held: Map<string, string>,
    heldNewest: (row: { id: string; at: string; version: string }) => boolean,
  ) => {
    let lost = 0;
    let staleOverwrites = 0;
    for (const row of platformRows.values()) {
      const at = held.get(row.id);
      if (at !== undefined && at >= row.at) continue;
      if (at !== undefined && heldNewest(row)) staleOverwrites += 1;
      else lost += 1;
    }
    const notRemoved = [...held.keys()].filter((id) => !platformRows.has(id)).length;
    return { lost, staleOverwrites, notRemoved };
  };
  // Hadir took the newest version when it recorded its number; the mirror, when it was seen.
  const atHadir = compare(
    hadirRows,
    (row) => (hadirVersions.get(row.id) ?? -1) >= Number(row.version),
  );
  const { lost, staleOverwrites, notRemoved } = compare(mirrored, (row) =>
    mirrorWatch.saw(row.id, row.at),
  );
  await world.platform.end();
  await world.store.close();
  rmSync(join(world.mirrorPath, '..'), { recursive: true, force: true });
  const kills = {
    rounds,
    changes: platform.changes,
    lost,
    staleOverwrites,
    notRemoved,
    replays,
    atHadir,
  };
  options.log(
    `  killed relays and serve ${rounds} times over ${platform.changes} changes: in the mirror ${lost} lost, ${staleOverwrites} stale overwrites, ${notRemoved} not removed (in Hadir ${atHadir.lost}, ${atHadir.staleOverwrites}, ${atHadir.notRemoved}); ${replays} batches replayed`,
  );
  return kills;
}

/**
 * The ingest rate a serving process sustains: RATE_ROWS changes queued in the outbox, drained
 * by `relays` relays as fast as they go; rows a second, and rows per CPU second of `serve`.
 */
export async function measureIngestRate(options: {
  engine: Engine;
  relays: number;
  hadirUrl: string;
  platformUrl: string;
  log: (line: string) => void;
}): Promise<IngestRateRow> {
  const world = await prepare(options.hadirUrl, options.platformUrl);
  await world.platform.query(
    `INSERT INTO rsvps SELECT 'q' || g, 'live-' || (g % ${LIVE_CAMPAIGNS}), 'YES',
       jsonb_build_object('nama', 'Tamu ' || g), 1, clock_timestamp()
     FROM generate_series(1, ${RATE_ROWS}) g`,
  );
  const server = await serve(world);
  const stop = new AbortController();
  try {
    const cpuBefore = cpuSecondsOf(server.pid);
    const started = Date.now();
    const relays = Array.from({ length: options.relays }, () =>
      runRelay(
        new IngestClient({ baseUrl: server.url, token: world.token }),
        {
          sourceUrl: world.platformUrl,
          table: 'hadir_outbox',
          rejectedTable: 'hadir_outbox_rejected',
          batchSize: 1_000,
          pollMs: 50,
        },
        stop.signal,
        () => {},
      ),
    );
    while ((await outboxLeft(world.platform)) > 0) await sleep(100);
    const seconds = (Date.now() - started) / 1000;
    const serveCpuSeconds = cpuSecondsOf(server.pid) - cpuBefore;
    stop.abort();
    await Promise.all(relays);
    const row: IngestRateRow = {
      engine: options.engine,
      relays: options.relays,
      rows: RATE_ROWS,
      seconds,
      serveCpuSeconds,
      rowsPerSecond: Math.round(RATE_ROWS / seconds),
      rowsPerServeCpuSecond: Math.round(RATE_ROWS / serveCpuSeconds),
    };
    options.log(
      `  ${options.engine}, ${options.relays} relay${options.relays === 1 ? '' : 's'}: ${RATE_ROWS} rows in ${seconds.toFixed(1)} s (${row.rowsPerSecond}/s), serve used ${serveCpuSeconds.toFixed(1)} CPU s: ${row.rowsPerServeCpuSecond} rows per CPU second`,
    );
    return row;
  } finally {
    stop.abort();
    await server.stop();
    await world.platform.end();
    await world.store.close();
  }
}
