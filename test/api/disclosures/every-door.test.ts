import { readdirSync } from 'node:fs';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../../src/accounts/accounts.service.ts';
import { issueKey } from '../../../src/keys/keys.service.ts';
import { addEndpoint } from '../../../src/notifications/endpoints.service.ts';
import { eraseRespondents } from '../../../src/removals/erasure.service.ts';
import type { TestApp } from '../../helpers/app.ts';
import { type Route, routesOf } from '../../helpers/app-routes.ts';
import { recordOf } from '../../helpers/disclosure-record.ts';
import { exportWorld } from '../../helpers/export-world.ts';
import { seedCampaign } from '../../helpers/factories.ts';
import { listen, postMcp } from '../../helpers/mcp-client.ts';
import { localDeliveryWorker, SEAL } from '../../helpers/notification-world.ts';
import { pageBrowser } from '../../helpers/page-browser.ts';
import { PORTAL_PASSWORD, portalClient } from '../../helpers/portal-client.ts';
import { TestReceiver } from '../../helpers/receiver.ts';
import { startS3Server, type TestS3 } from '../../helpers/s3-server.ts';
import { startMailingApp, type TestSmtpServer } from '../../helpers/smtp.ts';
import { ENGINES } from '../../helpers/stores.ts';

/**
 * Routes that answer nothing of any respondent, and why. Every other route is called below as
 * its user would call it; a new route is neither until it is added to one or the other.
 */
const CARRY_NO_RESPONDENT: Record<string, string> = {
  'POST /developer/auth/login': 'signs in',
  'POST /developer/auth/logout': 'signs out',
  'POST /developer/auth/verify-otp': 'signs in',
  'POST /developer/auth/forgot-password': 'mails a code',
  'POST /developer/auth/reset-password': 'sets a password',
  'POST /developer/auth/change-password': 'sets a password',
  'POST /developer/auth/step-up': 'checks a code',
  'DELETE /developer/auth/devices/:id': 'forgets a device',
  'POST /developer/auth/keys/:id/reveal': 'shows a key once',
  'POST /developer/auth/keys/:id/rotate': 'issues a key',
  'POST /developer/portal/sign-in': 'signs in',
  'POST /developer/portal/sign-in/code': 'signs in',
  'POST /developer/portal/sign-in/code/resend': 'mails a code',
  'POST /developer/portal/sign-out': 'signs out',
  'POST /developer/portal/forgot-password': 'mails a code',
  'POST /developer/portal/reset-password': 'sets a password',
  'POST /developer/portal/reset-password/link': 'sets a password',
  'POST /developer/portal/keys/:id/reveal': 'shows a key once',
  'POST /developer/portal/keys/:id/rotate': 'issues a key',
  'POST /developer/portal/keys/:id/webhooks': 'adds an endpoint',
  'POST /developer/portal/keys/:id/webhooks/:endpointId/rotate': "rotates an endpoint's secret",
  'POST /developer/portal/keys/:id/webhooks/:endpointId/redeliver':
    'queues notifications, which the notification worker sends (checked below)',
  'POST /developer/portal/keys/:id/webhooks/:endpointId/:change': 'changes an endpoint',
  'POST /developer/portal/keys/:id/exports':
    'adds a delivery, which the export worker runs (below)',
  'POST /developer/portal/keys/:id/exports/setup': 'opens the delivery form',
  'POST /developer/portal/keys/:id/exports/:exportId/remove': 'removes a delivery',
  'POST /developer/portal/devices/:id/revoke': 'forgets a device',
  'POST /developer/portal/password': 'sets a password',
  'DELETE /developer/mcp': 'answers 405',
  'POST /ingest/v1/batches': "the platform's way in: it takes respondents, and answers counts",
};

/** The workers that send data out of the service, each exercised below. */
const WORKERS_THAT_SEND = ['delivery-worker.ts', 'export-worker.ts'];

const MARKED = ['mark-1', 'mark-2', 'mark-3', 'mark-4'];

/** The marked respondents a body names, and whether any. */
function markedIn(body: string): string[] {
  return MARKED.filter((id) => body.includes(id));
}

/** A file's text: an Excel workbook's parts unzipped, anything else as it is. */
function textOf(raw: Buffer, contentType: string | undefined): string {
  if (!contentType?.includes('spreadsheetml')) return raw.toString('utf8');
  return Object.values(unzipSync(new Uint8Array(raw)))
    .map((part) => Buffer.from(part).toString('utf8'))
    .join('\n');
}

describe.each(ENGINES)('every door records what it hands over, on %s', (engine) => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let close: () => Promise<void>;
  let s3: TestS3;
  let receiver: TestReceiver;
  let routes: Route[];
  let apiKey: string;
  let keyId: string;
  let endpointId: string;
  let cookie: string;
  let session: string;

  beforeAll(async () => {
    ({ t, smtp, close } = await startMailingApp(engine, { ingest: { maxConcurrentBatches: 1 } }));
    s3 = await startS3Server(['door-bucket']);
    receiver = await TestReceiver.start();
    await seedCampaign(t.store, t.clock, {
      id: 'c',
      fields: [
        { key: 'menu', type: 'RADIO' },
        { key: 'nama', type: 'TEXT' },
      ],
      respondents: MARKED.map((id, index) => ({
        id,
        submittedAt: `2026-11-0${index + 1}T00:00:00Z`,
        answers: { menu: 'Sate', nama: `Tamu ${index}` },
      })),
    });
    const email = `doors-${engine}@example.test`;
    await createAccount(t.store, t.clock, {
      email,
      password: PORTAL_PASSWORD,
      mustChangePassword: false,
    });
    const issued = await issueKey(t.store, t.clock, {
      accountEmail: email,
      scopes: [{ campaignId: 'c', fields: ['menu', 'nama'] }],
    });
    apiKey = issued.key;
    keyId = issued.id;
    endpointId = (
      await addEndpoint(
        {
          store: t.store,
          clock: t.clock,
          sealKey: SEAL,
          allowPrivateNetworks: true,
          actor: 'operator',
        },
        { keyId, url: receiver.url },
      )
    ).endpoint.id;
    // One respondent leaves, so the feeds and notifications name a removal.
    t.clock.advance(60_000);
    await eraseRespondents(t.store, t.clock, [{ campaignId: 'c', id: 'mark-4' }], 'ids');
    session = (await portalClient(t, smtp).signIn(email)).session.token;
    const browser = pageBrowser(t.app);
    browser.jar.set('hadir_session', session);
    await browser.get('/developer/portal/keys');
    cookie = [...browser.jar].map(([name, value]) => `${name}=${value}`).join('; ');
    await t.app.ready();
    routes = routesOf(t.app.printRoutes({ commonPrefix: false }));
  });
  afterAll(async () => {
    await receiver?.close();
    await s3?.close();
    await close?.();
  });

  /**
   * Checks that an answer naming marked respondents left a line of the record, for this key,
   * naming exactly them; returns the lines it added.
   */
  async function expectRecorded(what: string, body: string, before: number) {
    const lines = (await recordOf(t.store)).slice(before);
    const named = markedIn(body);
    const recorded = [...new Set(lines.flatMap((line) => [...line.rows, ...line.removals]))];
    expect(recorded.sort(), `${what}: the respondents its answer named`).toEqual(named.sort());
    for (const line of lines) expect(line.keyId, what).toBe(keyId);
    return lines;
  }

  it('calls every route the app registered, and finds a line for each answer that names anyone', async () => {
    const doors = new Set<string>();
    const unclassified: string[] = [];
    for (const route of routes) {
      const name = `${route.method} ${route.path}`;
      if (CARRY_NO_RESPONDENT[name]) continue;
      if (route.method === 'POST' && route.path === '/developer/mcp') continue; // below
      if (route.method !== 'GET') {
        unclassified.push(name);
        continue;
      }
      const url = route.path
        .replace(':campaignId', 'c')
        .replace(':endpointId', endpointId)
        .replace(':file', 'hadir-client.tgz')
        .replace(':id', route.path.startsWith('/developer/v1') ? 'c' : keyId);
      if (url.includes(':')) {
        unclassified.push(name);
        continue;
      }
      const before = (await recordOf(t.store)).length;
      const answer = await t.app.inject({
        method: 'GET',
        url,
        remoteAddress: '127.0.0.1',
        headers: url.startsWith('/developer/v1')
          ? { authorization: `Bearer ${apiKey}` }
          : url.startsWith('/developer/auth')
            ? { authorization: `Bearer ${session}` }
            : { cookie },
      });
      expect(answer.statusCode, name).toBeLessThan(500);
      const body = textOf(answer.rawPayload, answer.headers['content-type'] as string | undefined);
      const lines = await expectRecorded(name, body, before);
      for (const line of lines) doors.add(line.door);
    }
    expect(unclassified, 'routes neither called here nor said to carry no respondent').toEqual([]);
    // The doors this crawl went through.
    expect([...doors].sort()).toEqual(['api', 'changes', 'download', 'removals']);
  });

  it('records what the hosted MCP tools hand over', async () => {
    const url = `${await listen(t)}/developer/mcp`;
    for (const [tool, args] of [
      ['list_respondents', { campaignId: 'c' }],
      ['list_removals', { campaignId: 'c' }],
    ] as const) {
      const before = (await recordOf(t.store)).length;
      const answer = await postMcp(
        url,
        { method: 'tools/call', params: { name: tool, arguments: args } },
        { authorization: `Bearer ${apiKey}` },
      );
      expect(answer.status).toBe(200);
      const lines = await expectRecorded(tool, await answer.text(), before);
      expect(lines.map((line) => line.door)).toEqual(['mcp']);
    }
  });

  it('names every worker that sends data out, and each records what it sends', async () => {
    const workers = readdirSync(new URL('../../../src', import.meta.url), { recursive: true })
      .map(String)
      .filter((path) => path.endsWith('-worker.ts'))
      .map((path) => path.split('/').at(-1))
      .sort();
    expect(workers).toEqual(WORKERS_THAT_SEND);

    // Bucket deliveries: what each file holds is what the record names.
    const world = exportWorld(t.store, t.clock, s3);
    const { id: exportId } = await world.add({
      keyId,
      to: 's3://door-bucket/hadir',
      schedule: { every: '1h' },
      formats: ['csv'],
    });
    let before = (await recordOf(t.store)).length;
    await world.worker().runNow(exportId);
    const files = await s3.keys('door-bucket', 'hadir/');
    const written = (await Promise.all(files.map((file) => s3.read('door-bucket', file)))).map(
      String,
    );
    const delivered = await expectRecorded('delivery', written.join('\n'), before);
    expect(delivered.map((line) => line.door)).toEqual(['delivery']);

    // Notifications: the removal told is the removal recorded.
    before = (await recordOf(t.store)).length;
    const worker = localDeliveryWorker(t.store, t.clock);
    await worker.runOnce();
    const sent = receiver.received.map((got) => got.body).join('\n');
    expect(markedIn(sent)).toEqual(['mark-4']);
    const told = await expectRecorded('notification', sent, before);
    expect(told.map((line) => line.door)).toEqual(['notification']);
  });
});
