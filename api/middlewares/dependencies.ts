import type { Middleware } from 'koa';
import type { DependencyHealth, DependencyName } from '../dependency-health';

/**
 * 503 with Retry-After, before any work, when a dependency the operation needs is known down
 * (api/dependency-health.ts): a client learns it in milliseconds instead of at its deadline.
 */
export function dependenciesUp(health: DependencyHealth, needs: readonly DependencyName[]): Middleware {
  return async function dependenciesUpMiddleware(ctx, next) {
    health.requireUp(needs);
    await next();
  };
}
