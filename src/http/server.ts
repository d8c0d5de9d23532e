import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, LogController } from 'fastify';
import { MAX_ID_LENGTH } from '../record-ids.ts';
import { ajvPlugins } from './ajv-plugins.ts';
import {
  type ConnectionTimeouts,
  DEFAULT_TIMEOUTS,
  defaultMaxConnections,
  openFileLimit,
  TIMEOUT_CHECK_INTERVAL_MS,
} from './connections.ts';
import { answerClientError, answerFrameworkError } from './errors.ts';

export interface ServerOptions {
  logger: FastifyBaseLogger;
  trustProxy?: boolean | string;
  /** The certificate and key when the server terminates HTTPS itself (see transportOf). */
  tls?: { cert: Buffer; key: Buffer };
  maxConnections?: number;
  timeouts?: Partial<ConnectionTimeouts>;
}

/**
 * The Fastify instance every route is registered on: its limits, its timeouts for slow and idle
 * clients, its answers to what fails before any hook runs, and how it validates.
 */
export function createServer(options: ServerOptions) {
  const timeouts: ConnectionTimeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const nodeServerOptions = {
    headersTimeout: timeouts.headersMs,
    connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    // Node would answer a missing Host with a bare 400 of its own; answerGuards envelopes it.
    requireHostHeader: false,
  };
  const app = Fastify({
    loggerInstance: options.logger,
    // Fastify's own per-request lines are off: the access log writes one line of its own.
    logController: new LogController({
      disableRequestLogging: true,
      requestIdLogLabel: 'requestId',
    }),
    requestIdHeader: false,
    genReqId: () => randomUUID(),
    bodyLimit: 16 * 1024,
    // Slow and idle clients give their descriptors back (see connections.ts); HTTPS takes the
    // same server options beside its certificate.
    ...(options.tls
      ? { https: { ...options.tls, ...nodeServerOptions } }
      : { http: nodeServerOptions }),
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    connectionTimeout: timeouts.idleSocketMs,
    // Ids are at most MAX_ID_LENGTH characters (see the import), so any id fits a path parameter.
    routerOptions: { maxParamLength: MAX_ID_LENGTH },
    frameworkErrors: answerFrameworkError(MAX_ID_LENGTH),
    clientErrorHandler: answerClientError,
    // Answered in the envelope by answerGuards instead of Fastify's own body.
    return503OnClosing: false,
    trustProxy: options.trustProxy ?? false,
    ajv: {
      // Unknown query parameters must be rejected (spec, respondents), never silently dropped.
      // A schema's default documents what a handler does when the value is left out; it is not
      // filled in, so that a handler can tell a value sent from none (a limit beside a cursor).
      customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: false },
      plugins: ajvPlugins,
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  // Past this, Node refuses new connections at once, before they cost the process anything.
  app.server.maxConnections = options.maxConnections ?? defaultMaxConnections(openFileLimit());
  return app;
}
