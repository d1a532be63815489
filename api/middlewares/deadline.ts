import type { Middleware } from 'koa';
import { badRequest } from '../errors';

/**
 * Sets ctx.state.deadline (epoch ms): the endpoint's default, or sooner when the client sends
 * `Request-Timeout: <seconds>`. A later deadline than the default is not granted.
 */
export function deadline(defaultMs: number): Middleware {
  return async function deadlineMiddleware(ctx, next) {
    const present = ctx.headers['request-timeout'] !== undefined;
    const header = ctx.get('Request-Timeout').trim();
    let ms = defaultMs;
    if (present) {
      const seconds = Number(header);
      if (!Number.isFinite(seconds) || seconds <= 0) throw badRequest('header Request-Timeout must be a positive number of seconds');
      // Whole milliseconds, rounded up, so timers take it and a tiny positive value stays positive.
      ms = Math.min(defaultMs, Math.ceil(seconds * 1000));
    }
    ctx.state.deadline = Date.now() + ms;
    await next();
  };
}
