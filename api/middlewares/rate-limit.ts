import type { Middleware } from 'koa';
import { ApiError, tooManyRequests } from '../errors';
import type { SharedWindowCounter } from '../rate-limiter';
import type { AuthenticatedState } from '../request-state';

/**
 * The per-key limit: `max` requests per window for each API key, counted across every API
 * instance that shares the counter's store (api/rate-limiter.ts). Over it: 429 with Retry-After.
 */
export function rateLimit(o: { max: number; counter: SharedWindowCounter }): Middleware<AuthenticatedState> {
  return async function rateLimitMiddleware(ctx, next) {
    const { total, retryAfterSeconds } = await o.counter.add(`key:${ctx.state.auth.keyId}`);
    if (total > o.max) throw tooManyRequests(retryAfterSeconds);
    await next();
  };
}

/**
 * The limit on failed authentications per client address. Only failures are throttled: every
 * request carrying a key is still checked, and a valid key goes on whatever its address did. A
 * request with an unknown or revoked key is counted for its address; once the address has sent
 * more than `max` of them in a window, each further one gets 429 (with Retry-After) instead of 401,
 * until the window ends. Requests without a key are answered 401 and not counted.
 *
 * Decision (docs/api.md, "Rate limits"): the look-up goes on past the limit, since only a look-up
 * tells a valid key (which must never be refused for what others sent from its address, behind
 * the same proxy or NAT) from an invalid one. It costs the key store one read by id, cached with
 * the key; and what it tells (valid or not) is what a 401 told below the limit: keys are 192 random
 * bits, which no rate of guessing reaches.
 */
export function authFailureLimit(o: { max: number; counter: SharedWindowCounter }): Middleware {
  return async function authFailureLimitMiddleware(ctx, next) {
    if (!/^Bearer\s/i.test(ctx.get('Authorization'))) return next();
    try {
      await next();
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 401) throw err;
      const { total, retryAfterSeconds } = await o.counter.add(`ip:${ctx.ip}`);
      if (total > o.max)
        throw tooManyRequests(retryAfterSeconds, 'too many requests with invalid API keys from this address').because(
          'auth_failures',
        );
      throw err;
    }
  };
}
