import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  drainOnce,
  IngestClient,
  IngestUnavailable,
  RelayStopped,
  runRelay,
} from '../../packages/relay/src/index.ts';
import { Metrics } from '../../src/http/metrics.ts';
import { createIngestToken, revokeIngestToken } from '../../src/ingest/ingest-tokens.service.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedCampaign } from '../helpers/factories.ts';
import { freePort } from '../helpers/postgres-cluster.ts';
import { createEmptyPostgresUrl, ENGINES } from '../helpers/stores.ts';
import { until } from '../helpers/until.ts';

/** The outbox and its rejected table, as docs/ingesting.md has the platform make them. */
const OUTBOX = `
  CREATE TABLE hadir_outbox (
    id bigserial PRIMARY KEY,
    record jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE TABLE hadir_outbox_rejected (
    id bigint PRIMARY KEY,
    record jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    problem text NOT NULL,
    rejected_at timestamptz NOT NULL DEFAULT now()
  );`;

const OPTIONS = { table: 'hadir_outbox', rejectedTable: 'hadir_outbox_rejected', batchSize: 100 };

const change = (n: number, version: number, nama = `Tamu ${n} v${version}`) => ({
  type: 'respondent',
  id: `p${n}`,
  campaignId: 'platform',
  submittedAt: new Date(Date.UTC(2026, 10, 1) + version * 1000).toISOString(),
  attendanceStatus: 'YES',
  answers: { nama },
  version,
});

describe.each(ENGINES)('hadir-relay from a PostgreSQL outbox into Hadir on %s', (engine) => {
  let t: TestApp;
  let source: pg.Pool;
  let baseUrl: string;
  let token: string;
  const metrics = new Metrics();

  beforeAll(async () => {
    t = await startTestApp(engine, { ingest: { maxConcurrentBatches: 4 }, metrics });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    await seedCampaign(t.store, t.clock, {
      id: 'platform',
      fields: [{ key: 'nama', type: 'TEXT' }],
    });
    token = (await createIngestToken(t.store, t.clock, 'relay', 'operator')).token;
    source = new pg.Pool({ connectionString: await createEmptyPostgresUrl(), max: 4 });
    await source.query(OUTBOX);
  });
  afterAll(async () => {
    await source.end();
    await t.close();
  });

  const enqueue = async (records: unknown[]) => {
    for (const record of records) {
      await source.query('INSERT INTO hadir_outbox (record) VALUES ($1)', [JSON.stringify(record)]);
    }
  };
  const left = async () =>
    Number((await source.query('SELECT count(*) AS n FROM hadir_outbox')).rows[0].n);
  const names = async () => {
    const rows = await t.store.db
      .selectFrom('respondents')
      .select(['id', 'answers'])
      .where('campaign_id', '=', 'platform')
      .execute();
    return new Map(rows.map((row) => [row.id, JSON.parse(row.answers).nama as string]));
  };
  const batchesApplied = async () =>
    (
      await t.store.db
        .selectFrom('audit_log')
        .select('id')
        .where('action', '=', 'ingest.batch')
        .execute()
    ).length;

  it('sends every row once, even when it dies after Hadir answered and before its delete', async () => {
    await enqueue(Array.from({ length: 250 }, (_, n) => change(n, 1)));
    let calls = 0;
    const dying = new IngestClient({
      baseUrl,
      token,
      // The second batch reaches Hadir and is applied; the relay dies before it hears the answer.
      fetch: async (input, init) => {
        const answer = await fetch(input, init);
        if (++calls === 2) throw new TypeError('fetch failed: the relay was killed');
        return answer;
      },
      maxTries: 1,
    });
    expect((await drainOnce(source, dying, OPTIONS)).sent).toBe(100);
    await expect(drainOnce(source, dying, OPTIONS)).rejects.toThrow('the relay was killed');
    expect(await left()).toBe(150);
    const before = await batchesApplied();
    const healthy = new IngestClient({ baseUrl, token });
    const again = await drainOnce(source, healthy, OPTIONS);
    expect(again).toEqual({ sent: 100, replayed: true, rejected: 0, refusals: [] });
    expect(await batchesApplied()).toBe(before);
    expect((await drainOnce(source, healthy, OPTIONS)).sent).toBe(50);
    expect(await left()).toBe(0);
    const stored = await names();
    expect(stored.size).toBe(250);
    expect(stored.get('p249')).toBe('Tamu 249 v1');
  });

  it('sends the newest change of each RSVP among the rows it holds, and deletes them all', async () => {
    await enqueue([
      change(400, 1),
      change(401, 1),
      change(400, 2),
      { type: 'deletion', respondentId: 'p401', version: 2 },
      change(400, 3),
    ]);
    const drained = await drainOnce(source, new IngestClient({ baseUrl, token }), OPTIONS);
    expect(drained).toEqual({ sent: 5, replayed: false, rejected: 0, refusals: [] });
    const stored = await names();
    expect(stored.get('p400')).toBe('Tamu 400 v3');
    expect(stored.has('p401')).toBe(false);
    expect(await left()).toBe(0);
  });

  it("tells Hadir when the platform committed the batch's oldest change, for its delay metric", async () => {
    // The outbox's times on Hadir's clock: 3 s and 1 s before Hadir commits the batch.
    for (const [n, before] of [
      [500, 3_000],
      [501, 1_000],
    ] as const) {
      await source.query('INSERT INTO hadir_outbox (record, created_at) VALUES ($1, $2)', [
        JSON.stringify(change(n, 1)),
        new Date(t.clock.now() - before).toISOString(),
      ]);
    }
    const delay = async () => (await metrics.ingestDelay.get()).values;
    const count = async () =>
      (await delay()).find((value) => value.metricName === 'hadir_ingest_delay_seconds_count')
        ?.value ?? 0;
    const before = await count();
    await drainOnce(source, new IngestClient({ baseUrl, token }), OPTIONS);
    expect(await count()).toBe(before + 1);
    const sum = (await delay()).find(
      (value) => value.metricName === 'hadir_ingest_delay_seconds_sum',
    );
    expect(sum?.value).toBeGreaterThanOrEqual(3);
    const upserted = (await metrics.ingestRecords.get()).values.find(
      (value) => value.labels.result === 'upserted',
    );
    expect(upserted?.value).toBeGreaterThanOrEqual(2);
  });

  it('takes the outbox in the order of its ids, past a power of ten', async () => {
    // An edit at row 99 and the deletion of the same RSVP at row 100: the deletion is the last.
    await source.query("SELECT setval('hadir_outbox_id_seq', 98)");
    await enqueue([change(500, 5), { type: 'deletion', respondentId: 'p500', version: 6 }]);
    const drained = await drainOnce(source, new IngestClient({ baseUrl, token }), OPTIONS);
    expect(drained.sent).toBe(2);
    expect((await names()).has('p500')).toBe(false);
  });

  it('sends a batch again through server errors and an outage, and never stops for them', async () => {
    await enqueue([change(600, 1)]);
    const waits: number[] = [];
    let calls = 0;
    const failing = (answers: number) =>
      new IngestClient({
        baseUrl,
        token,
        sleep: async (ms) => {
          waits.push(ms);
        },
        maxTries: 3,
        fetch: async (input, init) =>
          ++calls <= answers
            ? new Response(JSON.stringify({ error: { code: 'internal', message: 'boom' } }), {
                status: calls % 2 ? 500 : 503,
                headers: calls % 2 ? {} : { 'retry-after': '2' },
              })
            : fetch(input, init),
      });
    // Through every try: the relay is told Hadir is away (and backs off), never that it must stop.
    const error = await drainOnce(source, failing(3), OPTIONS).catch((thrown) => thrown);
    expect(error).toBeInstanceOf(IngestUnavailable);
    expect(error).not.toBeInstanceOf(RelayStopped);
    expect(await left()).toBe(1);
    calls = 0;
    waits.length = 0;
    expect((await drainOnce(source, failing(2), OPTIONS)).sent).toBe(1);
    expect(waits).toEqual([250, 2_000]);
    expect((await names()).get('p600')).toBe('Tamu 600 v1');
    expect(await left()).toBe(0);
  });

  it('moves each record Hadir refuses to the rejected table, with its own problem, and sends the rest', async () => {
    await enqueue([
      change(300, 1),
      { type: 'respondent', id: 'p301', campaignId: 'platform' },
      { ...change(302, 1), campaignId: 'tidak-ada' },
    ]);
    const drained = await drainOnce(source, new IngestClient({ baseUrl, token }), OPTIONS);
    expect(drained).toMatchObject({ sent: 1, replayed: false, rejected: 2 });
    expect(drained.refusals.map((refusal) => refusal.problem)).toEqual([
      expect.stringMatching(/^line 2 \(id p301\): /),
      'line 3 (id p302): campaign tidak-ada does not exist',
    ]);
    const { rows } = await source.query(
      "SELECT record->>'id' AS id, problem FROM hadir_outbox_rejected ORDER BY id",
    );
    expect(rows.map((row) => row.id)).toEqual(['p301', 'p302']);
    expect(rows[0].problem).toMatch(/^line 2 \(id p301\): /);
    expect(rows[0].problem).not.toContain('p302');
    expect(rows[1].problem).toBe('line 3 (id p302): campaign tidak-ada does not exist');
    expect((await names()).get('p300')).toBe('Tamu 300 v1');
  });

  it('refuses a record it cannot serialise, by its row id, and sends the rows behind it', async () => {
    await enqueue([change(700, 1)]);
    // Nested 5,000 deep: PostgreSQL keeps it, JSON.stringify cannot write it.
    await source.query(
      `INSERT INTO hadir_outbox (record) VALUES (('{"type":"respondent","id":"p701","answers":' || repeat('[', 5000) || repeat(']', 5000) || '}')::jsonb)`,
    );
    await enqueue([change(702, 1)]);
    const lines: string[] = [];
    const stop = new AbortController();
    const relay = runRelay(
      new IngestClient({ baseUrl, token }),
      { ...OPTIONS, sourceUrl: source.options.connectionString as string, pollMs: 20 },
      stop.signal,
      (line) => lines.push(line),
    );
    try {
      await until(async () => (await left()) === 0, 'the outbox to drain');
    } finally {
      stop.abort();
      await relay;
    }
    expect((await names()).get('p702')).toBe('Tamu 702 v1');
    const { rows } = await source.query(
      "SELECT id::text AS id, record->>'id' AS record_id, problem FROM hadir_outbox_rejected WHERE record->>'id' = 'p701'",
    );
    expect(rows[0]?.problem).toMatch(/^cannot be sent as JSON: Maximum call stack size exceeded/);
    expect(lines).toContain(`refused outbox row ${rows[0]?.id}: ${rows[0]?.problem}`);
    expect(lines.some((line) => line.includes('trying again'))).toBe(false);
  });

  it('stops on a revoked token, naming how to get a new one', async () => {
    const revoked = await createIngestToken(t.store, t.clock, 'old relay', 'operator');
    await revokeIngestToken(t.store, t.clock, revoked.id, 'operator');
    await enqueue([change(800, 1)]);
    const error = await drainOnce(
      source,
      new IngestClient({ baseUrl, token: revoked.token }),
      OPTIONS,
    ).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(RelayStopped);
    expect((error as Error).message).toMatch(
      /^Hadir refused the ingest token \(401: .+\): .*ingest-tokens create --name relay, set it as HADIR_INGEST_TOKEN, and start hadir-relay again$/,
    );
    await drainOnce(source, new IngestClient({ baseUrl, token }), OPTIONS);
  });

  it('names the cause and the address when Hadir cannot be reached', async () => {
    const reasons: string[] = [];
    // A port nothing listens on.
    const port = await freePort();
    const at = `http://127.0.0.1:${port}`;
    const client = new IngestClient({
      baseUrl: at,
      token,
      maxTries: 2,
      sleep: async () => {},
      onRetry: (event) => reasons.push(event.reason),
    });
    const said = `cannot reach Hadir at ${at}: connection refused (ECONNREFUSED at 127.0.0.1:${port})`;
    await expect(client.send([change(900, 1)], 'unreachable')).rejects.toThrow(said);
    expect(reasons).toEqual([said]);
  });

  it('runs as several relays at once: nothing lost, none applied twice, and the newest version wins', async () => {
    // Edits of the same guests spread over many batches: versions keep the newest.
    await enqueue(Array.from({ length: 600 }, (_, n) => change(n % 200, 2 + Math.floor(n / 200))));
    const stop = new AbortController();
    const relays = [0, 1, 2].map(() =>
      runRelay(
        new IngestClient({ baseUrl, token }),
        { ...OPTIONS, sourceUrl: source.options.connectionString as string, pollMs: 20 },
        stop.signal,
        () => {},
      ),
    );
    try {
      await until(async () => (await left()) === 0, 'the outbox to drain');
    } finally {
      stop.abort();
      await Promise.all(relays);
    }
    const stored = await names();
    for (let n = 0; n < 200; n++) expect(stored.get(`p${n}`)).toBe(`Tamu ${n} v4`);
    const kept = await t.store.db.selectFrom('ingest_batches').select('token_id').execute();
    expect(await batchesApplied()).toBe(kept.length);
  });
});
