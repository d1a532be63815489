import type { Middleware } from 'koa';
import { ApiError, ErrorStatus, STATUS_NAMES, errorBody } from '../errors';

/** Errors thrown by Koa and its body parser carry a status; those are client errors we expose. */
function fromHttpError(err: any): ApiError | undefined {
  const status = Number(err?.status ?? err?.statusCode);
  if (!(status in STATUS_NAMES) || status >= 500) return undefined;
  if (status === 413) return new ApiError(413, 'request body exceeds the limit of 10 MB');
  // The JSON body parser marks its syntax errors with the raw body.
  if (status === 400 && err?.body !== undefined) return new ApiError(400, 'request body is not valid JSON');
  return new ApiError(status as ErrorStatus, err.expose ? err.message : STATUS_NAMES[status as ErrorStatus]);
}

/**
 * The first middleware: renders every error as `{error, code, status}`. Unknown errors become a
 * masked 500 and are logged with the request id; nothing internal reaches the client.
 */
export function errorHandler(): Middleware {
  return async function errorHandlerMiddleware(ctx, next) {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new ApiError(404, `no route for ${ctx.method} ${ctx.path}`);
      if (ctx.status === 405 && ctx.body === undefined) throw new ApiError(400, `${ctx.method} is not allowed on ${ctx.path}`);
    } catch (err) {
      const known = err instanceof ApiError ? err : fromHttpError(err);
      if (!known || known.code >= 500) ctx.state.log?.error({ err }, 'request failed');
      const apiError = known ?? new ApiError(500, 'internal error');
      ctx.status = apiError.code;
      ctx.set(apiError.headers);
      ctx.body = apiError.expose ? apiError.toBody() : errorBody(500, `internal error (request id ${ctx.state.requestId})`);
    }
  };
}
