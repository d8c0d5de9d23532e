import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Artifact, artifact, serveArtifact } from '../http/artifacts.ts';
import { DOCS_INIT_SCRIPT, DOCS_PAGE_CSP, prefersHtml, redocBundle } from './docs-page.ts';
import { buildReference, type Reference } from './reference.ts';

const CACHE_CONTROL = 'public, max-age=300';

function serve(request: FastifyRequest, reply: FastifyReply, served: Artifact) {
  return serveArtifact(request, reply, served, CACHE_CONTROL);
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
  // The root names where everything is, rather than a bare 404.
  app.get('/', hidden, async () => ({
    name: 'Hadir',
    description: 'Read-only access to RSVP campaign data for approved third parties.',
    links: {
      docs: `${prefix}/docs`,
      openapi: `${prefix}/openapi.json`,
      llms: `${prefix}/llms.txt`,
      portal: '/developer/portal',
    },
  }));
  app.get(`${prefix}/llms.txt`, hidden, (request, reply) => serve(request, reply, built().llms));
  app.get(`${prefix}/skill.zip`, hidden, (request, reply) => {
    reply.header('content-disposition', 'attachment; filename="hadir-rsvp-api-skill.zip"');
    return serve(request, reply, built().skill);
  });
  // One page for people and one document for programs, at one address (spec: JSON by default).
  app.get(`${prefix}/docs`, hidden, (request, reply) => {
    reply.header('vary', 'Accept');
    if (!prefersHtml(request.headers.accept)) return serve(request, reply, built().docs);
    reply.header('content-security-policy', DOCS_PAGE_CSP);
    return serve(request, reply, built().docsPage);
  });
  let assets: { redoc: Artifact; init: Artifact } | undefined;
  const asset = () => {
    assets ??= {
      redoc: artifact(redocBundle(), 'text/javascript; charset=utf-8'),
      init: artifact(DOCS_INIT_SCRIPT, 'text/javascript; charset=utf-8'),
    };
    return assets;
  };
  app.get(`${prefix}/docs/redoc.standalone.js`, hidden, (request, reply) =>
    serve(request, reply, asset().redoc),
  );
  app.get(`${prefix}/docs/init.js`, hidden, (request, reply) =>
    serve(request, reply, asset().init),
  );
}
