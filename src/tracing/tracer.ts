import { trace } from '@opentelemetry/api';

/** Hadir's tracer, from whichever provider is set (a no-op one while tracing is off). */
export const tracer = () => trace.getTracer('hadir');
