import type { Middleware } from 'koa';
import type { AuthState } from './auth';
import { tooManyRequests } from '../errors';

export interface RateLimitOptions {
  /** Requests per key per window. */
  max: number;
  windowMs: number;
}

/**
 * A fixed-window limit per API key, in this process's memory (several instances each apply it).
 * Over the limit: 429 with Retry-After in seconds.
 */
export function rateLimit(o: RateLimitOptions): Middleware {
  const windows = new Map<string, { start: number; count: number }>();
  return async function rateLimitMiddleware(ctx, next) {
    const key = (ctx.state.auth as AuthState).keyId;
    const now = Date.now();
    let w = windows.get(key);
    if (!w || now - w.start >= o.windowMs) {
      if (windows.size > 100_000) windows.clear();
      w = { start: now, count: 0 };
      windows.set(key, w);
    }
    w.count += 1;
    if (w.count > o.max) throw tooManyRequests(Math.max(1, Math.ceil((w.start + o.windowMs - now) / 1000)));
    await next();
  };
}
