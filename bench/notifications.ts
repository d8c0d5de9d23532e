import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock } from '../src/clock.ts';
import { type Engine, openStore } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { importDocument } from '../src/import/import.service.ts';
import { addEndpoint } from '../src/notifications/endpoints.service.ts';
import { webhookSealKey } from '../src/notifications/signing.ts';
import { createTestKey } from '../test/helpers/factories.ts';
import { startHadir } from './processes.ts';

export const CAMPAIGNS = 20;
export const ROWS = 10_000;
export const KEYS = 10;
/** Endpoints per key: KEYS × this = 100 endpoints, each hearing of every campaign. */
export const ENDPOINTS_PER_KEY = 10;

export interface NotificationsRow {
  engine: Engine;
  endpoints: number;
  /** Notifications the import's commit should cause (respondents.changed per campaign and endpoint). */
  expected: number;
  delivered: number;
  duplicates: number;
  /** From the import's commit (its call returning) to the receiver's 2xx, in ms. */
  /** The first notification: the fixed part (the worker's poll, the claim, one request). */
  minMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

function percentile(sorted: number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? Number.NaN;
}

/**
 * An import of ROWS rows over CAMPAIGNS campaigns, heard by 100 endpoints (receivers on
 * 127.0.0.1): the time from the commit to each receiver's 2xx, as a `serve` process delivers it.
 */
export async function measureNotifications(options: {
  engine: Engine;
  databaseUrl: string;
  log: (line: string) => void;
}): Promise<NotificationsRow> {
  const { engine, databaseUrl, log } = options;
  const sealSecret = randomBytes(32).toString('hex');
  const received: Array<{ id: string; type: string; at: number }> = [];
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = Date.now();
      response.writeHead(204).end();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      received.push({
        id: String(request.headers['webhook-id']),
        type: body.type,
        at,
      });
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const port = (receiver.address() as AddressInfo).port;

  const store = openStore(databaseUrl);
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
  const server = await startHadir({
    DATABASE_URL: databaseUrl,
    KEY_SEAL_SECRET: sealSecret,
    // Receivers on this machine: a development setting, refused in production.
    NODE_ENV: 'development',
    WEBHOOKS_ALLOW_PRIVATE_NETWORKS: '1',
  });
  const endpoints = KEYS * ENDPOINTS_PER_KEY;
  /** When the import's transaction had committed (its call returned). */
  let committed = Number.NaN;
  const expected = CAMPAIGNS * endpoints;
  try {
    // Let the server settle (its worker polls), then the import.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await importDocument(store, systemClock, {
      respondents: Array.from({ length: ROWS }, (_, n) => ({
        id: `notify-r${n}`,
        campaignId: campaignIds[n % CAMPAIGNS],
        submittedAt: new Date(Date.UTC(2026, 10, 1) + n * 1000).toISOString(),
        attendanceStatus: 'YES',
        answers: { menu: n % 2 ? 'Sate' : 'Soto' },
      })),
    });
    committed = Date.now();
    const deadline = Date.now() + 60_000;
    while (received.length < expected && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Anything sent twice would come soon after.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  } finally {
    await server.stop();
    await store.close();
    receiver.close();
  }
  const latencies = received.map((one) => one.at - committed).sort((a, b) => a - b);
  const ids = new Set(received.map((one) => one.id));
  const row: NotificationsRow = {
    engine,
    endpoints,
    expected,
    delivered: ids.size,
    duplicates: received.length - ids.size,
    minMs: latencies[0] ?? Number.NaN,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    maxMs: latencies.at(-1) ?? Number.NaN,
  };
  log(
    `  ${engine}: ${row.delivered}/${expected} delivered, ${row.duplicates} twice; commit to 2xx first ${row.minMs} ms, p50 ${row.p50Ms} ms, p99 ${row.p99Ms} ms, max ${row.maxMs} ms`,
  );
  return row;
}
