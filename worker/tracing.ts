/**
 * Temporal's OpenTelemetry interceptors (@temporalio/interceptors-opentelemetry) for this process's
 * clients and workers, once tracing is on (domain/observability/tracing.ts, startTracing):
 *
 * - the clients' interceptor puts the request's trace context into the header of each workflow it
 *   starts, signals or updates, with a span for the call, but only within a trace (a request's): a
 *   call outside one (the read log's flushes, the retention schedule) carries no header;
 * - the workflows' interceptors (workflows/tracing.ts, in the bundle) trace the runs whose start
 *   carries it and pass it on to their activities and children, and export their spans through
 *   the `exporter` sink, here handed to the process's span processor;
 * - the activities' interceptor makes each activity carrying the header a span of that trace, so
 *   the activity's own calls (Weaviate, the embedding servers, the chat model: inSpan) join it.
 *
 * With tracing off the clients get no interceptor, the activities none, and the sink (registered
 * anyway, since a run started by a traced API may reach a worker without tracing) drops the spans.
 * The API process uses these too: its clients, and its ask worker (worker/ask-worker.ts).
 */
import type { Context as ActivityContext } from '@temporalio/activity';
import type { ClientInterceptors, WorkflowClientInterceptor } from '@temporalio/client';
import { context, trace } from '@opentelemetry/api';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client';
import { TRACE_HEADER } from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/worker';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions';
import type { ActivityInterceptors, InjectedSinks, WorkerInterceptors } from '@temporalio/worker';
import { activeTracing } from '../domain/observability/tracing';

const inTrace = () => trace.getSpan(context.active()) !== undefined;

/**
 * The OpenTelemetry client interceptor for the calls a request makes (workflow starts, signals,
 * updates); any other call passes through untraced.
 */
function requestScoped(inner: OpenTelemetryWorkflowClientInterceptor): WorkflowClientInterceptor {
  return {
    startWithDetails: (input, next) => (inTrace() ? inner.startWithDetails(input, next) : next(input)),
    signal: (input, next) => (inTrace() ? inner.signal(input, next) : next(input)),
    signalWithStart: (input, next) => (inTrace() ? inner.signalWithStart(input, next) : next(input)),
    startUpdate: (input, next) => (inTrace() ? inner.startUpdate(input, next) : next(input)),
    startUpdateWithStart: (input, next) => (inTrace() ? inner.startUpdateWithStart(input, next) : next(input)),
  };
}

/** A Temporal client's `interceptors` option: tracing's when it is on, else none. */
export function tracingClientInterceptors(): ClientInterceptors | undefined {
  const tracing = activeTracing();
  if (!tracing) return undefined;
  return { workflow: [requestScoped(new OpenTelemetryWorkflowClientInterceptor({ tracer: tracing.tracer }))] };
}

/** An activity's interceptors: a span of the trace its header carries; none for an activity without one. */
function tracedActivity(ctx: ActivityContext): ActivityInterceptors {
  const tracing = activeTracing();
  if (!tracing) return {};
  const inbound = new OpenTelemetryActivityInboundInterceptor(ctx, { tracer: tracing.tracer });
  return {
    inbound: {
      execute: (input, next) =>
        Object.prototype.hasOwnProperty.call(input.headers, TRACE_HEADER) ? inbound.execute(input, next) : next(input),
    },
    // Puts the trace id into the activity's own log lines (Context.log).
    outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
  };
}

/** A worker's `interceptors` option: the activities' tracing when it is on (the workflows' is in the bundle). */
export function tracingWorkerInterceptors(): WorkerInterceptors {
  return activeTracing() ? { activity: [tracedActivity] } : {};
}

/** The sink the workflows' interceptors export their spans through: the process's span processor, or nothing. */
export function tracingSinks(): InjectedSinks<OpenTelemetrySinks> {
  const tracing = activeTracing();
  if (tracing) return { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) };
  return { exporter: { export: { fn: () => undefined, callDuringReplay: false } } };
}
