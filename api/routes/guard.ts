/**
 * The middleware chain every operation runs before its handler, in order: authenticate the key,
 * check the operation's scope, apply the key's rate limit, set the deadline, validate the input.
 */
import compose from 'koa-compose';
import type { Middleware } from 'koa';
import type { ApiLimits } from '../app';
import { KeyVerifier, authenticate, requireScope } from '../middlewares/auth';
import { deadline } from '../middlewares/deadline';
import { validate } from '../middlewares/validate';
import type { Operation } from '../schemas/operations';

export type DeadlineKind = keyof ApiLimits['deadlines'];

export interface GuardDeps {
  verifier: KeyVerifier;
  limits: ApiLimits;
  rateLimiter: Middleware;
}

export function guard(deps: GuardDeps, op: Operation, deadlineKind: DeadlineKind, ...extra: Middleware[]): Middleware {
  return compose([
    authenticate(deps.verifier),
    requireScope(op.scope),
    deps.rateLimiter,
    ...extra,
    deadline(deps.limits.deadlines[deadlineKind]),
    validate(op) as Middleware,
  ]);
}
