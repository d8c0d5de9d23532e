import type { FastifyReply, FastifyRequest } from 'fastify';
import { chooseCoding, codedEtag, compressedBody } from './compression.ts';
import type { CachedResponse } from './response-cache.ts';

/** A GET that says which representation the client already holds. */
export function isConditional(request: FastifyRequest): boolean {
  return request.headers['if-none-match'] !== undefined;
}

/**
 * RFC 9110 13.1.2: If-None-Match compares weakly, and `*` matches any current representation.
 * A tag of any coding of these bytes matches: a client that changed its Accept-Encoding still
 * holds the same data.
 */
export function noneMatchHolds(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const tags = new Set([etag, codedEtag(etag, 'br'), codedEtag(etag, 'gzip')]);
  for (const candidate of header.split(',')) {
    const tag = candidate.trim();
    if (tag === '*' || tags.has(tag.startsWith('W/') ? tag.slice(2) : tag)) return true;
  }
  return false;
}

/**
 * Sends a data response with its strong ETag, or 304 with no body when the client holds these
 * bytes already; compressed when the client asks (brotli or gzip), the coding's bytes kept with
 * the answer. A full response to a conditional request is charged to the rate limit here.
 */
export async function sendTagged(
  request: FastifyRequest,
  reply: FastifyReply,
  response: CachedResponse,
): Promise<FastifyReply> {
  // Personal data: only the client's own store may keep it, and must revalidate before reuse.
  reply.header('cache-control', 'private, no-cache');
  reply.header('vary', 'Accept-Encoding');
  const coding = chooseCoding(request.headers['accept-encoding'], response.body.length);
  reply.header('etag', codedEtag(response.etag, coding));
  if (noneMatchHolds(request.headers['if-none-match'], response.etag)) {
    return reply.code(304).send();
  }
  await request.chargeRateLimit?.();
  reply.type('application/json; charset=utf-8');
  if (coding === undefined) return reply.send(response.body);
  const body = await compressedBody(response, coding);
  return reply.header('content-encoding', coding).send(body);
}
