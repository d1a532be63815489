/**
 * Turns errors of the services activities talk to into Temporal failures with stable types,
 * which api/temporal-errors.ts maps to HTTP: DependencyTimeout → 504, DependencyUnavailable → 503,
 * InvalidInput → 400, NotFound → 404. Transient failures stay retryable; the activity's retry
 * policy bounds them.
 */
import { ApplicationFailure } from '@temporalio/common';
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';

export const FAILURE_TYPES = {
  timeout: 'DependencyTimeout',
  unavailable: 'DependencyUnavailable',
  invalid: 'InvalidInput',
  notFound: 'NotFound',
} as const;

const TIMEOUT_NAMES = new Set(['WeaviateRequestTimeoutError', 'TimeoutError', 'AbortError']);
const UNAVAILABLE_NAMES = new Set(['WeaviateGRPCUnavailableError', 'WeaviateStartUpError']);
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE']);

function causeCodes(err: unknown): string[] {
  const codes: string[] = [];
  for (let e: any = err; e && codes.length < 5; e = e.cause) if (typeof e.code === 'string') codes.push(e.code);
  return codes;
}

export function toFailure(err: unknown): unknown {
  if (err instanceof ApplicationFailure) return err;
  const e = err as Error;
  const message = e?.message ?? String(err);
  if (err instanceof APIConnectionTimeoutError || TIMEOUT_NAMES.has(e?.name) || /DEADLINE_EXCEEDED|timed? ?out/i.test(message)) {
    return ApplicationFailure.retryable(message, FAILURE_TYPES.timeout);
  }
  if (err instanceof APIConnectionError || UNAVAILABLE_NAMES.has(e?.name) || causeCodes(err).some((c) => UNAVAILABLE_CODES.has(c)) || /UNAVAILABLE|ECONNREFUSED/.test(message)) {
    return ApplicationFailure.retryable(message, FAILURE_TYPES.unavailable);
  }
  if (err instanceof APIError && typeof err.status === 'number') {
    if (err.status === 429 || err.status >= 500) return ApplicationFailure.retryable(message, FAILURE_TYPES.unavailable);
    return ApplicationFailure.nonRetryable(message, FAILURE_TYPES.invalid);
  }
  return err;
}

/** Wraps an activity so whatever it throws is classified first. */
export function classified<A, R>(fn: (input: A) => Promise<R>): (input: A) => Promise<R> {
  return async (input: A) => {
    try {
      return await fn(input);
    } catch (err) {
      throw toFailure(err);
    }
  };
}
