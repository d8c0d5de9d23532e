import {
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { tracer } from './tracer.ts';

/**
 * A span for each request, named by its method and route pattern (never its URL: a path holds a
 * campaign's id, a query a filter's values), continuing a `traceparent` the caller sent, and
 * active while the request is answered, so that the store's spans and the others nest under it.
 */
export function registerRequestSpans(app: FastifyInstance): void {
  const spans = new WeakMap<FastifyRequest, Span>();
  app.addHook('onRequest', (request, _reply, done) => {
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const route = request.routeOptions.url ?? 'unmatched';
    const span = tracer().startSpan(
      `${request.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': request.method, 'http.route': route },
      },
      parent,
    );
    spans.set(request, span);
    // The rest of the request runs inside the span's context (AsyncLocalStorage follows it).
    context.with(trace.setSpan(parent, span), done);
  });
  const end = (request: FastifyRequest, status: number) => {
    const span = spans.get(request);
    if (!span) return;
    spans.delete(request);
    span.setAttribute('http.response.status_code', status);
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
  app.addHook('onResponse', async (request, reply) => end(request, reply.statusCode));
  app.addHook('onRequestAbort', async (request) => end(request, 499));
}
