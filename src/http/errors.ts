import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isStoreFull, isStoreUnavailable } from '../db/store-errors.ts';
import type { StoreOutage } from '../db/store-outage.ts';
import { ApiError, type ErrorCode, errorBody, statusOf } from '../errors.ts';
import { throttledLog } from '../throttled-log.ts';
import { CLIENT_CLOSED_REQUEST } from './access-log.ts';
import { RequestAbandoned } from './overload.ts';

/** Seconds a client should wait before retrying while the store is unreachable. */
export const STORE_RETRY_AFTER_SECONDS = 5;

/** Seconds a client should wait before retrying a write while the store's disk is full. */
export const STORE_FULL_RETRY_AFTER_SECONDS = 60;

interface ValidationIssue {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

const CONTEXT_NOUN: Record<string, string> = {
  querystring: 'query parameter',
  params: 'path parameter',
  body: 'field',
  headers: 'header',
};

/** A validation failure in words that name the parameter, e.g. "query parameter 'limit' must be at most 200". */
export function describeValidation(issue: ValidationIssue, context: string | undefined): string {
  const noun = CONTEXT_NOUN[context ?? ''] ?? 'parameter';
  const path = issue.instancePath.replace(/^\//, '').replaceAll('/', '.');
  const name = `${noun} '${path}'`;
  switch (issue.keyword) {
    case 'additionalProperties':
      return `unknown ${noun} '${String(issue.params.additionalProperty)}'`;
    case 'required':
      return `${noun} '${String(issue.params.missingProperty)}' is required`;
    case 'minimum':
      return `${name} must be at least ${String(issue.params.limit)}`;
    case 'maximum':
      return `${name} must be at most ${String(issue.params.limit)}`;
    case 'type':
      return issue.params.type === 'integer'
        ? `${name} must be a whole number`
        : `${name} must be of type ${String(issue.params.type)}`;
    case 'format':
      return issue.params.format === 'date-time'
        ? `${name} must be an ISO-8601 date-time with Z or an offset, e.g. 2026-11-22T08:00:00Z`
        : `${name} must be a valid ${String(issue.params.format)}`;
    case 'pattern':
      return `${name} has the wrong format`;
    case 'minLength':
      return `${name} must not be empty`;
    case 'maxLength':
      return `${name} must be at most ${String(issue.params.limit)} characters`;
    case 'maxItems':
      return `${name} may be given at most ${String(issue.params.limit)} times`;
    default:
      return `${name} ${issue.message ?? 'is invalid'}`;
  }
}

/** Fastify's own 4xx errors (bad body, wrong content type, …) in the service's vocabulary. */
function codeForClientError(status: number): ErrorCode {
  switch (status) {
    case 404:
      return 'not_found';
    case 405:
      return 'method_not_allowed';
    case 413:
      return 'payload_too_large';
    case 415:
      return 'unsupported_media_type';
    case 429:
      return 'rate_limited';
    default:
      return 'invalid_parameter';
  }
}

/** The longest path a 404 names back: enough to recognise, never a whole hostile URL. */
const MAX_ECHOED_PATH = 120;

/** A year: browsers that saw an HTTPS answer use nothing but HTTPS here, and below, for that long. */
const HSTS = 'max-age=31536000; includeSubDomains';

/**
 * Headers every answer carries, whichever part of the service wrote it; an answer that went out
 * over HTTPS (here, or from the proxy in front) also tells browsers to use nothing else.
 */
export function answerHeaders(requestId: string, overHttps: boolean): Record<string, string> {
  return {
    'x-request-id': requestId,
    // Data responses relax this to private revalidation once they carry an ETag.
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...(overHttps ? { 'strict-transport-security': HSTS } : {}),
  };
}

/**
 * Fastify's router errors (a path parameter over `maxParamLength`, a path that is not valid
 * percent-encoded UTF-8), which it answers before any hook runs: enveloped here instead.
 */
export function answerFrameworkError(
  maxParamLength: number,
): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void {
  return (error, request, reply) => {
    reply.headers(answerHeaders(request.id, request.protocol === 'https'));
    switch (error.code) {
      case 'FST_ERR_MAX_PARAM_LENGTH':
        reply
          .code(400)
          .send(
            errorBody(
              'invalid_parameter',
              `a path parameter is longer than ${maxParamLength} characters`,
            ),
          );
        return;
      case 'FST_ERR_BAD_URL':
        reply
          .code(400)
          .send(errorBody('invalid_parameter', 'the path is not valid percent-encoded UTF-8'));
        return;
      default:
        request.log.error({ err: error }, 'request could not be routed');
        reply.code(500).send(errorBody('internal_error', 'an unexpected error occurred'));
    }
  };
}

/** What a request that is not valid HTTP/1.1 gets (Node's parser codes, see llhttp). */
function describeClientError(error: NodeJS.ErrnoException): { code: ErrorCode; message: string } {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'request_timeout', message: 'the request did not arrive in time' };
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'headers_too_large', message: 'the request line and headers are too large' };
    case 'HPE_INVALID_METHOD':
      return { code: 'bad_request', message: 'the request method is not valid' };
    case 'HPE_INVALID_URL':
      return {
        code: 'bad_request',
        message: 'the request target is not valid: percent-encode characters outside ASCII',
      };
    case 'HPE_INVALID_HEADER_TOKEN':
      return {
        code: 'bad_request',
        message: 'a header name or value holds a character HTTP does not allow',
      };
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_INVALID_CONTENT_LENGTH':
      return {
        code: 'bad_request',
        message: 'the message framing is ambiguous or invalid (Content-Length, Transfer-Encoding)',
      };
    default:
      return {
        code: 'bad_request',
        message: `the request is not valid HTTP/1.1 (${error.code ?? 'unreadable'})`,
      };
  }
}

/**
 * Node's HTTP parser rejects a request before Fastify sees it (bad bytes, a NUL in a header,
 * ambiguous framing, oversized headers, a slow client timing out). The answer is still the
 * envelope, with a request id of its own, and the connection is closed: after a framing error
 * nothing more on it can be trusted.
 */
export function answerClientError(
  this: FastifyInstance,
  error: NodeJS.ErrnoException,
  socket: Socket,
): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // A response already under way on this connection cannot be followed by another.
  const current = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !current?.headersSent) {
    const { code, message } = describeClientError(error);
    const status = statusOf(code);
    const body = JSON.stringify(errorBody(code, message));
    const requestId = randomUUID();
    const headers = {
      ...answerHeaders(requestId, (socket as TLSSocket).encrypted === true),
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
      connection: 'close',
    };
    const head = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${head}\r\n${body}`);
    this.log.debug({ requestId, code: error.code }, 'request rejected by the HTTP parser');
  }
  socket.destroy();
}

/**
 * One place that turns any failure into the envelope `{ error: { code, message } }`. Server-side
 * failures get a generic message; their detail goes to the log with the request id.
 */
export function registerErrorHandling(app: FastifyInstance, outage: StoreOutage): void {
  // A full disk fails every write until someone frees space: said once a minute, not per request.
  let fullCause: unknown;
  const warnFull = throttledLog(60_000, (heldBack) =>
    app.log.warn(
      { cause: String((fullCause as Error)?.message ?? fullCause), heldBack },
      'the data store cannot write (its disk is full); writes get 503 until space is freed',
    ),
  );
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const shown = path.length > MAX_ECHOED_PATH ? `${path.slice(0, MAX_ECHOED_PATH)}…` : path;
    reply.code(404).send(errorBody('not_found', `no route for ${request.method} ${shown}`));
  });

  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    // Nobody is listening: the client left before its answer (a data request's abort is also
    // in the access log, as 499). Whatever error that surfaced as (Node reports a body cut off
    // midway as ECONNRESET), it says nothing about the store.
    if (error instanceof RequestAbandoned || request.raw.socket?.destroyed) {
      request.log.info('the client closed the connection before its answer; nothing was sent');
      reply.code(CLIENT_CLOSED_REQUEST).send();
      return;
    }
    if (error instanceof ApiError) {
      reply.headers(error.headers).code(error.status).send(errorBody(error.code, error.message));
      return;
    }
    const issue = (error as FastifyError).validation?.[0] as ValidationIssue | undefined;
    if (issue) {
      const message = describeValidation(issue, (error as FastifyError).validationContext);
      reply.code(400).send(errorBody('invalid_parameter', message));
      return;
    }
    if (isStoreFull(error)) {
      fullCause = error;
      warnFull();
      reply
        .header('retry-after', String(STORE_FULL_RETRY_AFTER_SECONDS))
        .code(503)
        .send(
          errorBody('service_unavailable', 'this change cannot be stored right now; retry later'),
        );
      return;
    }
    if (isStoreUnavailable(error)) {
      // Logged as an outage, once, not per request (see StoreOutage).
      outage.noteUnavailable(error);
      reply
        .header('retry-after', String(STORE_RETRY_AFTER_SECONDS))
        .code(503)
        .send(errorBody('service_unavailable', 'the data store is unavailable; retry shortly'));
      return;
    }
    const status = (error as FastifyError).statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      reply.code(status).send(errorBody(codeForClientError(status), error.message));
      return;
    }
    request.log.error({ err: error }, 'request failed');
    reply.code(500).send(errorBody('internal_error', 'an unexpected error occurred'));
  });
}
