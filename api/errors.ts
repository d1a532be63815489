/**
 * The one error model of the API. Every failure a client sees is an ApiError rendered as
 * `{error, code, status}` (docs/api.md, "Errors"). Messages are written for the client, except
 * 500, which the error handler logs and masks.
 */

import { STATUS_NAMES } from '../domain/contracts/error';
import { BodyError } from '../domain/contracts/json-body';
import type { DependencyLabel, RejectionReason } from '../domain/observability/metrics';

export { STATUS_NAMES };

export type ErrorStatus = keyof typeof STATUS_NAMES;

export interface ErrorBody {
  error: string;
  code: number;
  status: string;
}

export class ApiError extends Error {
  readonly code: ErrorStatus;
  /** Extra response headers, e.g. Retry-After on 429. */
  readonly headers: Record<string, string>;
  /** Why a 408, 429 or 503 refused the request, for the metrics (api/middlewares/request-metrics.ts). */
  rejection?: { reason: RejectionReason; dependency?: DependencyLabel };

  constructor(code: ErrorStatus, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.headers = headers;
  }

  /** Says why the request was refused (`supportai_admission_rejections_total`); returns the error. */
  because(reason: RejectionReason, dependency?: DependencyLabel): this {
    this.rejection = { reason, dependency };
    return this;
  }

  /** Whether the message may be shown to the client: all but 500, whose text may carry internals. */
  get expose(): boolean {
    return this.code !== 500;
  }

  toBody(): ErrorBody {
    return { error: this.message, code: this.code, status: STATUS_NAMES[this.code] };
  }
}

export const badRequest = (message: string) => new ApiError(400, message);
export const unauthenticated = (message = 'missing or invalid API key') => new ApiError(401, message);
export const forbidden = (message: string) => new ApiError(403, message);
export const notFound = (message: string) => new ApiError(404, message);
export const requestTimeout = (message: string) => new ApiError(408, message);
export const methodNotAllowed = (method: string, path: string, allow: string[]) =>
  new ApiError(405, `${method} is not allowed on ${path}; allowed: ${allow.join(', ')}`, { Allow: allow.join(', ') });
export const payloadTooLarge = (message: string) => new ApiError(413, message);
export const unsupportedMediaType = (message: string) => new ApiError(415, message);
export const tooManyRequests = (retryAfterSeconds: number, reason = 'rate limit exceeded') =>
  new ApiError(429, `${reason}; retry after ${retryAfterSeconds} s`, {
    'Retry-After': String(retryAfterSeconds),
  });
export const internal = (message = 'internal error') => new ApiError(500, message);
export const unavailable = (message: string) => new ApiError(503, message);
export const dependencyTimeout = (message: string) => new ApiError(504, message);

/** Runs `step` of reading a body (domain/contracts/json-body.ts), its BodyError turned into the same ApiError. */
export function bodyStep<T>(step: () => T): T {
  try {
    return step();
  } catch (err) {
    if (err instanceof BodyError) throw new ApiError(err.status, err.message);
    throw err;
  }
}

/** The body for any status, used by the handler for errors that are not ApiErrors. */
export function errorBody(code: ErrorStatus, message: string): ErrorBody {
  return new ApiError(code, message).toBody();
}
