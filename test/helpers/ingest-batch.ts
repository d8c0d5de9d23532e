import type { FastifyInstance } from 'fastify';

export const BATCHES = '/ingest/v1/batches';

/** A respondent record of campaign `nikah`, as the platform's outbox sends it. */
export const ingestRecord = (id: string, nama: string, extra: Record<string, unknown> = {}) => ({
  type: 'respondent',
  id,
  campaignId: 'nikah',
  submittedAt: '2026-11-20T10:00:00Z',
  attendanceStatus: 'YES',
  answers: { nama },
  ...extra,
});

/** Records as a batch's body: JSON Lines. */
export const jsonLines = (...records: unknown[]) =>
  records.map((record) => JSON.stringify(record)).join('\n');

/** A batch as a relay sends it, injected: the token, the key, JSON Lines; `extra` headers. */
export const injectBatch = (
  app: FastifyInstance,
  batch: { token: string; key: string; body: string; extra?: Record<string, string> },
  from?: string,
) =>
  app.inject({
    method: 'POST',
    url: BATCHES,
    ...(from ? { remoteAddress: from } : {}),
    headers: {
      authorization: `Bearer ${batch.token}`,
      'content-type': 'application/x-ndjson',
      'idempotency-key': batch.key,
      ...batch.extra,
    },
    payload: batch.body,
  });

/** One batch to a listening server's ingest API, as the relay sends it: JSON Lines, keyed once. */
export function postBatch(
  base: string,
  token: string,
  idempotencyKey: string,
  records: readonly unknown[],
): Promise<Response> {
  return fetch(`${base}/ingest/v1/batches`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/x-ndjson',
      'idempotency-key': idempotencyKey,
    },
    body: `${records.map((record) => JSON.stringify(record)).join('\n')}\n`,
  });
}
