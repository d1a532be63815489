/**
 * The middleware chain every operation runs before its handler, in order: answer 503 at once when
 * a dependency the operation needs is known down (dependency-health.ts), authenticate the key,
 * check the operation's scope, apply the key's rate limit and the tenant's model-token budget, set the deadline, run the route's own
 * checks (an article search's business id, bounded by the deadline), read the JSON body, validate
 * the input, and for searches wait for the tenant's turn (fair-admission.ts; one queue per app).
 *
 * The body is read only once the key, its scope and its limits have let the request through
 * (headers only): a request refused before never costs the memory of its body (docs/api.md,
 * "Request pipeline").
 */
import compose from 'koa-compose';
import type { Middleware } from 'koa';
import type { ApiLimits } from '../app-deps';
import { KeyVerifier, authenticate, requireScope } from '../middlewares/auth';
import { isReadBodyOperation } from '../../domain/contracts/read-body';
import { jsonBody } from '../middlewares/body';
import { deadline, earlyDeadline } from '../middlewares/deadline';
import { validate } from '../middlewares/validate';
import type { Operation } from '../schemas/operations';
import type { DependencyHealth, DependencyName } from '../dependency-health';
import { dependenciesUp } from '../middlewares/dependencies';

export type DeadlineKind = keyof ApiLimits['deadlines'];

export interface GuardDeps {
  verifier: KeyVerifier;
  limits: ApiLimits;
  rateLimiter: Middleware;
  /** Fair admission of searches: one queue per app (fair-admission.ts). */
  searchAdmission: Middleware;
  /** Which dependencies are up; without it every request goes ahead. */
  health?: DependencyHealth;
  /** The tenants' daily budget of model tokens, for the operations a model answers. */
  modelBudget?: Middleware;
}

/** The operations a configured chat model answers, which spend the tenant's tokens. */
const USES_MODEL = new Set(['ask', 'summarize', 'tagConversation', 'analyzeSentiment', 'evaluate']);

/**
 * What each operation cannot answer without, beyond the key store (checked by the key look-up
 * itself, and only when the key is not cached). Summary needs nothing more: a summary of the text
 * sent is computed in this process.
 */
const NEEDS: Record<string, readonly DependencyName[]> = {
  ask: ['temporal', 'weaviate', 'embeddings'],
  summarize: [],
  sendFeedback: ['temporal', 'weaviate'],
  tagConversation: ['weaviate', 'embeddings'],
  analyzeSentiment: ['embeddings'],
  uploadArticles: ['temporal', 'weaviate', 'embeddings'],
  deleteArticles: ['temporal', 'weaviate'],
  uploadCases: ['temporal', 'weaviate', 'embeddings'],
  uploadIncident: ['temporal', 'weaviate', 'embeddings'],
  searchCases: ['weaviate', 'embeddings'],
  searchArticles: ['weaviate', 'embeddings'],
  evaluate: ['temporal'],
};

export function guard(deps: GuardDeps, op: Operation, deadlineKind: DeadlineKind, ...extra: Middleware[]): Middleware {
  return compose([
    ...(deps.health
      ? [dependenciesUp(deps.health, NEEDS[op.operationId] ?? ['temporal', 'weaviate', 'embeddings'])]
      : []),
    authenticate(deps.verifier, (ctx) => earlyDeadline(ctx, deps.limits.deadlines[deadlineKind])),
    requireScope(op.scope),
    deps.rateLimiter,
    ...(deps.modelBudget && USES_MODEL.has(op.operationId) ? [deps.modelBudget] : []),
    deadline(deps.limits.deadlines[deadlineKind]),
    ...extra,
    // A large body of an upload, summary, sentiment or tag is read on a CPU thread by its handler
    // (upload-route.ts, read-route.ts).
    ...(op.body || op.bodyEnvelope
      ? [jsonBody({ offload: Boolean(op.bodyEnvelope) || isReadBodyOperation(op.operationId) })]
      : []),
    validate(op) as Middleware,
    ...(deadlineKind === 'search' ? [deps.searchAdmission] : []),
  ]);
}
