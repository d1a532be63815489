import type { Context, Middleware } from 'koa';
import { badRequest, requestTimeout } from '../errors';

/** Whether a deadline (epoch ms) has passed: a deadline of now has. */
export const deadlinePassed = (deadline: number): boolean => Date.now() >= deadline;

/**
 * Sets ctx.state.deadline (epoch ms): the endpoint's default, or sooner when the client sends
 * `Request-Timeout: <seconds>`. A later deadline than the default is not granted.
 *
 * One rule for every endpoint (docs/api.md, "Deadlines"): an answer that is ready only once the
 * deadline has passed is a 408, whatever it would have been. The runners check it where they
 * wait (a read is not started past its deadline, a workflow's late result is a 408 that keeps
 * an upload's rejected items); this check after the handler catches what no runner saw, such as
 * work done without waiting at all. The deadline is not rounded: a value too small to be
 * measured in milliseconds (`5e-324`) is a deadline of now, so every endpoint answers 408.
 */
export function deadline(defaultMs: number): Middleware {
  return async function deadlineMiddleware(ctx, next) {
    const ms = requestedMs(ctx, defaultMs);
    if (ms === undefined)
      throw badRequest('header Request-Timeout must be a positive decimal number of seconds, such as 30 or 2.5');
    const at = Date.now() + ms;
    ctx.state.deadline = at;
    await next();
    if (ctx.status < 300 && deadlinePassed(at))
      throw requestTimeout('the request deadline passed before the answer was ready');
  };
}

/**
 * The one form `Request-Timeout` takes: a decimal number as JSON writes one (`30`, `2.5`, `5e-324`).
 * Other forms `Number()` would read (`0x10`, `0b1`, `0o7`, `.5`, `1.`) are refused.
 */
const DECIMAL_SECONDS = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/** The time the request may take, in ms: the default, or a shorter `Request-Timeout`; undefined when the header is invalid. */
function requestedMs(ctx: Context, defaultMs: number): number | undefined {
  if (ctx.headers['request-timeout'] === undefined) return defaultMs;
  const text = ctx.get('Request-Timeout').trim();
  if (!DECIMAL_SECONDS.test(text)) return undefined;
  const seconds = Number(text);
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(defaultMs, seconds * 1000) : undefined;
}

/**
 * The deadline (epoch ms) of a request before the deadline middleware has run, for the steps that
 * come first (the key look-up): an invalid header counts as absent here, and gets its 400 later.
 */
export const earlyDeadline = (ctx: Context, defaultMs: number): number =>
  Date.now() + (requestedMs(ctx, defaultMs) ?? defaultMs);
