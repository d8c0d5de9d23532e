import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock } from '../src/clock.ts';
import { openStore } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { importDocument } from '../src/import/import.service.ts';
import { addEndpoint } from '../src/notifications/endpoints.service.ts';
import { webhookSealKey } from '../src/notifications/signing.ts';
import { createTestKey } from '../test/helpers/factories.ts';
import { startHadir } from './processes.ts';

/** Receivers that hold a sender: half answer 200 and then an endless body, half never end. */
export const HOSTILE_ENDPOINTS = 8;
/** Deliveries queued to them: every endpoint hears of each import. */
export const DELIVERIES = 200;
const REQUESTS = 400;

export interface HostileRow {
  endpoints: number;
  deliveries: number;
  /** The data API's median and p90 with no delivery going on, and while the 200 are sent. */
  idle: { p50Ms: number; p90Ms: number };
  loaded: { p50Ms: number; p90Ms: number };
  /** The loaded median over the idle one. */
  p50Ratio: number;
  /** Open descriptors of the server process: at rest, and the most seen while loaded. */
  openFiles: { idle: number; most: number };
  /**
   * Bytes the endless receivers pushed into their connections before the sender closed them (the
   * sender reads 16 KB of each; the rest is what the sockets' buffers took meanwhile).
   */
  bytesPushed: number;
  /** Requests the receivers had taken when the loaded requests ended. */
  received: number;
}

function percentile(sorted: number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? Number.NaN;
}

/** Starts the hostile receivers on 127.0.0.1; counts what they write. */
async function hostileReceivers() {
  let written = 0;
  const endless = (response: ServerResponse) => {
    response.writeHead(200);
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const pump = () => {
      while (!response.destroyed) {
        written += chunk.length;
        if (!response.write(chunk)) break;
      }
      if (!response.destroyed) response.once('drain', pump);
    };
    pump();
  };
  const silent = (response: ServerResponse) => {
    response.writeHead(200);
    response.flushHeaders();
  };
  const servers: Server[] = [];
  let requests = 0;
  for (const answer of [endless, silent]) {
    const server = createServer((request, response) => {
      requests += 1;
      request.resume();
      request.on('end', () => answer(response));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
  }
  return {
    ports: servers.map((server) => (server.address() as AddressInfo).port),
    written: () => written,
    requests: () => requests,
    close() {
      for (const server of servers) {
        server.closeAllConnections();
        server.close();
      }
    },
  };
}

/** `count` data requests one after another; their durations in ms, sorted. */
async function timeRequests(url: string, key: string, count: number): Promise<number[]> {
  const durations: number[] = [];
  for (let n = 0; n < count; n++) {
    const started = performance.now();
    const response = await fetch(
      `${url}/developer/v1/campaigns/hostile/respondents?limit=50&page=${(n % 20) + 1}`,
      {
        headers: { authorization: `Bearer ${key}`, 'x-forwarded-proto': 'https' },
      },
    );
    await response.arrayBuffer();
    durations.push(performance.now() - started);
  }
  return durations.sort((a, b) => a - b);
}

const openFilesOf = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

/**
 * The data API with HOSTILE_ENDPOINTS receivers that would hold a sender (an endless 200 body,
 * a 200 that never ends) sent DELIVERIES notifications: its latency beside the same requests at
 * rest, and the server's open descriptors.
 */
export async function measureHostileReceivers(options: {
  databaseUrl: string;
  log: (line: string) => void;
}): Promise<HostileRow> {
  const sealSecret = randomBytes(32).toString('hex');
  const receivers = await hostileReceivers();
  const store = openStore(options.databaseUrl);
  await migrateToLatest(store);
  await importDocument(store, systemClock, {
    campaigns: [
      {
        id: 'hostile',
        slug: 'hostile',
        title: 'hostile',
        eventDate: null,
        location: null,
        fields: [{ key: 'nama', label: 'Nama', type: 'TEXT' }],
      },
    ],
    respondents: Array.from({ length: 1_000 }, (_, n) => ({
      id: `h-${n}`,
      campaignId: 'hostile',
      submittedAt: new Date(Date.UTC(2026, 10, 1) + n * 1000).toISOString(),
      attendanceStatus: 'YES',
      answers: { nama: `Tamu ${n}` },
    })),
  });
  const reader = await createTestKey(store, systemClock, [
    { campaignId: 'hostile', fields: ['nama'] },
  ]);
  const owner = await createTestKey(store, systemClock, [{ campaignId: 'hostile', fields: [] }]);
  const settings = {
    store,
    clock: systemClock,
    sealKey: webhookSealKey(Buffer.from(sealSecret, 'hex')),
    allowPrivateNetworks: true,
    actor: 'bench',
  };
  for (let e = 0; e < HOSTILE_ENDPOINTS; e++) {
    await addEndpoint(settings, {
      keyId: owner.id,
      url: `http://127.0.0.1:${receivers.ports[e % 2]}/e/${e}`,
      events: ['respondents.changed'],
    });
  }
  const server = await startHadir({
    DATABASE_URL: options.databaseUrl,
    KEY_SEAL_SECRET: sealSecret,
    NODE_ENV: 'development',
    WEBHOOKS_ALLOW_PRIVATE_NETWORKS: '1',
  });
  try {
    await timeRequests(server.url, reader.key, 100);
    const idleFiles = openFilesOf(server.pid);
    const idle = await timeRequests(server.url, reader.key, REQUESTS);
    let most = idleFiles;
    const sampling = setInterval(() => {
      most = Math.max(most, openFilesOf(server.pid));
    }, 50);
    for (let n = 0; n < DELIVERIES / HOSTILE_ENDPOINTS; n++) {
      await importDocument(store, systemClock, {
        respondents: [
          {
            id: `h-${n}`,
            campaignId: 'hostile',
            submittedAt: new Date(Date.UTC(2026, 10, 2) + n * 1000).toISOString(),
            attendanceStatus: 'YES',
            answers: { nama: `Tamu ${n} lagi` },
          },
        ],
      });
    }
    // Measured once the receivers hold the sender's slots.
    while (receivers.requests() < HOSTILE_ENDPOINTS * 4) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const loaded = await timeRequests(server.url, reader.key, REQUESTS);
    clearInterval(sampling);
    const row: HostileRow = {
      endpoints: HOSTILE_ENDPOINTS,
      deliveries: DELIVERIES,
      idle: { p50Ms: percentile(idle, 0.5), p90Ms: percentile(idle, 0.9) },
      loaded: { p50Ms: percentile(loaded, 0.5), p90Ms: percentile(loaded, 0.9) },
      p50Ratio: percentile(loaded, 0.5) / percentile(idle, 0.5),
      openFiles: { idle: idleFiles, most },
      bytesPushed: receivers.written(),
      received: receivers.requests(),
    };
    options.log(
      `  data API p50 ${row.idle.p50Ms.toFixed(2)} ms at rest, ${row.loaded.p50Ms.toFixed(2)} ms with ${DELIVERIES} deliveries to ${HOSTILE_ENDPOINTS} hostile receivers (×${row.p50Ratio.toFixed(2)}); open files ${idleFiles} at rest, at most ${most}; endless receivers pushed ${Math.round(row.bytesPushed / 1048576)} MB over ${row.received} requests`,
    );
    return row;
  } finally {
    await server.stop();
    await store.close();
    receivers.close();
  }
}
