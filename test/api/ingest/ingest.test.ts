import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/db/connect.ts';
import { migrateToLatest } from '../../../src/db/migrate.ts';
import { createIngestToken, revokeIngestToken } from '../../../src/ingest/ingest-tokens.service.ts';
import { buildIngestApp } from '../../../src/serving/app.ts';
import { logCapture, startTestApp, type TestApp } from '../../helpers/app.ts';
import { ManualClock } from '../../helpers/clock.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';
import {
  BATCHES,
  injectBatch,
  jsonLines as lines,
  ingestRecord as respondent,
} from '../../helpers/ingest-batch.ts';
import { sendRaw } from '../../helpers/raw-http.ts';
import { createTestDatabaseUrl, createTestStore, ENGINES } from '../../helpers/stores.ts';
import { startTcpProxy } from '../../helpers/tcp-proxy.ts';

describe.each(ENGINES)('the ingest API on %s', (engine) => {
  let t: TestApp;
  let token: string;
  let apiKey: string;
  let sequence = 0;

  beforeAll(async () => {
    t = await startTestApp(engine, { ingest: { maxConcurrentBatches: 2 } });
    await seedCampaign(t.store, t.clock, {
      id: 'nikah',
      fields: [{ key: 'nama', type: 'TEXT' }],
    });
    token = (await createIngestToken(t.store, t.clock, 'platform', 'operator')).token;
    apiKey = (await createTestKey(t.store, t.clock, [{ campaignId: 'nikah', fields: ['nama'] }]))
      .key;
  });
  afterAll(() => t.close());

  const send = (
    body: string,
    headers: Record<string, string> = {},
    key: string | null = `batch-${++sequence}`,
  ) =>
    t.app.inject({
      method: 'POST',
      url: BATCHES,
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/x-ndjson',
        ...(key === null ? {} : { 'idempotency-key': key }),
        ...headers,
      },
      payload: body,
    });
  const served = async (id: string) => {
    const page = await t.get('/developer/v1/campaigns/nikah/respondents?limit=200', apiKey);
    return (page.body.data as Array<{ id: string; fields: { nama?: string } }>).find(
      (row) => row.id === id,
    );
  };

  it('applies a batch, which the data API and the removals feed show the moment it answers', async () => {
    const answer = await send(
      lines(respondent('a1', 'Sari'), respondent('a2', 'Budi'), {
        type: 'deletion',
        respondentId: 'a0',
      }),
    );
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({
      applied: { campaigns: 0, respondents: 2, deletions: 0 },
      stale: 0,
      keptErased: { count: 0, records: [] },
      unknownAnswers: { count: 0, records: [] },
      committedAt: new Date(t.clock.now()).toISOString(),
    });
    expect((await served('a1'))?.fields).toEqual({ nama: 'Sari' });
    const removed = await send(lines({ type: 'deletion', respondentId: 'a2' }));
    expect(removed.json().applied.deletions).toBe(1);
    const feed = await t.get('/developer/v1/campaigns/nikah/removals', apiKey);
    expect(feed.body.data.map((row: { id: string }) => row.id)).toContain('a2');
  });

  it('answers a batch sent again with its first answer, applies it once, and refuses the key for another body', async () => {
    const body = lines(respondent('b1', 'Dewi'));
    const first = await send(body, {}, 'once');
    const audits = async () =>
      (
        await t.store.db
          .selectFrom('audit_log')
          .select('details')
          .where('action', '=', 'ingest.batch')
          .execute()
      ).length;
    const before = await audits();
    t.clock.advance(1_000);
    const again = await send(body, {}, 'once');
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(await audits()).toBe(before);
    const other = await send(lines(respondent('b1', 'Lain')), {}, 'once');
    expect(other.statusCode).toBe(409);
    expect(other.json().error.message).toMatch(/another body/);
    expect((await served('b1'))?.fields).toEqual({ nama: 'Dewi' });
    // A day later the key is free again.
    t.clock.advance(24 * 3_600_000);
    expect((await send(lines(respondent('b1', 'Lain')), {}, 'once')).statusCode).toBe(200);
  });

  it('refuses a batch with any bad record, naming every bad line, and writes nothing', async () => {
    const answer = await send(
      lines(
        respondent('c1', 'Baik'),
        { type: 'respondent', id: 'c2', campaignId: 'nikah' },
        respondent('c3', 'Baik'),
        { type: 'sesuatu' },
        respondent('c4', 'X', { campaignId: 'tidak-ada' }),
      ),
    );
    expect(answer.statusCode).toBe(422);
    const { code, message } = answer.json().error;
    expect(code).toBe('unprocessable_entity');
    expect(message).toMatch(/^batch refused, nothing was written/);
    for (const line of ['line 2 (id c2)', 'line 4', 'line 5 (id c4)'])
      expect(message).toContain(line);
    expect(await served('c1')).toBeUndefined();
  });

  it('refuses a batch without an Idempotency-Key, of another type, or too large', async () => {
    expect((await send(lines(respondent('d1', 'X')), {}, null)).statusCode).toBe(400);
    expect((await send(lines(respondent('d1', 'X')), {}, 'spasi di dalam')).statusCode).toBe(400);
    const json = await send(JSON.stringify(respondent('d1', 'X')), {
      'content-type': 'application/json',
    });
    expect(json.statusCode).toBe(415);
    const many = Array.from({ length: 1_001 }, (_, n) => respondent(`m${n}`, 'X'));
    const tooMany = await send(lines(...many));
    expect(tooMany.statusCode).toBe(413);
    expect(tooMany.json().error.message).toContain('at most 1,000 records, this one holds 1,001');
    const huge = await send(lines(respondent('d2', 'x'.repeat(5 * 1024 * 1024))));
    expect(huge.statusCode).toBe(413);
    expect(huge.json().error.message).toContain('at most 5,242,880 bytes');
    expect(await served('d1')).toBeUndefined();
  });

  // SQLite applies a batch without yielding to the next request: there, batches never overlap.
  it.runIf(engine === 'postgres')(
    'answers 429 with Retry-After past its batches at once',
    async () => {
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, n) => send(lines(respondent(`e${n}`, 'X')))),
      );
      const statuses = answers.map((answer) => answer.statusCode);
      expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(2);
      const refused = answers.filter((answer) => answer.statusCode === 429);
      expect(refused.length).toBeGreaterThan(0);
      expect(refused[0]?.headers['retry-after']).toBe('1');
    },
  );

  it('takes versions: an older record never lands over a newer one', async () => {
    await send(lines(respondent('v1', 'Baru', { version: 5 })));
    const old = await send(lines(respondent('v1', 'Lama', { version: 4 })));
    expect(old.json()).toMatchObject({ applied: { respondents: 0 }, stale: 1 });
    expect((await served('v1'))?.fields).toEqual({ nama: 'Baru' });
  });

  it('refuses API keys, sessions and revoked tokens here, and tokens on the data API and the portal', async () => {
    const withKey = await send(lines(respondent('f1', 'X')), {
      authorization: `Bearer ${apiKey}`,
    });
    expect(withKey.statusCode).toBe(401);
    expect(withKey.json().error.message).toContain('expected hadir_it_');
    expect((await t.get('/developer/v1/campaigns', token)).status).toBe(401);
    expect((await t.get('/developer/auth/me', token)).status).toBe(401);
    const other = await createIngestToken(t.store, t.clock, 'old relay', 'operator');
    await revokeIngestToken(t.store, t.clock, other.id, 'operator');
    const revoked = await send(lines(respondent('f1', 'X')), {
      authorization: `Bearer ${other.token}`,
    });
    expect(revoked.statusCode).toBe(401);
    expect(revoked.json().error.message).toBe('the ingest token has been revoked');
  });

  it('audits every batch with its token and counts, never a value', async () => {
    await send(lines(respondent('g1', 'RahasiaSekali')));
    const audit = await t.store.db
      .selectFrom('audit_log')
      .select(['actor', 'details'])
      .where('action', '=', 'ingest.batch')
      .execute();
    expect(audit.length).toBeGreaterThan(0);
    expect(audit.every((line) => line.actor.startsWith('ingest:'))).toBe(true);
    expect(JSON.stringify(audit)).not.toContain('RahasiaSekali');
  });

  it('is not in the partners’ OpenAPI description, docs, llms.txt or skill', async () => {
    for (const path of ['openapi.json', 'docs', 'llms.txt']) {
      const reference = await t.get(`/developer/v1/${path}`);
      expect(reference.status).toBe(200);
      expect(reference.raw, path).not.toMatch(/ingest|hadir_it_/i);
    }
    const folder = mkdtempSync(join(tmpdir(), 'hadir-skill-'));
    const zip = await t.app.inject({ url: '/developer/v1/skill.zip' });
    writeFileSync(join(folder, 'skill.zip'), zip.rawPayload);
    await promisify(execFile)('unzip', ['-q', 'skill.zip', '-d', 'skill'], { cwd: folder });
    const { stdout } = await promisify(execFile)('grep', ['-rilE', 'ingest|hadir_it_', 'skill'], {
      cwd: folder,
    }).catch((error: { stdout: string; code: number }) => {
      // grep exits 1 when nothing matches.
      if (error.code === 1) return { stdout: error.stdout };
      throw error;
    });
    expect(stdout).toBe('');
  });
});

describe('the ingest API when PostgreSQL is away', () => {
  it('answers 503 with Retry-After', async () => {
    const url = new URL(await createTestDatabaseUrl('postgres'));
    const proxy = await startTcpProxy(Number(url.port));
    url.port = String(proxy.port);
    const store = openStore(url.toString(), {
      timeouts: { statementMs: 1_000, queryMs: 1_500, connectionMs: 1_000 },
    });
    const t = await startTestApp(store, { ingest: { maxConcurrentBatches: 2 } });
    try {
      await migrateToLatest(store);
      const { token } = await createIngestToken(t.store, t.clock, 'platform', 'operator');
      await proxy.cut();
      const answer = await injectBatch(t.app, {
        token,
        key: 'k',
        body: lines(respondent('h1', 'X')),
      });
      expect(answer.statusCode).toBe(503);
      expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await proxy.close();
      await t.close();
    }
  });
});

describe('the ingest API on a listener of its own', () => {
  it('keeps the HTTPS rule and cuts off a body that arrives too slowly', async () => {
    const store = await createTestStore('sqlite');
    const { logger } = logCapture();
    const app = await buildIngestApp({
      store,
      clock: new ManualClock(),
      logger,
      config: { trustProxy: '127.0.0.1' },
      requireForwardedHttps: true,
      connectionTimeouts: { headersMs: 300, requestMs: 600 },
      ingest: { maxConcurrentBatches: 2 },
    });
    try {
      const { token } = await createIngestToken(store, new ManualClock(), 'platform', 'operator');
      const post = (proto: string) =>
        injectBatch(
          app,
          {
            token,
            key: `k-${proto}`,
            body: lines({ type: 'campaign', id: 'c1', slug: 'c1', title: 'Pesta', fields: [] }),
            extra: { 'x-forwarded-proto': proto },
          },
          '127.0.0.1',
        );
      const plain = await post('http');
      expect(plain.statusCode).toBe(403);
      expect(plain.json().error.code).toBe('https_required');
      expect((await post('https')).statusCode).toBe(200);
      // The data API is not on this listener.
      const data = await app.inject({
        url: '/developer/v1/campaigns',
        remoteAddress: '127.0.0.1',
        headers: { 'x-forwarded-proto': 'https' },
      });
      expect(data.statusCode).toBe(404);

      await app.listen({ host: '127.0.0.1', port: 0 });
      const port = (app.server.address() as AddressInfo).port;
      const body = lines({ type: 'campaign', id: 'c2', slug: 'c2', title: 'Pesta', fields: [] });
      const [answer] = await sendRaw(
        port,
        `POST ${BATCHES} HTTP/1.1\r\nHost: x\r\nX-Forwarded-Proto: https\r\n` +
          `Authorization: Bearer ${token}\r\nIdempotency-Key: slow\r\n` +
          `Content-Type: application/x-ndjson\r\nContent-Length: ${body.length}\r\n\r\n` +
          body.slice(0, 5),
        { quietMs: 3_000 },
      );
      expect(answer?.status).toBe(408);
      expect(
        await store.db.selectFrom('campaigns').select('id').where('id', '=', 'c2').execute(),
      ).toEqual([]);
    } finally {
      await app.close();
      await store.close();
    }
  });
});
