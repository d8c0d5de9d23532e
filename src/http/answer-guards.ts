import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.ts';
import { answerHeaders } from './errors.ts';

/**
 * What every request passes before its route: the headers every answer carries, and the requests
 * refused whatever they ask for. While shutting down, in-flight answers close their connection, so
 * no idle keep-alive socket holds the process open after the last request, and requests still
 * arriving are turned away.
 */
export function registerAnswerGuards(
  app: FastifyInstance,
  options: { requireForwardedHttps: boolean },
): void {
  let closing = false;
  app.addHook('onRequest', async (request, reply) => {
    const overHttps = request.protocol === 'https';
    reply.headers(answerHeaders(request.id, overHttps));
    // RFC 9112 3.2: an HTTP/1.1 request without Host is a 400.
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      throw new ApiError('bad_request', 'an HTTP/1.1 request needs a Host header');
    }
    // Never a redirect: by now the key or password has already crossed the network in the clear.
    if (
      options.requireForwardedHttps &&
      !overHttps &&
      (request.url.startsWith('/developer/') || request.url.startsWith('/ingest/'))
    ) {
      throw new ApiError(
        'https_required',
        'this service answers over HTTPS only: send the request to its https:// address, and treat any key or password already sent over plain HTTP as exposed',
      );
    }
    if (closing) {
      throw new ApiError('service_unavailable', 'the server is shutting down; retry', {
        'retry-after': '1',
      });
    }
  });
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
}
