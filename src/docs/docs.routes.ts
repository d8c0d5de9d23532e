import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Artifact, buildReference, type Reference } from './reference.ts';

const CACHE_CONTROL = 'public, max-age=300';

function serve(request: FastifyRequest, reply: FastifyReply, artifact: Artifact) {
  reply.header('etag', artifact.etag).header('cache-control', CACHE_CONTROL);
  if (request.headers['if-none-match'] === artifact.etag) return reply.code(304).send();
  return reply.type(artifact.contentType).send(artifact.body);
}

/**
 * The four self-describing endpoints of spec, "What the service does" 7. They need no key: they
 * describe the API and reveal no data. Built once, on first use, from the generated document.
 */
export function registerReferenceRoutes(app: FastifyInstance, prefix: string): void {
  let reference: Reference | undefined;
  const built = () => {
    reference ??= buildReference(app.swagger());
    return reference;
  };
  const hidden = { schema: { hide: true } };
  app.get(`${prefix}/openapi.json`, hidden, (request, reply) =>
    serve(request, reply, built().openapi),
  );
  app.get(`${prefix}/llms.txt`, hidden, (request, reply) => serve(request, reply, built().llms));
  app.get(`${prefix}/skill.zip`, hidden, (request, reply) => {
    reply.header('content-disposition', 'attachment; filename="hadir-rsvp-api-skill.zip"');
    return serve(request, reply, built().skill);
  });
  app.get(`${prefix}/docs`, hidden, (request, reply) => {
    reply.header('vary', 'Accept');
    return serve(request, reply, built().docs);
  });
}
