import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';

/** Seconds an overloaded instance asks clients to wait. */
export const OVERLOAD_RETRY_AFTER_SECONDS = 1;

/** The event-loop delay histogram's resolution; its own sampling adds this much to the mean. */
const RESOLUTION_MS = 10;

/**
 * The guard in front of the data routes: SQLite runs on the event loop, so a backlog shows as
 * event-loop delay. Past `maxEventLoopDelayMs` (the mean delay over the last sample interval),
 * new data requests get 503 with Retry-After at once instead of queueing behind the backlog.
 *
 * Built on Node's histogram alone: its sampling timer does nothing that can fail, where a timer
 * that also reads memory usage opens /proc files and throws (ending the process) once a flood of
 * connections has used up the process's file descriptors.
 */
export async function registerOverloadGuard(
  app: FastifyInstance,
  options: { maxEventLoopDelayMs: number; sampleIntervalMs?: number; onShed: () => void },
): Promise<void> {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  let delayMs = 0;
  const sampler = setInterval(() => {
    // No sample yet means the histogram's own timer has not run since the last reset: the loop
    // was busy all along, so the last reading stands.
    if (histogram.count === 0) return;
    delayMs = Math.max(0, histogram.mean / 1e6 - RESOLUTION_MS);
    histogram.reset();
  }, options.sampleIntervalMs ?? 1000);
  sampler.unref();
  app.addHook('onClose', async () => {
    clearInterval(sampler);
    histogram.disable();
  });
  app.addHook('onRequest', async () => {
    if (delayMs <= options.maxEventLoopDelayMs) return;
    options.onShed();
    throw new ApiError('service_unavailable', 'the service is overloaded; retry shortly', {
      'retry-after': String(OVERLOAD_RETRY_AFTER_SECONDS),
    });
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
