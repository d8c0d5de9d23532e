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
