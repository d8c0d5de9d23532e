import type { FastifyError, FastifyInstance } from 'fastify';
import { isStoreUnavailable } from '../db/store-errors.ts';
import { ApiError, type ErrorCode, errorBody } from '../errors.ts';
import { CLIENT_CLOSED_REQUEST } from './access-log.ts';
import { RequestAbandoned } from './overload.ts';

/** Seconds a client should wait before retrying while the store is unreachable. */
export const STORE_RETRY_AFTER_SECONDS = 5;

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

/**
 * One place that turns any failure into the envelope `{ error: { code, message } }`. Server-side
 * failures get a generic message; their detail goes to the log with the request id.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setNotFoundHandler((request, reply) => {
    reply
      .code(404)
      .send(errorBody('not_found', `no route for ${request.method} ${request.url.split('?')[0]}`));
  });

  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    if (error instanceof RequestAbandoned) {
      // Nobody is listening; the abort was already logged and counted (status 499).
      request.log.info('work abandoned: the client closed the connection');
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
    if (isStoreUnavailable(error)) {
      request.log.warn({ err: error }, 'store unavailable');
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
