import type { Middleware } from 'koa';
import type { AuthState } from './auth';
import { ApiError, tooManyRequests } from '../errors';
import type { SharedWindowCounter } from '../rate-limiter';

/**
 * The per-key limit: `max` requests per window for each API key, counted across every API
 * instance that shares the counter's store (api/rate-limiter.ts). Over it: 429 with Retry-After.
 */
export function rateLimit(o: { max: number; counter: SharedWindowCounter }): Middleware {
  return async function rateLimitMiddleware(ctx, next) {
    const { total, retryAfterSeconds } = await o.counter.add(`key:${(ctx.state.auth as AuthState).keyId}`);
    if (total > o.max) throw tooManyRequests(retryAfterSeconds);
    await next();
  };
}

/**
 * The limit on failed authentications per client address: once an address has sent `max` requests
 * with unknown or revoked keys in a window, its requests carrying a key get 429 until the window
 * ends, without a look-up in the key store. Requests without a key are not counted.
 */
export function authFailureLimit(o: { max: number; counter: SharedWindowCounter }): Middleware {
  return async function authFailureLimitMiddleware(ctx, next) {
    if (!/^Bearer\s/i.test(ctx.get('Authorization'))) return next();
    const subject = `ip:${ctx.ip}`;
    const { total, retryAfterSeconds } = await o.counter.peek(subject);
    if (total >= o.max)
      throw tooManyRequests(retryAfterSeconds, 'too many requests with invalid API keys from this address');
    try {
      await next();
    } catch (err) {
      if (err instanceof ApiError && err.code === 401) await o.counter.add(subject);
      throw err;
    }
  };
}
