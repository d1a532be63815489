/**
 * With tracing on (domain/observability/tracing.ts), each request is the server span at the root of
 * a trace of its own, which the workflows it starts, their activities and the calls to Weaviate, the
 * embedding servers and the chat model continue (worker/tracing.ts, inSpan). The span is named by
 * the request's operation (the operations table's id, `healthz`, `readyz`, `openapi` or `unmatched`,
 * never a raw path) and carries the method, the route, the status and the request id; no tenant,
 * no key, no body. The trace id goes back in the `X-Trace-Id` header beside `X-Request-Id`, and
 * into every log line written within the request (api/logger.ts).
 *
 * A client's own `traceparent` never becomes the parent: a client could otherwise join our traces
 * to its own and, with the sampled flag, make every one of its requests traced whatever the
 * configured sampler. A well-formed one is kept as a link of the span instead, which costs nothing
 * and lets a client's trace be found from ours (docs/api.md, "Trace id").
 *
 * With tracing off, `requestTracing` returns nothing and the app adds no middleware at all.
 */
import {
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Link,
} from '@opentelemetry/api';
import type { Middleware } from 'koa';
import { activeTracing } from '../../domain/observability/tracing';
import type { RequestState } from '../request-state';
import { operations } from '../schemas/operations';
import { operationOf } from './request-metrics';

/** Each operation's route, by its name (the `http.route` attribute). */
const ROUTE_OF = new Map<string, string>(operations.map((op) => [op.operationId, op.path]));

/** The response header carrying the trace id (32 lowercase hex digits). */
export const TRACE_ID_HEADER = 'X-Trace-Id';

/**
 * The client's `traceparent`, when well formed, as a link: parsed by the W3C propagator the SDK
 * registered (fixed-length fields checked by its own pattern), and only its ids and flags kept.
 */
function clientLinks(headers: Record<string, string | string[] | undefined>): Link[] | undefined {
  if (!headers.traceparent) return undefined;
  const given = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, headers));
  if (!given || !isSpanContextValid(given)) return undefined;
  const { traceId, spanId, traceFlags } = given;
  return [{ context: { traceId, spanId, traceFlags }, attributes: { 'link.source': 'client traceparent' } }];
}

export function requestTracing(): Middleware<RequestState> | undefined {
  const tracing = activeTracing();
  if (!tracing) return undefined;
  return async function requestTracingMiddleware(ctx, next) {
    const operation = operationOf(ctx.method, ctx.path);
    const route = ROUTE_OF.get(operation);
    const span = tracing.tracer.startSpan(
      operation,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': ctx.method, ...(route ? { 'http.route': route } : {}) },
        links: clientLinks(ctx.headers),
      },
      ROOT_CONTEXT,
    );
    ctx.set(TRACE_ID_HEADER, span.spanContext().traceId);
    try {
      await context.with(trace.setSpan(ROOT_CONTEXT, span), next);
    } catch (err) {
      span.recordException(err instanceof Error ? err : String(err));
      throw err;
    } finally {
      span.setAttribute('http.response.status_code', ctx.status);
      if (ctx.state.requestId) span.setAttribute('request.id', ctx.state.requestId);
      // A server span is an error for a 5xx only: a 4xx is the client's (OpenTelemetry's HTTP conventions).
      if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  };
}
