import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock } from '../src/clock.ts';
import { type Engine, openStore, type Store } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { importDocument } from '../src/import/import.service.ts';
import { addEndpoint } from '../src/notifications/endpoints.service.ts';
import { webhookSealKey } from '../src/notifications/signing.ts';
import { createTestKey } from '../test/helpers/factories.ts';
import { type ServerProcess, startHadir } from './processes.ts';
import { measureWatchMirror, type WatchRow } from './watch-mirror.ts';

export const CAMPAIGNS = 20;
export const ROWS = 10_000;
export const KEYS = 10;
/** Endpoints per key: KEYS × this = 100 endpoints, each hearing of every campaign. */
export const ENDPOINTS_PER_KEY = 10;
/** How long the receivers are down in the outage case. */
export const OUTAGE_MS = 60_000;

/** Imports measured on a running server, after the first one since its start. */
export const WARM_IMPORTS = 3;

export interface BurstRow {
  endpoints: number;
  /** Notifications the imports' commits should cause (respondents.changed per campaign and endpoint). */
  expected: number;
  delivered: number;
  duplicates: number;
  /** From the import's commit (its call returning) to the receiver's 2xx, in ms. */
  minMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** The burst on a running server (WARM_IMPORTS imports, pooled), and the first one after start. */
export interface NotificationsRow extends BurstRow {
  engine: Engine;
  cold: BurstRow;
  /** Receivers answering 503 for OUTAGE_MS after an import, then 2xx: all delivered, when. */
  outage: { expected: number; delivered: number; duplicates: number; lastAfterMs: number };
  /** The server SIGKILLed while requests are in flight, then started again. */
  crash: {
    expected: number;
    delivered: number;
    lost: number;
    duplicates: number;
    /** Deliveries the store still holds as not done once every id had arrived. */
    stillPending: number;
  };
  /** `hadir-sync watch`: from an import's commit until its mirror is exact. */
  watch: WatchRow;
}

function percentile(sorted: number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? Number.NaN;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Receivers on 127.0.0.1 that count what arrives and answer as the case needs. */
class Receivers {
  readonly received: Array<{ id: string; at: number }> = [];
  /** 2xx unless the case says otherwise; `delayMs` holds each answer back. */
  status = 204;
  delayMs = 0;
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(): Promise<Receivers> {
    let self: Receivers | undefined;
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        const answer = () => {
          const status = self?.status ?? 204;
          // An answer to a sender that is gone (killed) never reached it: not a delivery.
          if (status < 300 && !request.socket.destroyed) {
            self?.received.push({ id: String(request.headers['webhook-id']), at: Date.now() });
          }
          response.writeHead(status).end();
        };
        if (self?.delayMs) setTimeout(answer, self.delayMs);
        else answer();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new Receivers(server, (server.address() as AddressInfo).port);
    return self;
  }

  distinct(): number {
    return new Set(this.received.map((one) => one.id)).size;
  }

  reset(): void {
    this.received.length = 0;
    this.status = 204;
    this.delayMs = 0;
  }

  close(): void {
    this.server.closeAllConnections();
    this.server.close();
  }
}

/** Campaigns, keys and endpoints on a fresh database; imports that touch every campaign. */
async function prepare(store: Store, sealSecret: string, port: number): Promise<string[]> {
  await migrateToLatest(store);
  const campaignIds = Array.from({ length: CAMPAIGNS }, (_, n) => `notify-${n}`);
  await importDocument(store, systemClock, {
    campaigns: campaignIds.map((id) => ({
      id,
      slug: id,
      title: id,
      eventDate: null,
      location: null,
      fields: [{ key: 'menu', label: 'Menu', type: 'RADIO' }],
    })),
  });
  const settings = {
    store,
    clock: systemClock,
    sealKey: webhookSealKey(Buffer.from(sealSecret, 'hex')),
    allowPrivateNetworks: true,
    actor: 'bench',
  };
  for (let k = 0; k < KEYS; k++) {
    const key = await createTestKey(
      store,
      systemClock,
      campaignIds.map((campaignId) => ({ campaignId, fields: ['menu'] })),
    );
    for (let e = 0; e < ENDPOINTS_PER_KEY; e++) {
      await addEndpoint(settings, {
        keyId: key.id,
        url: `http://127.0.0.1:${port}/e/${k}/${e}`,
        events: ['respondents.changed'],
      });
    }
  }
  return campaignIds;
}

let imports = 0;
/** Imports `rows` rows spread over every campaign; resolves once committed. */
async function importRows(store: Store, campaignIds: string[], rows: number): Promise<number> {
  imports += 1;
  await importDocument(store, systemClock, {
    respondents: Array.from({ length: rows }, (_, n) => ({
      id: `notify-${imports}-${n}`,
      campaignId: campaignIds[n % campaignIds.length],
      submittedAt: new Date(Date.UTC(2026, 10, 1) + n * 1000).toISOString(),
      attendanceStatus: 'YES',
      answers: { menu: n % 2 ? 'Sate' : 'Soto' },
    })),
  });
  return Date.now();
}

async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await sleep(50);
}

/**
 * Three cases on one data set, each with a compiled `serve` delivering to 100 endpoints: imports
 * of ROWS rows (commit to 2xx, p50 and p99: the first after the server's start, and
 * WARM_IMPORTS more on the running server); receivers down for OUTAGE_MS then back (all
 * delivered, duplicates counted); the server SIGKILLed with requests in flight and started again
 * (none lost).
 */
export async function measureNotifications(options: {
  engine: Engine;
  databaseUrl: string;
  log: (line: string) => void;
}): Promise<NotificationsRow> {
  const { engine, databaseUrl, log } = options;
  const sealSecret = randomBytes(32).toString('hex');
  const receivers = await Receivers.start();
  const store = openStore(databaseUrl);
  const campaignIds = await prepare(store, sealSecret, receivers.port);
  const env = {
    DATABASE_URL: databaseUrl,
    KEY_SEAL_SECRET: sealSecret,
    // Receivers on this machine: a development setting, refused in production.
    NODE_ENV: 'development',
    WEBHOOKS_ALLOW_PRIVATE_NETWORKS: '1',
  };
  const endpoints = KEYS * ENDPOINTS_PER_KEY;
  const expected = CAMPAIGNS * endpoints;
  let server: ServerProcess = await startHadir(env);
  /** Imports one after another, each drained before the next; latencies of all, pooled. */
  const bursts = async (count: number): Promise<BurstRow> => {
    const latencies: number[] = [];
    let delivered = 0;
    let duplicates = 0;
    for (let n = 0; n < count; n++) {
      receivers.reset();
      await sleep(1_000);
      const committed = await importRows(store, campaignIds, ROWS);
      await until(() => receivers.received.length >= expected, 60_000);
      await sleep(1_000);
      latencies.push(...receivers.received.map((one) => one.at - committed));
      delivered += receivers.distinct();
      duplicates += receivers.received.length - receivers.distinct();
    }
    latencies.sort((a, b) => a - b);
    return {
      endpoints,
      expected: expected * count,
      delivered,
      duplicates,
      minMs: latencies[0] ?? Number.NaN,
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
      maxMs: latencies.at(-1) ?? Number.NaN,
    };
  };
  const report = (what: string, row: BurstRow) =>
    log(
      `  ${engine}, ${what}: ${row.delivered}/${row.expected} delivered, ${row.duplicates} twice; commit to 2xx first ${row.minMs} ms, p50 ${row.p50Ms} ms, p99 ${row.p99Ms} ms`,
    );
  try {
    const cold = await bursts(1);
    report('first import after start', cold);
    const burst = await bursts(WARM_IMPORTS);
    report(`${WARM_IMPORTS} imports on the running server`, burst);

    const watch = await measureWatchMirror({ store, baseUrl: server.url, sealSecret });
    log(
      `  ${engine}: hadir-sync watch, commit to an exact mirror: p50 ${watch.p50Ms} ms, p99 ${watch.p99Ms} ms over ${watch.rounds} imports${watch.missed ? `, ${watch.missed} missed` : ''}`,
    );

    // Outage: every receiver answers 503 for a minute, then 2xx again.
    receivers.reset();
    receivers.status = 503;
    const outageStart = await importRows(store, campaignIds, CAMPAIGNS);
    await sleep(OUTAGE_MS);
    receivers.status = 204;
    // The retries after 5 s and 5 min (each ±10 %): the second falls after the outage.
    await until(() => receivers.distinct() >= expected, 8 * 60_000);
    const outage = {
      expected,
      delivered: receivers.distinct(),
      duplicates: receivers.received.length - receivers.distinct(),
      lastAfterMs: Math.max(...receivers.received.map((one) => one.at)) - outageStart,
    };
    log(
      `  ${engine}: receivers down ${OUTAGE_MS / 1000} s: ${outage.delivered}/${expected} delivered within ${Math.round(outage.lastAfterMs / 1000)} s, ${outage.duplicates} twice`,
    );

    // Crash: answers held back 2 s, the server killed while they are in flight.
    receivers.reset();
    receivers.delayMs = 2_000;
    await importRows(store, campaignIds, CAMPAIGNS);
    await sleep(1_000);
    process.kill(server.pid, 'SIGKILL');
    await sleep(500);
    receivers.delayMs = 0;
    server = await startHadir(env);
    // Claims of the killed process come due again when their 30 s lease ends.
    await until(() => receivers.distinct() >= expected, 120_000);
    await sleep(2_000);
    const pending = await store.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('state', '=', 'pending')
      .executeTakeFirstOrThrow();
    const crash = {
      expected,
      delivered: receivers.distinct(),
      lost: expected - receivers.distinct(),
      duplicates: receivers.received.length - receivers.distinct(),
      stillPending: Number(pending.n),
    };
    log(
      `  ${engine}: SIGKILL with requests in flight: ${crash.delivered}/${expected} delivered, ${crash.lost} lost, ${crash.duplicates} twice, ${crash.stillPending} still pending`,
    );
    return { engine, ...burst, cold, outage, crash, watch };
  } finally {
    await server.stop().catch(() => {});
    await store.close();
    receivers.close();
  }
}
