import underPressure from '@fastify/under-pressure';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errorBody } from '../errors.ts';

/** Seconds an overloaded instance asks clients to wait. */
export const OVERLOAD_RETRY_AFTER_SECONDS = 1;

/**
 * The guard in front of the data routes: SQLite runs on the event loop, so a backlog shows as
 * event-loop delay. Past `maxEventLoopDelayMs`, new data requests get 503 with Retry-After at once
 * instead of queueing behind the backlog (and timing out anyway).
 */
export async function registerOverloadGuard(
  app: FastifyInstance,
  options: { maxEventLoopDelayMs: number; sampleIntervalMs?: number; onShed: () => void },
): Promise<void> {
  await app.register(underPressure, {
    maxEventLoopDelay: options.maxEventLoopDelayMs,
    ...(options.sampleIntervalMs ? { sampleInterval: options.sampleIntervalMs } : {}),
    exposeStatusRoute: false,
    pressureHandler: (_request, reply) => {
      options.onShed();
      reply
        .code(503)
        .header('retry-after', String(OVERLOAD_RETRY_AFTER_SECONDS))
        .send(errorBody('service_unavailable', 'the service is overloaded; retry shortly'));
    },
  });
}

/** The client went away before its answer was computed: the work is skipped, nothing is sent. */
export class RequestAbandoned extends Error {
  constructor() {
    super('the client closed the connection before the answer was ready');
  }
}

/** Throws when the client has disconnected, so expensive work is not done for nobody. */
export function ensureClientWaiting(request: FastifyRequest): void {
  if (request.clientGone || request.raw.socket?.destroyed) throw new RequestAbandoned();
}
