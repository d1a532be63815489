/**
 * Temporal's OpenTelemetry workflow interceptors, bundled with the workflows as an interceptor
 * module (worker/workflow-bundle.ts), but applied only to what a traced request started: a run
 * whose start (or a signal or update whose call) carries the trace header that the API's client
 * interceptor adds (worker/tracing.ts). Every other run (any run while tracing is off, schedules,
 * timers, the read log's flushes) goes straight through, creating no span and calling no sink, so
 * tracing costs the workflows nothing unless a request is traced. A traced run's spans go to the
 * `exporter` sink, which the worker hands to its span processor; its activities and children get
 * the trace header in turn (docs/operations.md, "Tracing").
 */
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';
import type { Headers } from '@temporalio/common';
import type {
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptors,
  WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';

/** The header Temporal's OpenTelemetry interceptors carry the trace context in (their TRACE_HEADER). */
const TRACE_HEADER = '_tracer-data';

const carriesTrace = (headers: Headers) => Object.prototype.hasOwnProperty.call(headers, TRACE_HEADER);

export function interceptors(): WorkflowInterceptors {
  /** Created at the first traced call, so an untraced run never sets up a tracer. */
  let otel: { inbound: OpenTelemetryInboundInterceptor; outbound: OpenTelemetryOutboundInterceptor } | undefined;
  const tracing = () =>
    (otel ??= { inbound: new OpenTelemetryInboundInterceptor(), outbound: new OpenTelemetryOutboundInterceptor() });

  const inbound: WorkflowInboundCallsInterceptor = {
    execute: (input, next) => (carriesTrace(input.headers) ? tracing().inbound.execute(input, next) : next(input)),
    handleSignal: (input, next) =>
      carriesTrace(input.headers) ? tracing().inbound.handleSignal(input, next) : next(input),
    handleUpdate: (input, next) =>
      carriesTrace(input.headers) ? tracing().inbound.handleUpdate(input, next) : next(input),
  };
  // What a traced run does next (activities, children, signals, its next run) carries its trace on.
  const outbound: WorkflowOutboundCallsInterceptor = {
    scheduleActivity: (input, next) => (otel ? otel.outbound.scheduleActivity(input, next) : next(input)),
    scheduleLocalActivity: (input, next) => (otel ? otel.outbound.scheduleLocalActivity(input, next) : next(input)),
    startChildWorkflowExecution: (input, next) =>
      otel ? otel.outbound.startChildWorkflowExecution(input, next) : next(input),
    signalWorkflow: (input, next) => (otel ? otel.outbound.signalWorkflow(input, next) : next(input)),
    continueAsNew: (input, next) => (otel ? otel.outbound.continueAsNew(input, next) : next(input)),
    getLogAttributes: (input, next) => (otel ? otel.outbound.getLogAttributes(input, next) : next(input)),
  };
  return {
    inbound: [inbound],
    outbound: [outbound],
    internals: [
      { dispose: (input, next) => (otel ? new OpenTelemetryInternalsInterceptor().dispose(input, next) : next(input)) },
    ],
  };
}
