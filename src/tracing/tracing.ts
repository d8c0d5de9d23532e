import { type Attributes, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Dialect } from 'kysely';
import { tracer } from './tracer.ts';

/**
 * Traces (OpenTelemetry), on when the standard variables name where to send them
 * (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), unless OTEL_SDK_DISABLED
 * or OTEL_TRACES_EXPORTER=none says otherwise. Off, nothing of the SDK is loaded, no hook is
 * added, and every span below is the API's no-op.
 *
 * What a span may carry: names of routes (their pattern), statements (their kind and table),
 * outcomes, counts and times. Never a URL, a query string, a parameter, an answer, a name, an
 * email, an id of a respondent, a key or a token.
 */
export function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/** The sampler's ratio: OTEL_TRACES_SAMPLER_ARG (0 to 1), every trace when unset. */
function samplingRatio(env: NodeJS.ProcessEnv): number {
  const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG ?? 1);
  return Number.isFinite(ratio) && ratio >= 0 && ratio <= 1 ? ratio : 1;
}

export interface Tracing {
  /** Sends what is still buffered and stops. */
  shutdown(): Promise<void>;
  /** Wraps a store's dialect so that each statement is a span (see query-spans.ts). */
  traceStatements: StatementTracing;
}

/** What a store's dialect is wrapped in when its statements are traced. */
export type StatementTracing = (dialect: Dialect, engine: 'sqlite' | 'postgresql') => Dialect;

/**
 * Starts the SDK for this process: parent-based sampling at OTEL_TRACES_SAMPLER_ARG (a request
 * that arrives with a sampled `traceparent` is traced whatever the ratio), spans batched to the
 * OTLP exporter (which reads the other OTEL_EXPORTER_OTLP_* variables itself), W3C trace context.
 */
export async function startTracing(env: NodeJS.ProcessEnv): Promise<Tracing | undefined> {
  if (!tracingWanted(env)) return undefined;
  const [{ context, propagation }, sdk, otlp, hooks, core, resources, spans] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('./query-spans.ts'),
  ]);
  const delay = Number(env.OTEL_BSP_SCHEDULE_DELAY ?? 5_000);
  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes({
      'service.name': env.OTEL_SERVICE_NAME || 'hadir',
    }),
    sampler: new sdk.ParentBasedSampler({
      root: new sdk.TraceIdRatioBasedSampler(samplingRatio(env)),
    }),
    spanProcessors: [
      new sdk.BatchSpanProcessor({
        exporter: new otlp.OTLPTraceExporter({ url: tracesUrl(env) }),
        scheduledDelayMillis: Number.isFinite(delay) && delay > 0 ? delay : 5_000,
      }),
    ],
  });
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new hooks.AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  return { shutdown: () => provider.shutdown(), traceStatements: spans.tracedDialect };
}

/**
 * Runs `work` in a span of its own (a child of the active one), ended with its outcome: an error
 * is recorded by its class and a fixed word, never its message, which may quote a value.
 */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer().startActiveSpan(name, { kind: SpanKind.INTERNAL, attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'failed' });
      span.setAttribute('error.type', (error as Error)?.name ?? 'Error');
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Where spans go: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or /v1/traces under the OTLP endpoint. */
function tracesUrl(env: NodeJS.ProcessEnv): string {
  return (
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ||
    `${(env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '').replace(/\/+$/, '')}/v1/traces`
  );
}
