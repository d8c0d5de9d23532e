import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CachedResponse } from './response-cache.ts';

/** A GET that says which representation the client already holds. */
export function isConditional(request: FastifyRequest): boolean {
  return request.headers['if-none-match'] !== undefined;
}

/** RFC 9110 13.1.2: If-None-Match compares weakly, and `*` matches any current representation. */
export function noneMatchHolds(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  for (const candidate of header.split(',')) {
    const tag = candidate.trim();
    if (tag === '*' || tag === etag || tag === `W/${etag}`) return true;
  }
  return false;
}

/**
 * Sends a data response with its strong ETag, or 304 with no body when the client holds these
 * bytes already. A full response to a conditional request is charged to the rate limit here.
 */
export async function sendTagged(
  request: FastifyRequest,
  reply: FastifyReply,
  response: CachedResponse,
): Promise<FastifyReply> {
  // Personal data: only the client's own store may keep it, and must revalidate before reuse.
  reply.header('cache-control', 'private, no-cache');
  reply.header('etag', response.etag);
  if (noneMatchHolds(request.headers['if-none-match'], response.etag)) {
    return reply.code(304).send();
  }
  await request.chargeRateLimit?.();
  return reply.type('application/json; charset=utf-8').send(response.body);
}
