import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** One served file: its bytes, type and strong ETag, built once per process. */
export interface Artifact {
  body: Buffer;
  contentType: string;
  etag: string;
}

export function artifact(body: Buffer | string, contentType: string): Artifact {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return {
    body: bytes,
    contentType,
    etag: `"${createHash('sha256').update(bytes).digest('base64url')}"`,
  };
}

/** Answers with the artifact, or 304 when the client holds these bytes already. */
export function serveArtifact(
  request: FastifyRequest,
  reply: FastifyReply,
  served: Artifact,
  cacheControl: string,
) {
  reply.header('etag', served.etag).header('cache-control', cacheControl);
  if (request.headers['if-none-match'] === served.etag) return reply.code(304).send();
  return reply.type(served.contentType).send(served.body);
}
