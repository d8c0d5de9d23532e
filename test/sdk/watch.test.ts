import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HadirClient } from '../../packages/client/src/index.ts';
import { Mirror, SyncWatcher, WatchStopped } from '../../packages/sync/src/index.ts';
import { DisclosureLog } from '../../src/disclosures/disclosure-log.ts';
import { importDocument } from '../../src/import/import.service.ts';
import { revokeKey } from '../../src/keys/keys.service.ts';
import { DeliveryWorker } from '../../src/notifications/delivery-worker.ts';
import { addEndpoint } from '../../src/notifications/endpoints.service.ts';
import { signatureHeader, webhookSealKey } from '../../src/notifications/signing.ts';
import { eraseRespondents } from '../../src/removals/erasure.service.ts';
import { startTestApp, TEST_SECRETS, type TestApp } from '../helpers/app.ts';
import { ManualClock } from '../helpers/clock.ts';
import { createTestKey, seedCampaign } from '../helpers/factories.ts';
import { until } from '../helpers/until.ts';

const row = (id: string, day: number, menu: string) => ({
  id,
  campaignId: 'pesta',
  submittedAt: new Date(Date.UTC(2026, 10, day)).toISOString(),
  attendanceStatus: 'YES' as const,
  answers: { menu, catatan: 'rahasia' },
});

describe('hadir-sync watch', () => {
  let t: TestApp;
  let watcher: SyncWatcher;
  let mirror: Mirror;
  let worker: DeliveryWorker;
  let webhookSecret: string;
  let client: HadirClient;
  const lines: string[] = [];
  let syncs = 0;

  beforeAll(async () => {
    t = await startTestApp('sqlite', {
      clock: new ManualClock(Date.now()),
      rateLimitPerMinute: 100_000,
    });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    await seedCampaign(t.store, t.clock, {
      id: 'pesta',
      fields: [
        { key: 'menu', type: 'RADIO' },
        { key: 'catatan', type: 'TEXT' },
      ],
      respondents: [row('a1', 1, 'Sate'), row('a2', 2, 'Soto')],
    });
    const key = await createTestKey(t.store, t.clock, [{ campaignId: 'pesta', fields: ['menu'] }]);
    client = new HadirClient({ baseUrl, apiKey: key.key });
    mirror = await Mirror.open(
      `sqlite:${join(mkdtempSync(join(tmpdir(), 'hadir-watch-')), 'mirror.sqlite')}`,
    );
    const settings = {
      store: t.store,
      clock: t.clock,
      sealKey: webhookSealKey(TEST_SECRETS.keySealKey),
      allowPrivateNetworks: true,
      actor: 'operator',
    };
    // The endpoint's URL is known once the watcher listens: a placeholder first.
    const { endpoint, secret } = await addEndpoint(settings, {
      keyId: key.id,
      url: 'http://127.0.0.1:9/',
    });
    watcher = new SyncWatcher(
      {
        sync: { baseUrl, apiKey: key.key, campaigns: [], limit: 200 },
        listen: { host: '127.0.0.1', port: 0 },
        secrets: [secret],
        pollIntervalMs: 3_600_000,
        gatherMs: 20,
      },
      { mirror, log: (line) => lines.push(line), onSynced: () => (syncs += 1) },
    );
    webhookSecret = secret;
    const { url } = await watcher.start();
    await t.store.db
      .updateTable('webhook_endpoints')
      .set({ url: url as string })
      .where('id', '=', endpoint.id)
      .execute();
    worker = new DeliveryWorker({
      store: t.store,
      clock: t.clock,
      disclosures: new DisclosureLog(t.store),
      sealKey: settings.sealKey,
      sender: {
        resolve: () => Promise.reject(new Error('no')),
        allowPrivateNetworks: true,
        timeoutMs: 2_000,
      },
    });
  });
  afterAll(async () => {
    await watcher.stop();
    await mirror.close();
    await t.close();
  });

  /** The server's rows as the key reads them, and the mirror's live rows. */
  const served = async () => {
    const rows = [];
    for await (const one of client.respondents('pesta'))
      rows.push(`${one.id}:${JSON.stringify(one.fields)}`);
    return rows.sort();
  };
  const mirrored = async () => {
    const rows = [];
    for await (const one of mirror.rows(['pesta']))
      rows.push(`${one.id}:${JSON.stringify(one.fields)}`);
    return rows.sort();
  };

  it('mirrors at start, then follows imports and removals from notifications alone', async () => {
    expect(await mirrored()).toEqual(await served());
    const before = syncs;
    await importDocument(t.store, t.clock, {
      respondents: [row('a3', 3, 'Sate'), row('a1', 4, 'Soto'), { id: 'a2', deleted: true }],
    });
    await worker.runOnce();
    await until(
      async () => (await mirrored()).join() === (await served()).join(),
      'the mirror to follow',
    );
    expect(await mirrored()).toEqual(['a1:{"menu":"Soto"}', 'a3:{"menu":"Sate"}']);
    // One burst (changed and removed) became one sync, and no second ran beside it.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(syncs - before).toBe(1);

    await eraseRespondents(t.store, t.clock, [{ campaignId: 'pesta', id: 'a3' }], 'ids');
    await worker.runOnce();
    await until(async () => (await mirrored()).length === 1, 'the erasure to reach the mirror');
    expect(await mirrored()).toEqual(await served());
  });

  it('reads a late record behind its watermark from the notification that names it', async () => {
    // The mirror's watermark is 4 November; a record of 2 November arrives now (sent late by the
    // platform, it keeps its own submittedAt) and no look-back reaches it.
    t.clock.advance(60_000);
    await importDocument(t.store, t.clock, { respondents: [row('late', 2, 'Rendang')] });
    await worker.runOnce();
    await until(
      async () => (await mirrored()).includes('late:{"menu":"Rendang"}'),
      'the late record to reach the mirror',
    );
    expect(await mirrored()).toEqual(await served());
  });

  it('takes a notification sent again within its 5 minutes once, and answers both', async () => {
    const address = await t.store.db
      .selectFrom('webhook_endpoints')
      .select(['url', 'id'])
      .executeTakeFirstOrThrow();
    const at = new Date();
    const body = JSON.stringify({
      type: 'webhook.test',
      timestamp: at.toISOString(),
      data: { endpointId: address.id },
    });
    const send = () =>
      fetch(address.url, {
        method: 'POST',
        headers: {
          'webhook-id': 'msg_replayed',
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': signatureHeader([webhookSecret], 'msg_replayed', at, body),
        },
        body,
      });
    expect((await send()).status).toBe(204);
    expect((await send()).status).toBe(204);
    expect(lines.filter((line) => line.startsWith('test notification from endpoint'))).toHaveLength(
      1,
    );
    expect(lines).toContain('ignored a notification received before (msg_replayed)');
  });

  it('refuses a notification that does not verify', async () => {
    const address = await t.store.db
      .selectFrom('webhook_endpoints')
      .select('url')
      .executeTakeFirstOrThrow();
    const answer = await fetch(address.url, {
      method: 'POST',
      headers: {
        'webhook-id': 'msg_x',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,AAAA',
      },
      body: JSON.stringify({
        type: 'respondents.changed',
        timestamp: '',
        data: { campaignId: 'pesta' },
      }),
    });
    expect(answer.status).toBe(401);
    expect(lines.some((line) => line.startsWith('refused a notification'))).toBe(true);
  });
});

describe('hadir-sync watch says what it waits for, and stops on a dead key', () => {
  let t: TestApp;
  let baseUrl: string;

  beforeAll(async () => {
    t = await startTestApp('sqlite', { clock: new ManualClock(Date.now()) });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    await seedCampaign(t.store, t.clock, {
      id: 'pesta',
      fields: [{ key: 'menu', type: 'RADIO' }],
      respondents: [row('a1', 1, 'Sate')],
    });
  });
  afterAll(() => t.close());

  const openMirror = () =>
    Mirror.open(`sqlite:${join(mkdtempSync(join(tmpdir(), 'hadir-watch-')), 'mirror.sqlite')}`);

  it('logs a 429 and a 503 with the wait and its reason, then carries on', async () => {
    const key = await createTestKey(t.store, t.clock, [{ campaignId: 'pesta', fields: ['menu'] }]);
    const mirror = await openMirror();
    const lines: string[] = [];
    let answered = 0;
    // The second and third answers are refusals the service could give under load.
    const flaky: typeof fetch = async (input, init) => {
      answered += 1;
      if (answered === 2)
        return new Response('{}', { status: 429, headers: { 'retry-after': '3' } });
      if (answered === 3) return new Response('{}', { status: 503 });
      return fetch(input, init);
    };
    const watcher = new SyncWatcher(
      {
        sync: { baseUrl, apiKey: key.key, campaigns: ['pesta'], limit: 200 },
        listen: { host: '127.0.0.1', port: 0 },
        secrets: [],
        pollIntervalMs: 3_600_000,
      },
      {
        mirror,
        log: (line) => lines.push(line),
        client: { fetch: flaky, sleep: async () => {}, retryBaseDelayMs: 1 },
      },
    );
    try {
      await watcher.start();
      expect(lines).toContain(
        'rate limited (429): waiting 3 s, as Retry-After asks, then the same request again',
      );
      expect(
        lines.some((line) =>
          /^service busy \(503\): retrying in [\d.]+ s \(attempt 1\)$/.test(line),
        ),
      ).toBe(true);
      expect((await mirror.campaignIds()).includes('pesta')).toBe(true);
    } finally {
      await watcher.stop();
      await mirror.close();
    }
  });

  it('stops when its key is revoked, naming the next step, and asks nothing more', async () => {
    const key = await createTestKey(t.store, t.clock, [{ campaignId: 'pesta', fields: ['menu'] }]);
    const mirror = await openMirror();
    const lines: string[] = [];
    let requests = 0;
    const counting: typeof fetch = (input, init) => {
      requests += 1;
      return fetch(input, init);
    };
    const watcher = new SyncWatcher(
      {
        sync: { baseUrl, apiKey: key.key, campaigns: ['pesta'], limit: 200 },
        listen: { host: '127.0.0.1', port: 0 },
        secrets: [],
        pollIntervalMs: 50,
        gatherMs: 1,
      },
      { mirror, log: (line) => lines.push(line), client: { fetch: counting } },
    );
    try {
      await watcher.start();
      await revokeKey(t.store, t.clock, key.id);
      const stopped = await watcher.stoppedByItself.catch((error: unknown) => error);
      expect(stopped).toBeInstanceOf(WatchStopped);
      expect((stopped as Error).message).toMatch(
        /refused the API key \(401: .*\): it was revoked, has expired, or is unknown\. Ask for a new key .* start hadir-sync watch again/,
      );
      const after = requests;
      // Polls every 50 ms while alive: stopped, it sends nothing more.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(requests).toBe(after);
      expect(lines.filter((line) => line.includes('refused the API key'))).toHaveLength(1);
    } finally {
      await watcher.stop();
      await mirror.close();
    }
  });
});
