import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';

/** Status 499 (the nginx convention): the client closed the connection before its answer. */
export const CLIENT_CLOSED_REQUEST = 499;

/**
 * One JSON line per data request on `logger`: who (key, account, the client's address), what
 * (campaign, the field keys served, the row count) and how it ended. Never a value, a key or a token: only the fields
 * below, which is why the access logger may skip redaction (see logger.ts).
 */
export function accessLog(logger: FastifyBaseLogger) {
  function writeAccessLine(
    request: FastifyRequest,
    status: number,
    elapsedMs: number | undefined,
  ): void {
    const verification = request.keyVerification;
    const key = verification?.kind === 'valid' ? verification.key : undefined;
    const record = request.accessRecord;
    logger.info(
      {
        requestId: request.id,
        keyId: key?.id ?? null,
        accountId: key?.accountId ?? null,
        authFailure: verification && verification.kind !== 'valid' ? verification.kind : undefined,
        // The client's own address: behind a proxy named in TRUST_PROXY, the one it reports.
        clientAddress: request.ip,
        method: request.method,
        route: request.routeOptions.url,
        campaignId: record?.campaignId ?? null,
        fieldKeys: record?.fieldKeys ?? [],
        rows: record?.rows ?? 0,
        status,
        // Only with DATABASE_READ_URL: whether the replica answered (see ReplicaChoice).
        ...(record?.fromReplica ? { readFrom: 'replica' } : {}),
        durationMs: elapsedMs === undefined ? null : Math.round(elapsedMs * 100) / 100,
      },
      'data access',
    );
  }

  return {
    async onResponse(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      writeAccessLine(request, reply.statusCode, reply.elapsedTime);
    },
    async onRequestAbort(request: FastifyRequest): Promise<void> {
      request.clientGone = true;
      // Fastify passes no reply to this hook, and with it no elapsed time.
      writeAccessLine(request, CLIENT_CLOSED_REQUEST, undefined);
    },
  };
}
