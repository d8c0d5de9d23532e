import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * One JSON line per data request: who (key, account), what (campaign, the field keys served, the
 * row count) and how it ended. Never a value, a key or a token.
 */
export async function logDataAccess(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const verification = request.keyVerification;
  const key = verification?.kind === 'valid' ? verification.key : undefined;
  const record = request.accessRecord;
  request.log.info(
    {
      keyId: key?.id ?? null,
      accountId: key?.accountId ?? null,
      authFailure: verification && verification.kind !== 'valid' ? verification.kind : undefined,
      method: request.method,
      route: request.routeOptions.url,
      campaignId: record?.campaignId ?? null,
      fieldKeys: record?.fieldKeys ?? [],
      rows: record?.rows ?? 0,
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 100) / 100,
    },
    'data access',
  );
}
