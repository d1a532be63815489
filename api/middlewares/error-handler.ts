import type { Middleware } from 'koa';
import { ApiError, ErrorStatus, STATUS_NAMES, errorBody } from '../errors';

/** Seconds a client is asked to wait after a 503 (the circuit breakers' probes take 0.5 s each). */
export const RETRY_AFTER_503_S = 5;

/** What the JSON body parser's own errors mean, in words a client can act on. */
function bodyParserMessage(err: { message?: string }): string {
  const message = err.message ?? '';
  if (message.includes('forbidden prototype property')) return 'request body must not use the key "__proto__"';
  if (message.includes('only supports object and array')) return 'request body must be a JSON object';
  return 'request body is not valid JSON';
}

/**
 * Errors thrown by Koa and the body parser carry a status; those are client errors we answer with
 * the error body. The parser's own texts are never passed on as they are.
 */
function fromHttpError(thrown: unknown): ApiError | undefined {
  if (typeof thrown !== 'object' || thrown === null) return undefined;
  const err: { status?: unknown; statusCode?: unknown; body?: unknown; expose?: unknown; message?: string } = thrown;
  const status = Number(err.status ?? err.statusCode);
  if (!(status in STATUS_NAMES) || status >= 500) return undefined;
  if (status === 413) return new ApiError(413, 'request body exceeds the limit of 10 MB');
  if (status === 415)
    return new ApiError(415, 'unsupported Content-Encoding or charset; use gzip, deflate, br or identity, and UTF-8');
  // The JSON body parser marks its syntax errors with the raw body.
  if (status === 400 && err.body !== undefined) return new ApiError(400, bodyParserMessage(err));
  return new ApiError(
    status as ErrorStatus,
    err.expose && err.message !== undefined ? err.message : STATUS_NAMES[status as ErrorStatus],
  );
}

/**
 * The first middleware after the request context: renders every error as `{error, code, status}`.
 * Client errors (4xx) are logged at info by the request line, with their
 * message and no stack; server errors at error with the stack. A 500 is masked: nothing internal
 * reaches the client.
 */
export function errorHandler(): Middleware {
  return async function errorHandlerMiddleware(ctx, next) {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined)
        throw new ApiError(404, `no route for ${ctx.method} ${ctx.path}`);
    } catch (err) {
      const known = err instanceof ApiError ? err : fromHttpError(err);
      const apiError = known ?? new ApiError(500, 'internal error');
      if (apiError.code >= 500) ctx.state.log?.error({ err }, 'request failed');
      else ctx.state.errorMessage = apiError.message;
      ctx.status = apiError.code;
      ctx.state.rejection = apiError.rejection;
      ctx.set(apiError.headers);
      // Every 503 is worth retrying later: say when, whichever step found the dependency down.
      if (apiError.code === 503 && !apiError.headers['Retry-After']) ctx.set('Retry-After', String(RETRY_AFTER_503_S));
      ctx.body = apiError.expose
        ? apiError.toBody()
        : errorBody(500, `internal error (request id ${ctx.state.requestId})`);
    }
  };
}
