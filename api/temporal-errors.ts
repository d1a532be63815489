/**
 * The one place where Temporal outcomes become HTTP statuses (docs/api.md, "Deadlines"):
 * - the request's own deadline passed while waiting → 408 (the workflow keeps running);
 * - an activity failed with a dependency timeout, or timed out itself, after its retries → 504;
 * - a dependency (or Temporal itself) unreachable → 503;
 * - typed failures for bad input and unknown ids → 400 and 404.
 */
import { ApplicationFailure, NamespaceNotFoundError, TemporalFailure, TimeoutFailure } from '@temporalio/common';
import { WorkflowFailedError, isGrpcCancelledError, isGrpcDeadlineError, isGrpcServiceError } from '@temporalio/client';
import { causeChain } from '../domain/failures';
import { ApiError } from './errors';

/** Typed failures carry messages written for clients (domain/failures.ts), never a dependency's text. */
const BY_TYPE: Record<string, (message: string) => ApiError> = {
  DependencyTimeout: (m) => new ApiError(504, m),
  DependencyUnavailable: (m) => new ApiError(503, m),
  InvalidInput: (m) => new ApiError(400, m),
  NotFound: (m) => new ApiError(404, m),
  // One input took longer than its CPU budget in the worker (domain/cpu/pool.ts).
  InputTooCostly: (m) => new ApiError(400, m),
  // The model answered, but not in the shape asked for, after the retries (domain/ask/model-engine.ts).
  ModelOutputInvalid: (m) => new ApiError(503, m),
};

/**
 * gRPC codes with which the workflow service says it cannot serve now (overloaded, restarting, its
 * store stalled): UNKNOWN, RESOURCE_EXHAUSTED, ABORTED, INTERNAL, UNAVAILABLE. A client may retry.
 */
const SERVICE_DOWN_CODES = new Set([2, 8, 10, 13, 14]);

/** The innermost meaningful failure of a workflow's failure chain. */
const causes = (err: unknown): Generator<unknown> => causeChain(err, 10);

/** A typed failure (thrown by an activity, or by a read in the API process) as its HTTP status; 500 when untyped. */
export function applicationFailureToApiError(failure: ApplicationFailure): ApiError {
  const byType = failure.type ? BY_TYPE[failure.type] : undefined;
  return byType ? byType(failure.message) : new ApiError(500, `unexpected failure: ${failure.message}`);
}

export function workflowFailureToApiError(err: WorkflowFailedError): ApiError {
  for (const cause of causes(err.cause)) {
    if (cause instanceof ApplicationFailure && cause.type && BY_TYPE[cause.type])
      return applicationFailureToApiError(cause);
    if (cause instanceof TimeoutFailure)
      return new ApiError(504, `a dependency call timed out (${cause.timeoutType ?? 'timeout'}) after its retries`);
  }
  const failure = err.cause instanceof TemporalFailure ? err.cause.message : err.message;
  return new ApiError(500, `workflow failed: ${failure}`);
}

/** Maps anything thrown while starting or awaiting a workflow. */
export function temporalErrorToApiError(err: unknown, operation: string): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof WorkflowFailedError) return workflowFailureToApiError(err);
  if (isGrpcDeadlineError(err) || isGrpcCancelledError(err) || (err as Error)?.name === 'AbortError') {
    return new ApiError(
      408,
      `${operation} did not finish before the request deadline; work that was accepted continues`,
    );
  }
  // The service's own error goes along as the cause: the API log shows it, the client never does.
  if (serviceDown(err))
    return Object.assign(
      new ApiError(503, 'the workflow service is unavailable').because('dependency_unavailable', 'temporal'),
      {
        cause: err,
      },
    );
  return new ApiError(500, `${operation} failed: ${(err as Error)?.message ?? String(err)}`);
}

/**
 * Whether the workflow service itself failed: unreachable, answering with a code of
 * SERVICE_DOWN_CODES (the client wraps the gRPC error as the cause of its own), or not knowing its
 * namespace (a dev server whose store failed under it).
 */
function serviceDown(err: unknown): boolean {
  // A gRPC error that reaches us unwrapped comes from the connection itself.
  if (isGrpcServiceError(err)) return true;
  for (const cause of causes(err)) {
    if (cause instanceof NamespaceNotFoundError) return true;
    if (isGrpcServiceError(cause) && SERVICE_DOWN_CODES.has(cause.code)) return true;
  }
  return /UNAVAILABLE|ECONNREFUSED|Connection refused/i.test(String((err as Error)?.message));
}
