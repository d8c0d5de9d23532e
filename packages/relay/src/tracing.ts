import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

/**
 * hadir-relay's traces: on when the standard OTEL_EXPORTER_OTLP_ENDPOINT (or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set, as Hadir's are. Each batch is a span of its own,
 * and its `traceparent` goes with the batch, so that one trace runs from the relay through
 * Hadir's ingest to its commit. A span carries the batch's size, never a record.
 */
export async function startTracing(
  env: NodeJS.ProcessEnv,
): Promise<{ shutdown(): Promise<void> } | undefined> {
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return undefined;
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return undefined;
  const [sdk, otlp, hooks, core, resources] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
  ]);
  const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG ?? 1);
  const delay = Number(env.OTEL_BSP_SCHEDULE_DELAY ?? 5_000);
  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes({
      'service.name': env.OTEL_SERVICE_NAME || 'hadir-relay',
    }),
    sampler: new sdk.ParentBasedSampler({
      root: new sdk.TraceIdRatioBasedSampler(ratio >= 0 && ratio <= 1 ? ratio : 1),
    }),
    spanProcessors: [
      new sdk.BatchSpanProcessor({
        exporter: new otlp.OTLPTraceExporter({ url: tracesUrl(env) }),
        scheduledDelayMillis: delay > 0 ? delay : 5_000,
      }),
    ],
  });
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new hooks.AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  return { shutdown: () => provider.shutdown() };
}

/**
 * Sends one batch in a span of its own, with its trace context in `headers` (nothing is added
 * while traces are off).
 */
export function tracedSend<T>(
  records: number,
  send: (headers: Record<string, string>) => Promise<T>,
): Promise<T> {
  return trace
    .getTracer('hadir-relay')
    .startActiveSpan(
      'relay batch',
      { kind: SpanKind.CLIENT, attributes: { 'hadir.batch.records': records } },
      async (span) => {
        const headers: Record<string, string> = {};
        propagation.inject(context.active(), headers);
        try {
          return await send(headers);
        } catch (error) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: 'failed' });
          throw error;
        } finally {
          span.end();
        }
      },
    );
}

/** Where spans go: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or /v1/traces under the OTLP endpoint. */
function tracesUrl(env: NodeJS.ProcessEnv): string {
  return (
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ||
    `${(env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '').replace(/\/+$/, '')}/v1/traces`
  );
}
