/**
 * The middleware chain every operation runs before its handler, in order: authenticate the key,
 * check the operation's scope, apply the key's rate limit, set the deadline, validate the input,
 * and for searches wait for the tenant's turn (fair-admission.ts; one queue per app).
 */
import compose from 'koa-compose';
import type { Middleware } from 'koa';
import type { ApiLimits } from '../app';
import { KeyVerifier, authenticate, requireScope } from '../middlewares/auth';
import { positiveEnv } from '../../activities/config';
import { deadline } from '../middlewares/deadline';
import { FairQueue, fairAdmission } from '../middlewares/fair-admission';
import { validate } from '../middlewares/validate';
import type { Operation } from '../schemas/operations';

export type DeadlineKind = keyof ApiLimits['deadlines'];

export interface GuardDeps {
  verifier: KeyVerifier;
  limits: ApiLimits;
  rateLimiter: Middleware;
}

const searchQueues = new WeakMap<GuardDeps, FairQueue>();

/** The search admission queue of one app (its route deps), sized from the environment. */
function searchQueue(deps: GuardDeps): FairQueue {
  let queue = searchQueues.get(deps);
  if (!queue) {
    queue = new FairQueue({
      maxInFlight: positiveEnv(process.env, 'SEARCH_MAX_IN_FLIGHT', 4),
      maxInFlightPerTenant: positiveEnv(process.env, 'SEARCH_MAX_IN_FLIGHT_PER_TENANT', 4),
      maxInFlightShared: positiveEnv(process.env, 'SEARCH_MAX_IN_FLIGHT_SHARED', 1),
      maxQueuedPerTenant: positiveEnv(process.env, 'SEARCH_MAX_QUEUED_PER_TENANT', 20),
    });
    searchQueues.set(deps, queue);
  }
  return queue;
}

export function guard(deps: GuardDeps, op: Operation, deadlineKind: DeadlineKind, ...extra: Middleware[]): Middleware {
  return compose([
    authenticate(deps.verifier),
    requireScope(op.scope),
    deps.rateLimiter,
    ...extra,
    deadline(deps.limits.deadlines[deadlineKind]),
    validate(op) as Middleware,
    ...(deadlineKind === 'search' ? [fairAdmission(searchQueue(deps))] : []),
  ]);
}
