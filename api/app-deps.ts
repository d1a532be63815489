/**
 * What the API application is built from: its dependencies (AppDeps), its limits, and what each route receives.
 * Kept apart from app.ts, the composition root, so routes and settings import these types without importing the
 * application that imports them (no import cycle).
 */
import type { TokenMeter } from '../domain/models/token-meter';
import type { UseCaseStore } from '../domain/evaluation/use-cases';
import type { ChatGateway } from '../domain/models/chat';
import type { SharingEmbedder } from '../domain/models/embeddings';
import type { CpuPool } from '../domain/cpu/pool';
import type { KeyVerifier } from './middlewares/auth';
import type { FairAdmissionOptions } from './middlewares/fair-admission';
import type { SharedWindowCounter } from './rate-limiter';
import type { Logger } from './logger';
import type { ReadinessReport } from './readiness';
import type { DependencyHealth } from './dependency-health';
import type { ReadRunner } from './read-path';
import type { WorkflowRunner } from './workflow-runner';
import type { AnsweredAsks } from './ask-runtime';
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
  /** Answers of asks this process's ask worker ran, as they end (ask-runtime/); without it asks wait for the server. */
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
