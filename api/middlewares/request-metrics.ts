/**
 * Counts and times every request by its operation (the operations table's id, or `healthz`,
 * `readyz`, `openapi`, `unmatched`: never a raw path, so a client cannot create series), and counts
 * each refusal (408, 429, 503) by its reason, the dependency a 503 names and, for a tenant's 429s,
 * the tenant (bounded: domain/observability/metrics.ts, tenantLabel). Runs right after the request
 * context, around the error handler's answer.
 */
import type { Middleware } from 'koa';
import {
  admissionRejections,
  httpDuration,
  httpInFlight,
  httpRequests,
  statusClass,
  tenantLabel,
  tenantThrottled,
} from '../../domain/observability/metrics';
import type { RequestState } from '../request-state';
import { operations } from '../schemas/operations';

/** `METHOD path` of every route, to its operation's name. */
const OPERATION_OF = new Map<string, string>([
  ...operations.map((op): [string, string] => [`${op.method} ${op.path}`, op.operationId]),
  ['GET /healthz', 'healthz'],
  ['GET /readyz', 'readyz'],
  ['GET /openapi.json', 'openapi'],
]);

/** The operation a request is for, by its method and path; HEAD counts as GET. */
export function operationOf(method: string, path: string): string {
  return OPERATION_OF.get(`${method === 'HEAD' ? 'GET' : method} ${path}`) ?? 'unmatched';
}

/** The 429s that stand for a tenant being held back (not an address's invalid keys). */
const TENANT_THROTTLES = new Set(['rate_limit', 'queue_full', 'token_budget']);

export function requestMetrics(): Middleware<RequestState> {
  return async function requestMetricsMiddleware(ctx, next) {
    const operation = operationOf(ctx.method, ctx.path);
    const end = httpDuration.startTimer({ operation });
    httpInFlight.inc({ operation });
    try {
      await next();
    } finally {
      httpInFlight.dec({ operation });
      const status = ctx.status;
      const labels = { operation, status_class: statusClass(status) };
      end(labels);
      httpRequests.inc(labels);
      const rejection = ctx.state.rejection ?? defaultRejection(status);
      if (rejection) {
        admissionRejections.inc({ reason: rejection.reason, dependency: rejection.dependency ?? 'none' });
        const tenant = ctx.state.auth?.tenant;
        if (status === 429 && tenant && TENANT_THROTTLES.has(rejection.reason))
          tenantThrottled.inc({ tenant: tenantLabel(tenant) });
      }
    }
  };
}

/** A refusal no step named: a 408 is a deadline, a 429 a rate limit, a 503 an unnamed dependency. */
function defaultRejection(status: number): RequestState['rejection'] {
  if (status === 408) return { reason: 'deadline' };
  if (status === 429) return { reason: 'rate_limit' };
  if (status === 503) return { reason: 'dependency_unavailable', dependency: 'other' };
  return undefined;
}
