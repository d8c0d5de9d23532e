import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.ts';
import type { Store } from '../../../src/db/connect.ts';
import { makeCertificate } from '../../helpers/certificates.ts';
import { exitOf, runHadirInProcess, startHadir } from '../../helpers/cli.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';
import { postBatch } from '../../helpers/ingest-batch.ts';
import { call, connectHosted, postMcp } from '../../helpers/mcp-client.ts';
import { type RunningNginx, startShippedNginx } from '../../helpers/nginx.ts';
import { freePort } from '../../helpers/postgres-cluster.ts';
import { TestReceiver } from '../../helpers/receiver.ts';
import { type RedisServer, startRedisServer } from '../../helpers/redis-server.ts';
import { createTestDatabaseUrl, openTestStore } from '../../helpers/stores.ts';
import { until } from '../../helpers/until.ts';

const NODES = 3;
const PER_MINUTE = 20;
const PAGE = '/developer/v1/campaigns/c/respondents?limit=50';

type Node = Awaited<ReturnType<typeof startHadir>> & { url: string };

describe('three serve processes on one PostgreSQL and one Redis, behind the shipped nginx', () => {
  let databaseUrl: string;
  let store: Store;
  let redis: RedisServer;
  let receiver: TestReceiver;
  let folder: string;
  let nginx: RunningNginx;
  const nodes: Node[] = [];
  let limited: string;
  let reader: string;
  let token: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabaseUrl('postgres');
    store = await openTestStore(databaseUrl);
    await seedCampaign(store, systemClock, {
      id: 'c',
      fields: [{ key: 'nama', type: 'TEXT' }],
      respondents: Array.from({ length: 5 }, (_, n) => ({
        id: `r${n}`,
        submittedAt: new Date(Date.UTC(2026, 10, 1) + n * 1000).toISOString(),
        answers: { nama: `Tamu ${n}` },
      })),
    });
    const scope = [{ campaignId: 'c', fields: ['nama'] }];
    limited = (await createTestKey(store, systemClock, scope)).key;
    const readerKey = await createTestKey(store, systemClock, scope);
    reader = readerKey.key;
    redis = await startRedisServer();
    receiver = await TestReceiver.start();
    const env = { WEBHOOKS_ALLOW_PRIVATE_NETWORKS: '1' };
    const added = await runHadirInProcess(
      ['webhooks', 'add', '--key', readerKey.id, '--url', receiver.url],
      { databaseUrl, env },
    );
    expect(added.status, added.stderr).toBe(0);
    ({ token } = JSON.parse(
      (
        await runHadirInProcess(['ingest-tokens', 'create', '--name', 'relay', '--json'], {
          databaseUrl,
        })
      ).stdout,
    ));
    const ports = await Promise.all(Array.from({ length: NODES }, () => freePort()));
    for (const port of ports) {
      const node = await startHadir(['serve', '--port', String(port), '--json'], {
        databaseUrl,
        env: {
          ...env,
          REDIS_URL: redis.url,
          RATE_LIMIT_PER_MINUTE: String(PER_MINUTE),
          TRUST_PROXY: '127.0.0.1',
          // The portal's codes go by mail once a proxy is trusted (nothing here sends one).
          SMTP_URL: 'smtp://127.0.0.1:9',
          LOG_LEVEL: 'warn',
        },
        ready: /"url":"(http:\/\/[^"]+)"/,
      });
      nodes.push({ ...node, url: node.match[1] as string });
    }
    folder = mkdtempSync(join(tmpdir(), 'hadir-nodes-'));
    nginx = await startShippedNginx(
      folder,
      ports,
      makeCertificate(folder, 'proxy', ['hadir.example.com']),
    );
  }, 120_000);
  afterAll(async () => {
    await nginx?.stop();
    for (const node of nodes) node.child.kill('SIGTERM');
    for (const node of nodes) await exitOf(node.child);
    await receiver?.close();
    await redis?.stop();
    await store?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  const read = (base: string, key: string) =>
    fetch(`${base}${PAGE}`, { headers: { authorization: `Bearer ${key}` } });

  it("holds a key's rate limit across the nodes, to within one request a minute", async () => {
    const statuses: number[] = [];
    // nginx hands the requests to the three nodes in turn.
    for (let n = 0; n < PER_MINUTE + 10; n++)
      statuses.push((await read(nginx.plain, limited)).status);
    const answered = statuses.filter((status) => status === 200).length;
    expect(Math.abs(answered - PER_MINUTE)).toBeLessThanOrEqual(1);
    expect(statuses.filter((status) => status === 429)).toHaveLength(statuses.length - answered);
  });

  it('shows a change committed through one node on every node at once, cached pages included', async () => {
    // Each node has the page in its cache.
    for (const node of nodes) expect((await read(node.url, reader)).status).toBe(200);
    const committed = await postBatch((nodes[0] as Node).url, token, 'across-nodes', [
      {
        type: 'respondent',
        id: 'baru',
        campaignId: 'c',
        submittedAt: '2026-11-20T00:00:00Z',
        attendanceStatus: 'YES',
        answers: { nama: 'Tamu Baru' },
      },
    ]);
    expect(committed.status).toBe(200);
    const at = Date.now();
    for (const node of nodes) {
      const page = (await (await read(node.url, reader)).json()) as { data: Array<{ id: string }> };
      expect(
        page.data.map((row) => row.id),
        node.url,
      ).toContain('baru');
    }
    expect(Date.now() - at).toBeLessThan(1_000);
  });

  it('refuses a key revoked by the operator on every node at once', async () => {
    const scope = [{ campaignId: 'c', fields: ['nama'] }];
    const doomed = await createTestKey(store, systemClock, scope);
    // Each node has just served the key, and the page is in each node's cache.
    for (const node of nodes) expect((await read(node.url, doomed.key)).status).toBe(200);
    const revoked = await runHadirInProcess(['keys', 'revoke', doomed.id], { databaseUrl });
    expect(revoked.status, revoked.stderr).toBe(0);
    const at = Date.now();
    for (const node of nodes) {
      const answer = await read(node.url, doomed.key);
      expect(answer.status, node.url).toBe(401);
      expect(((await answer.json()) as { error: { message: string } }).error.message).toMatch(
        /revoked/,
      );
    }
    expect(Date.now() - at).toBeLessThan(1_000);
  });

  it("answers an agent's conversation on the hosted MCP endpoint whichever node takes each call", async () => {
    const agent = await createTestKey(store, systemClock, [{ campaignId: 'c', fields: ['nama'] }]);
    const agentKey = agent.key;
    // Each POST of one conversation to the next node in turn: no session ties it to one.
    let turn = 0;
    const taken: string[] = [];
    const rotating: typeof fetch = (input, init) => {
      const node = nodes[turn++ % NODES] as Node;
      taken.push(node.url);
      const url = new URL(input instanceof Request ? input.url : String(input));
      return fetch(`${node.url}${url.pathname}`, init);
    };
    const spread = await connectHosted(`${nginx.plain}/developer/mcp`, agentKey, rotating);
    try {
      const listed = await call(spread, 'list_respondents', { campaignId: 'c', fields: ['nama'] });
      const summary = await call(spread, 'get_summary', { campaignId: 'c' });
      expect(listed.answer.isError, listed.text).toBeFalsy();
      expect(summary.answer.isError, summary.text).toBeFalsy();
      expect(new Set(taken).size).toBe(NODES);
      expect(summary.json().totals).toMatchObject({ responses: expect.any(Number) });
    } finally {
      await spread.close();
    }
    // The same through the shipped nginx, which hands the calls to the nodes in turn.
    const proxied = await connectHosted(`${nginx.plain}/developer/mcp`, agentKey);
    try {
      for (let n = 0; n < NODES; n++) {
        const counted = await call(proxied, 'count_respondents', { campaignId: 'c' });
        expect(counted.answer.isError, counted.text).toBeFalsy();
      }
    } finally {
      await proxied.close();
    }
    // Revoked, the key is refused by the endpoint of every node at once.
    const revoked = await runHadirInProcess(['keys', 'revoke', agent.id], { databaseUrl });
    expect(revoked.status, revoked.stderr).toBe(0);
    const at = Date.now();
    for (const node of nodes) {
      const answer = await postMcp(
        `${node.url}/developer/mcp`,
        { method: 'tools/list' },
        { authorization: `Bearer ${agentKey}` },
      );
      expect(answer.status, node.url).toBe(401);
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
    expect(Date.now() - at).toBeLessThan(1_000);
  });

  it('delivers each notification once, whichever node sends it', async () => {
    for (let n = 0; n < 6; n++) {
      const node = nodes[n % NODES] as Node;
      const answer = await postBatch(node.url, token, `batch-${n}`, [
        { type: 'deletion', respondentId: `r${n % 5}` },
      ]);
      expect(answer.status).toBe(200);
    }
    const unsettled = () =>
      store.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('state', '=', 'pending')
        .execute();
    await until(async () => (await unsettled()).length === 0, 'every delivery to settle');
    const delivered = await store.db
      .selectFrom('webhook_deliveries')
      .select('event_id')
      .where('state', '=', 'delivered')
      .execute();
    const ids = receiver.everything.map((got) => got.headers['webhook-id']);
    expect(delivered.length).toBeGreaterThan(1);
    expect(ids).toHaveLength(delivered.length);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
