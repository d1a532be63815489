/**
 * Temporal's OpenTelemetry workflow interceptors, bundled with the workflows as an interceptor
 * module (worker/workflow-bundle.ts), but applied only to what a sampled request started: a run
 * whose start (or a signal or update whose call) carries the trace header that the API's client
 * interceptor adds (worker/tracing.ts) with the W3C "sampled" flag set. A traced run's spans go to
 * the `exporter` sink, which the worker hands to its span processor; its activities and children
 * get the trace header in turn (docs/operations.md, "Tracing").
 *
 * A run whose header says "not sampled" creates no span (it would be dropped anyway) and sets up
 * no tracer: the interceptors' extra promises cost every run the workflow sandbox's promise hook,
 * which is most of what tracing cost an ask (docs/benchmarks.md, "Observability"). Its header is
 * handed on unchanged to its activities, children, signals and next run, so their spans stay
 * unsampled and their log lines, like the run's own, keep the request's trace id.
 *
 * Every other run (any run while tracing is off, schedules, timers, the read log's flushes) goes
 * straight through, creating no span and calling no sink.
 */
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';
import { defaultPayloadConverter, type Headers, type Payload } from '@temporalio/common';
import type {
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptors,
  WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';

/** The header Temporal's OpenTelemetry interceptors carry the trace context in (their TRACE_HEADER). */
export const TRACE_HEADER = '_tracer-data';

/** What a trace header says, read from its W3C `traceparent` (version-traceid-parentid-flags). */
export interface TraceHeader {
  payload: Payload;
  sampled: boolean;
  traceId?: string;
  spanId?: string;
}

/**
 * The trace header of `headers`, if any. A header whose `traceparent` cannot be read counts as
 * sampled: the OpenTelemetry interceptors then decide, as they did for every header before.
 */
export function traceHeaderOf(headers: Headers): TraceHeader | undefined {
  if (!Object.prototype.hasOwnProperty.call(headers, TRACE_HEADER)) return undefined;
  const payload = headers[TRACE_HEADER];
  let traceparent: unknown;
  try {
    traceparent = (defaultPayloadConverter.fromPayload(payload) as { traceparent?: unknown } | null)?.traceparent;
  } catch {
    return { payload, sampled: true };
  }
  const fields = typeof traceparent === 'string' && traceparent.length <= 64 ? traceparent.split('-') : [];
  if (fields.length !== 4 || !/^[0-9a-f]{2}$/.test(fields[3])) return { payload, sampled: true };
  return { payload, sampled: (parseInt(fields[3], 16) & 1) === 1, traceId: fields[1], spanId: fields[2] };
}

export function interceptors(): WorkflowInterceptors {
  /** Created at the first sampled call, so an untraced or unsampled run never sets up a tracer. */
  let otel: { inbound: OpenTelemetryInboundInterceptor; outbound: OpenTelemetryOutboundInterceptor } | undefined;
  /** The header of an unsampled run, handed on as it came. */
  let unsampled: TraceHeader | undefined;

  /** Whether a call carrying `headers` is traced; remembers an unsampled header to hand on. */
  const traced = (headers: Headers): boolean => {
    const header = traceHeaderOf(headers);
    if (!header) return false;
    if (header.sampled) {
      otel ??= { inbound: new OpenTelemetryInboundInterceptor(), outbound: new OpenTelemetryOutboundInterceptor() };
      return true;
    }
    unsampled ??= header;
    return false;
  };
  /** An outgoing call's input with the unsampled run's header, unless it carries one already. */
  const handOn = <T extends { headers: Headers }>(input: T): T =>
    unsampled && !Object.prototype.hasOwnProperty.call(input.headers, TRACE_HEADER)
      ? { ...input, headers: { ...input.headers, [TRACE_HEADER]: unsampled.payload } }
      : input;

  const inbound: WorkflowInboundCallsInterceptor = {
    execute: (input, next) => (traced(input.headers) ? otel!.inbound.execute(input, next) : next(input)),
    handleSignal: (input, next) => (traced(input.headers) ? otel!.inbound.handleSignal(input, next) : next(input)),
    handleUpdate: (input, next) => (traced(input.headers) ? otel!.inbound.handleUpdate(input, next) : next(input)),
  };
  // What a traced run does next (activities, children, signals, its next run) carries its trace on.
  const outbound: WorkflowOutboundCallsInterceptor = {
    scheduleActivity: (input, next) => (otel ? otel.outbound.scheduleActivity(input, next) : next(handOn(input))),
    scheduleLocalActivity: (input, next) =>
      otel ? otel.outbound.scheduleLocalActivity(input, next) : next(handOn(input)),
    startChildWorkflowExecution: (input, next) =>
      otel ? otel.outbound.startChildWorkflowExecution(input, next) : next(handOn(input)),
    signalWorkflow: (input, next) => (otel ? otel.outbound.signalWorkflow(input, next) : next(handOn(input))),
    continueAsNew: (input, next) => (otel ? otel.outbound.continueAsNew(input, next) : next(handOn(input))),
    getLogAttributes: (input, next) => {
      if (otel) return otel.outbound.getLogAttributes(input, next);
      if (unsampled?.traceId) return next({ trace_id: unsampled.traceId, span_id: unsampled.spanId, ...input });
      return next(input);
    },
  };
  return {
    inbound: [inbound],
    outbound: [outbound],
    internals: [
      { dispose: (input, next) => (otel ? new OpenTelemetryInternalsInterceptor().dispose(input, next) : next(input)) },
    ],
  };
}
