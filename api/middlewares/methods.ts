import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { methodNotAllowed } from '../errors';

/**
 * Runs after the router when no route took the request. A path the API serves, asked with another
 * method, gets 405 with `Allow`; OPTIONS on such a path gets 204 with `Allow` and no body. Unknown
 * paths fall through to the error handler's 404.
 */
export function allowedMethods(router: Router): Middleware {
  return async function allowedMethodsMiddleware(ctx, next) {
    const layers = router.match(ctx.path, ctx.method).path.filter((layer) => layer.methods.length > 0);
    if (layers.length === 0) return next();
    const allow = [...new Set([...layers.flatMap((layer) => layer.methods), 'OPTIONS'])];
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      ctx.set('Allow', allow.join(', '));
      return;
    }
    throw methodNotAllowed(ctx.method, ctx.path, allow);
  };
}
