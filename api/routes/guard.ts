/**
 * The middleware chain every operation runs before its handler, in order: authenticate the key,
 * check the operation's scope, apply the key's rate limit, set the deadline, validate the input,
 * and for searches wait for the tenant's turn (fair-admission.ts; one queue per app).
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
  /** Fair admission of searches: one queue per app (fair-admission.ts). */
  searchAdmission: Middleware;
}

export function guard(deps: GuardDeps, op: Operation, deadlineKind: DeadlineKind, ...extra: Middleware[]): Middleware {
  return compose([
    authenticate(deps.verifier),
    requireScope(op.scope),
    deps.rateLimiter,
    ...extra,
    deadline(deps.limits.deadlines[deadlineKind]),
    validate(op) as Middleware,
    ...(deadlineKind === 'search' ? [deps.searchAdmission] : []),
  ]);
}
