/**
 * OpenTelemetry tracing of one process (the API or the worker), configured by OpenTelemetry's own
 * environment variables: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT (where
 * spans go, OTLP over HTTP/protobuf, e.g. Jaeger's receiver), OTEL_SERVICE_NAME and
 * OTEL_RESOURCE_ATTRIBUTES (the resource; the service name defaults to `support-ai-api` or
 * `support-ai-worker`), OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG (the sampler, parent-based
 * always-on by default), OTEL_BSP_* (the batch span processor) and OTEL_EXPORTER_OTLP_* (headers,
 * timeout, compression), all read by the SDK itself; the endpoints and the sampler's are also
 * checked at start with the other settings (domain/config.ts, TRACING_SETTINGS).
 *
 * Off unless an endpoint is set (or with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none): then
 * no SDK module is even loaded, the global tracer is OpenTelemetry's no-op one, and `inSpan`,
 * `traceLogFields` and `activeTracing` cost a check of one variable. The Temporal side (client,
 * activity and workflow interceptors) is wired in worker/tracing.ts; the HTTP server span in
 * api/middlewares/tracing.ts (docs/operations.md, "Tracing").
 */
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Tracer } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';

/** The service names of the two processes, unless OTEL_SERVICE_NAME says otherwise. */
export const SERVICE_NAMES = { api: 'support-ai-api', worker: 'support-ai-worker' } as const;

/** The instrumentation scope of this project's own spans. */
const SCOPE = 'support-ai';

/**
 * Where this process's spans go, or undefined when tracing is off: OpenTelemetry's traces endpoint,
 * else its general endpoint, unless the SDK is disabled or the traces exporter is `none`.
 */
export function tracingEndpoint(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((name) => name.trim().toLowerCase());
  if (exporters.includes('none')) return undefined;
  return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || undefined;
}

/** The running SDK of this process. */
export interface ActiveTracing {
  tracer: Tracer;
  /** The processor every span goes through, also the workflows' spans (worker/tracing.ts). */
  spanProcessor: SpanProcessor;
  resource: Resource;
  /** Sends the spans still buffered and stops. */
  shutdown(): Promise<void>;
}

let active: ActiveTracing | undefined;

/** The SDK this process started, or undefined when tracing is off. */
export const activeTracing = (): ActiveTracing | undefined => active;

/**
 * Starts the SDK once per process when an endpoint is set (tracingEndpoint), before anything that
 * traces is created: a tracer provider with a batch span processor and an OTLP/HTTP protobuf
 * exporter, W3C trace context as the propagator (Temporal's interceptors use it), and an
 * AsyncLocalStorage context manager. Returns undefined, loading nothing, when tracing is off.
 */
export async function startTracing(o: {
  service: string;
  env?: NodeJS.ProcessEnv;
}): Promise<ActiveTracing | undefined> {
  if (active || !tracingEndpoint(o.env)) return active;
  // Loaded only here, so a process without tracing never loads the SDK.
  const [base, resources, otlp, hooks, core, semconv] = await Promise.all([
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/exporter-trace-otlp-proto'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/semantic-conventions'),
  ]);
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (envDetectorSync) win over the defaults.
  const resource = new resources.Resource({
    [semconv.ATTR_SERVICE_NAME]: o.service,
    'process.pid': process.pid,
  }).merge(resources.envDetectorSync.detect());
  // The exporter reads its endpoint, headers, timeout and compression from OTEL_EXPORTER_OTLP_*.
  const spanProcessor = new base.BatchSpanProcessor(new otlp.OTLPTraceExporter());
  // The provider reads its sampler (OTEL_TRACES_SAMPLER, _ARG) and span limits from the environment.
  const provider = new base.BasicTracerProvider({ resource });
  provider.addSpanProcessor(spanProcessor);
  provider.register({
    contextManager: new hooks.AsyncLocalStorageContextManager(),
    propagator: new core.W3CTraceContextPropagator(),
  });
  active = {
    tracer: provider.getTracer(SCOPE),
    spanProcessor,
    resource,
    shutdown: () => provider.shutdown(),
  };
  return active;
}

/**
 * Stops the SDK of this process, sending what is buffered (a no-op when tracing is off). Spans that
 * cannot be sent (the collector is down) are dropped: stopping never fails for them.
 */
export async function stopTracing(): Promise<void> {
  const running = active;
  active = undefined;
  await running?.shutdown().catch(() => undefined);
}

/**
 * The trace and span ids of the active span, for a log line (api/logger.ts and worker/logger.ts
 * mix them into every line): `{}` when tracing is off or no span is active.
 */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  if (!active) return {};
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/**
 * Runs `fn` as a client span `name` of the active trace: an outgoing call (Weaviate, an embedding
 * server, the chat model). Only within a sampled trace: with tracing off, outside any request (the
 * dependency probes, the counters' syncs), or within a request the sampler left out (its span is not
 * recording, and a child of it would be dropped too), it just runs `fn`, so background work starts
 * no trace and an unsampled request pays for no span and no context switch per call; its log lines
 * keep the request's ids.
 */
export function inSpan<T>(o: { name: string; attributes?: Attributes }, fn: () => Promise<T>): Promise<T> {
  if (!active || !trace.getSpan(context.active())?.isRecording()) return fn();
  return active.tracer.startActiveSpan(
    o.name,
    { kind: SpanKind.CLIENT, attributes: o.attributes },
    async function tracedCall(span) {
      try {
        return await fn();
      } catch (err) {
        span.recordException(err instanceof Error ? err : String(err));
        span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
        throw err;
      } finally {
        span.end();
      }
    },
  );
}
