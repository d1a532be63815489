import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../logger';
import type { RequestState } from '../request-state';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives every request an id (the client's X-Request-Id when it is sane, else a new one), returns
 * it in the X-Request-Id header, and logs one line per request with a child logger carrying it (with
 * the message of a client error, which is logged nowhere else).
 */
export function requestContext(logger: Logger): Middleware<RequestState> {
  return async function requestContextMiddleware(ctx, next) {
    const given = ctx.get('X-Request-Id');
    const requestId = REQUEST_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ requestId });
    ctx.set('X-Request-Id', requestId);
    // No response may be sniffed into another media type than the one it declares.
    ctx.set('X-Content-Type-Options', 'nosniff');
    const started = Date.now();
    try {
      await next();
    } finally {
      const { auth, errorMessage } = ctx.state;
      ctx.state.log.info(
        {
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          ms: Date.now() - started,
          tenant: auth?.tenant,
          error: errorMessage,
        },
        'request',
      );
    }
  };
}
