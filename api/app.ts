/**
 * createApp(deps): the Koa application without listening, so tests and the server share it.
 */
import type { TokenMeter } from '../domain/models/token-meter';
import Koa from 'koa';
import type { UseCaseStore } from '../domain/evaluation/use-cases';
import type { ChatGateway } from '../domain/models/chat';
import type { SharingEmbedder } from '../domain/models/embeddings';
import type { CpuPool } from '../domain/cpu/pool';
import type { KeyVerifier } from './middlewares/auth';
import { errorHandler } from './middlewares/error-handler';
import type { FairAdmissionOptions } from './middlewares/fair-admission';
import { allowedMethods } from './middlewares/methods';
import { authFailureLimit } from './middlewares/rate-limit';
import { SharedWindowCounter } from './rate-limiter';
import { requestContext } from './middlewares/request-context';
import type { Logger } from './logger';
import type { ReadinessReport } from './readiness';
import type { DependencyHealth } from './dependency-health';
import { createRouter } from './routes';
import type { ReadRunner } from './read-path';
import type { WorkflowRunner } from './workflow-runner';
import type { AnsweredAsks } from './answered-asks';
import type { TagTrainerTiming } from '../workflows/tag-training';

export interface ApiLimits {
  /** Requests per key per minute, across the instances sharing a rate counter store. */
  rateLimitPerMinute: number;
  /** Requests with an invalid key per client address per minute; the invalid ones beyond get 429 (valid keys never do). */
  authFailuresPerMinute: number;
  /** How many searches run at once, per tenant and in all (api/middlewares/fair-admission.ts). */
  searchAdmission: FairAdmissionOptions;
  /**
   * How many asks run at once. An ask holds its place for its whole execution, about half of which
   * (at concurrency 1) is Temporal recording and handing back the run, while the embedding server
   * and Weaviate are free: so asks have a queue of their own, with more places.
   */
  askAdmission: FairAdmissionOptions;
  /** Default deadlines per kind of endpoint, in ms. */
  deadlines: { upload: number; search: number; model: number };
  /** Chat-model tokens (prompt and completion) per tenant per UTC day; none: no budget (CHAT_TOKENS_PER_DAY). */
  tokensPerTenantPerDay?: number;
}

export const DEFAULT_LIMITS: ApiLimits = {
  rateLimitPerMinute: 600,
  authFailuresPerMinute: 30,
  searchAdmission: { maxInFlight: 4, maxInFlightPerTenant: 4, maxInFlightShared: 1, maxQueuedPerTenant: 20 },
  askAdmission: { maxInFlight: 16, maxInFlightPerTenant: 16, maxInFlightShared: 4, maxQueuedPerTenant: 20 },
  deadlines: { upload: 120_000, search: 15_000, model: 60_000 },
};

export interface AppDeps {
  runner: WorkflowRunner;
  /** Answers of asks this process's ask worker ran, as they end (answered-asks.ts); without it asks wait for the server. */
  answered?: AnsweredAsks;
  /**
   * Begins embedding an ask's question as its execution starts, for the retrieval step that this
   * process's ask worker runs (domain/models/embeddings.ts, withSharedQueries).
   */
  prefetchQuery?: SharingEmbedder['prefetch'];
  /** The chat model, or the built-in local engine; `chatTimeoutMs` bounds one model call. */
  chat: ChatGateway;
  chatTimeoutMs: number;
  /** What answers when the model fails a request (CHAT_FALLBACK): the built-in engine, or nobody (503/504). Default none. */
  chatFallback?: 'local' | 'none';
  /** This process's count of the model's tokens, for the tenants' daily budget (api/middlewares/token-budget.ts). */
  tokens?: Pick<TokenMeter, 'spentToday'>;
  /** Use cases of evaluation (rules per use case), from the operators' YAML files. */
  useCases: UseCaseStore;
  /** Runs searches in this process, with their timeouts and retries. */
  reads: ReadRunner;
  verifier: KeyVerifier;
  readiness: () => Promise<ReadinessReport>;
  /** Which dependencies are up (circuit breakers): requests that need one that is down answer 503 at once. */
  health?: DependencyHealth;
  logger: Logger;
  limits?: Partial<ApiLimits>;
  /** Request counts per minute, shared across instances when it has a store; else per instance. */
  rateCounter?: SharedWindowCounter;
  /** Take the client address from X-Forwarded-For, its last entry (only behind a proxy that appends it). */
  trustProxy?: boolean;
  /** Overrides of the tag trainer's debounce and intervals, passed with each case upload. */
  tagTraining?: Partial<TagTrainerTiming>;
  /**
   * The API's CPU threads (API_CPU_THREADS, API_CPU_BUDGET_MS): the reads' work on tenant text
   * (summary, sentiment, tag) runs there, off the event loop. Without it that work runs on the event loop.
   */
  cpu?: CpuPool;
}

export type RouteDeps = Omit<AppDeps, 'limits' | 'logger' | 'rateCounter' | 'trustProxy'> & {
  limits: ApiLimits;
  rateCounter: SharedWindowCounter;
};

export function createApp(deps: AppDeps): Koa {
  // Behind a proxy, only the address the nearest proxy appended counts: a client can put anything before it.
  const app = new Koa({ proxy: deps.trustProxy ?? false, maxIpsCount: 1 });
  const limits = { ...DEFAULT_LIMITS, ...deps.limits };
  const rateCounter = deps.rateCounter ?? new SharedWindowCounter({ windowMs: 60_000 });
  const router = createRouter({
    runner: deps.runner,
    answered: deps.answered,
    prefetchQuery: deps.prefetchQuery,
    reads: deps.reads,
    chat: deps.chat,
    chatTimeoutMs: deps.chatTimeoutMs,
    chatFallback: deps.chatFallback,
    tokens: deps.tokens,
    useCases: deps.useCases,
    tagTraining: deps.tagTraining,
    cpu: deps.cpu,
    verifier: deps.verifier,
    readiness: deps.readiness,
    health: deps.health,
    limits,
    rateCounter,
  });
  app.use(requestContext(deps.logger));
  app.use(errorHandler());
  // No body is read here: the guard of each operation reads it once the key was checked (routes/guard.ts).
  app.use(authFailureLimit({ max: limits.authFailuresPerMinute, counter: rateCounter }));
  app.use(router.routes());
  app.use(allowedMethods(router));
  app.on('error', (err) => deps.logger.error({ err }, 'unhandled application error'));
  return app;
}
