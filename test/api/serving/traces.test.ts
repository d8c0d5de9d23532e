import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainOnce, IngestClient } from '../../../packages/relay/src/index.ts';
import { startTracing as startRelayTracing } from '../../../packages/relay/src/tracing.ts';
import { systemClock } from '../../../src/clock.ts';
import type { Store } from '../../../src/db/connect.ts';
import { createIngestToken } from '../../../src/ingest/ingest-tokens.service.ts';
import { exitOf, startHadir } from '../../helpers/cli.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';
import { BATCHES, jsonLines } from '../../helpers/ingest-batch.ts';
import {
  createEmptyPostgresUrl,
  createTestDatabaseUrl,
  openTestStore,
} from '../../helpers/stores.ts';
import { until } from '../../helpers/until.ts';

/** Values no span may carry: a guest's name, email and phone, a respondent's id. */
const MARKERS = {
  name: 'Zulaikha Markerwati',
  email: 'zulaikha.marker@example.test',
  phone: '+6281299887766',
  respondent: 'resp-marker-7q',
  batchName: 'Batchmarker Suryadi',
  batchRespondent: 'resp-batch-marker-7q',
};
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

/** The spans of OTLP/JSON export bodies, flattened. */
function spansOf(bodies: string[]) {
  return bodies.flatMap((body) =>
    (
      JSON.parse(body) as {
        resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<Record<string, string>> }> }>;
      }
    ).resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)),
  ) as Array<{ name: string; traceId: string; spanId: string; parentSpanId?: string }>;
}

describe('traces (OpenTelemetry) from a serve process to an OTLP receiver', () => {
  let databaseUrl: string;
  let store: Store;
  let receiver: Server;
  const received: string[] = [];
  let apiKey: string;
  let token: string;

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        if (request.url === '/v1/traces') received.push(body);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    databaseUrl = await createTestDatabaseUrl('sqlite');
    store = await openTestStore(databaseUrl);
    await seedCampaign(store, systemClock, {
      id: 'nikah',
      fields: [
        { key: 'nama', type: 'TEXT' },
        { key: 'email', type: 'EMAIL' },
        { key: 'telepon', type: 'PHONE' },
      ],
      respondents: [
        {
          id: MARKERS.respondent,
          submittedAt: '2026-11-01T00:00:00Z',
          answers: { nama: MARKERS.name, email: MARKERS.email, telepon: MARKERS.phone },
        },
      ],
    });
    apiKey = (
      await createTestKey(store, systemClock, [
        { campaignId: 'nikah', fields: ['nama', 'email', 'telepon'] },
      ])
    ).key;
    token = (await createIngestToken(store, systemClock, 'relay', 'operator')).token;
  });
  afterAll(async () => {
    receiver?.close();
    await store?.close();
  });

  it('sends spans of requests, statements and batches, continuing a traceparent, with no personal data', async () => {
    const server = await startHadir(['serve', '--port', '0', '--json'], {
      databaseUrl,
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
      ready: /"url":"(http:\/\/[^"]+)"/,
    });
    try {
      const base = server.match[1] as string;
      const data = (path: string, headers: Record<string, string> = {}) =>
        fetch(`${base}/developer/v1${path}`, {
          headers: { authorization: `Bearer ${apiKey}`, ...headers },
        });
      // A filter on the name, from a caller that is itself traced.
      const filtered = await data(
        `/campaigns/nikah/respondents?answers%5Bnama%5D=${encodeURIComponent(MARKERS.name)}`,
        { traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` },
      );
      expect(filtered.status).toBe(200);
      expect(await filtered.text()).toContain(MARKERS.email);
      expect((await data(`/campaigns/nikah/respondents?since=2026-01-01T00:00:00Z`)).status).toBe(
        200,
      );
      // A sign-in with a guest's address, and an ingest batch holding another guest.
      await fetch(`${base}/developer/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: MARKERS.email, password: 'not-the-password-at-all' }),
      });
      const batch = await fetch(`${base}${BATCHES}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/x-ndjson',
          'idempotency-key': 'traced-batch-1',
        },
        body: jsonLines({
          type: 'respondent',
          id: MARKERS.batchRespondent,
          campaignId: 'nikah',
          submittedAt: '2026-11-20T10:00:00Z',
          attendanceStatus: 'YES',
          answers: { nama: MARKERS.batchName },
        }),
      });
      expect(batch.status).toBe(200);

      const everything = () => received.join('\n');
      await until(
        () => everything().includes(TRACE_ID) && everything().includes('"ingest batch"'),
        'the spans of the requests and the batch',
      );
      const spans = spansOf(received);
      const names = new Set(spans.map((span) => span.name));
      expect(names).toContain('GET /developer/v1/campaigns/:id/respondents');
      expect(names).toContain('POST /ingest/v1/batches');
      expect(names).toContain('ingest batch');
      expect([...names].some((name) => /^SELECT [a-z_]+$/.test(name))).toBe(true);
      // Statements are traced beneath what they serve; the workers' polling makes no span.
      const statements = spans.filter((span) =>
        /^(SELECT|INSERT|UPDATE|DELETE|SQL)\b/.test(span.name),
      );
      expect(statements.every((span) => Boolean(span.parentSpanId))).toBe(true);
      // The caller's trace goes on: the request's span and its statements share its trace id.
      const continued = spans.filter((span) => span.traceId === TRACE_ID);
      expect(continued.length).toBeGreaterThan(1);

      const text = everything();
      for (const marker of [...Object.values(MARKERS), apiKey, token, 'hadir_sk_', 'hadir_it_']) {
        expect(text, `a span carries ${marker}`).not.toContain(marker);
      }
      expect(text).not.toContain('Markerwati');
      expect(text).not.toContain('answers');

      // hadir-relay's batch and Hadir's ingest of it are one trace.
      const source = new pg.Pool({ connectionString: await createEmptyPostgresUrl(), max: 2 });
      const relayTracing = await startRelayTracing({
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      });
      try {
        await source.query(
          'CREATE TABLE hadir_outbox (id bigserial PRIMARY KEY, record jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now()); CREATE TABLE hadir_outbox_rejected (id bigint PRIMARY KEY, record jsonb NOT NULL, created_at timestamptz NOT NULL, problem text NOT NULL, rejected_at timestamptz NOT NULL DEFAULT now())',
        );
        await source.query('INSERT INTO hadir_outbox (record) VALUES ($1)', [
          JSON.stringify({
            type: 'respondent',
            id: 'relayed-1',
            campaignId: 'nikah',
            submittedAt: '2026-11-21T10:00:00Z',
            attendanceStatus: 'YES',
            answers: { nama: MARKERS.batchName },
          }),
        ]);
        const drained = await drainOnce(source, new IngestClient({ baseUrl: base, token }), {
          table: 'hadir_outbox',
          rejectedTable: 'hadir_outbox_rejected',
          batchSize: 10,
        });
        expect(drained.sent).toBe(1);
        await relayTracing?.shutdown();
        let relayed: { relay?: (typeof spans)[number]; ingest?: (typeof spans)[number] } = {};
        await until(() => {
          const all = spansOf(received);
          const relay = all.find((span) => span.name === 'relay batch');
          const ingest = all.find(
            (span) =>
              span.name === 'POST /ingest/v1/batches' && relay && span.traceId === relay.traceId,
          );
          relayed = { relay, ingest };
          return Boolean(relay && ingest);
        }, 'the relay batch and its ingest in one trace');
        expect(relayed.ingest?.parentSpanId).toBe(relayed.relay?.spanId);
        expect(received.join('\n')).not.toContain(MARKERS.batchName);
      } finally {
        await relayTracing?.shutdown().catch(() => {});
        await source.end();
      }
    } finally {
      server.child.kill('SIGTERM');
      await exitOf(server.child);
    }
  });
});
