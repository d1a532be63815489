/**
 * The API's own settings, read once from the environment at start (docs/api.md, "Limits").
 */
import { positiveEnv } from '../domain/config';
import type { CpuPoolOptions } from '../domain/cpu/pool';
import { TAG_TRAINER, type TagTrainerTiming } from '../workflows/tag-training';
import { type ApiLimits, DEFAULT_LIMITS } from './app-deps';
import type { FairAdmissionOptions } from './middlewares/fair-admission';
import { DEFAULT_RECEIVE_TIMEOUT_MS } from './http-server';

/** Tag-trainer timing overrides (workflows/tag-training.ts), for tests and operators. */
export function loadTagTrainerTiming(env: NodeJS.ProcessEnv = process.env): Partial<TagTrainerTiming> {
  const timing: Partial<TagTrainerTiming> = {};
  if (env.TAG_TRAINING_DEBOUNCE_MS)
    timing.debounceMs = positiveEnv(env, 'TAG_TRAINING_DEBOUNCE_MS', TAG_TRAINER.debounceMs);
  if (env.TAG_TRAINING_MAX_DELAY_MS)
    timing.maxDelayMs = positiveEnv(env, 'TAG_TRAINING_MAX_DELAY_MS', TAG_TRAINER.maxDelayMs);
  if (env.TAG_TRAINING_INTERVAL_MS)
    timing.intervalMs = positiveEnv(env, 'TAG_TRAINING_INTERVAL_MS', TAG_TRAINER.intervalMs);
  return timing;
}

/** An admission queue's limits from `<PREFIX>_MAX_IN_FLIGHT`, `…_PER_TENANT`, `…_SHARED` and `<PREFIX>_MAX_QUEUED_PER_TENANT`. */
function admissionLimits(env: NodeJS.ProcessEnv, prefix: string, d: FairAdmissionOptions): FairAdmissionOptions {
  return {
    maxInFlight: positiveEnv(env, `${prefix}_MAX_IN_FLIGHT`, d.maxInFlight),
    maxInFlightPerTenant: positiveEnv(env, `${prefix}_MAX_IN_FLIGHT_PER_TENANT`, d.maxInFlightPerTenant),
    maxInFlightShared: positiveEnv(env, `${prefix}_MAX_IN_FLIGHT_SHARED`, d.maxInFlightShared ?? 1),
    maxQueuedPerTenant: positiveEnv(env, `${prefix}_MAX_QUEUED_PER_TENANT`, d.maxQueuedPerTenant),
  };
}

/**
 * RATE_LIMIT_MAX_UNSYNCED: requests of one key an API instance counts between two syncs of the
 * shared counts (api/rate-limiter.ts); by default a twentieth of the per-key limit (30 of 600), so
 * N instances accept at most the limit plus (N − 1) twentieths of it.
 */
export function rateLimitMaxUnsynced(env: NodeJS.ProcessEnv = process.env): number {
  const perMinute = positiveEnv(env, 'RATE_LIMIT_PER_MINUTE', DEFAULT_LIMITS.rateLimitPerMinute);
  return positiveEnv(env, 'RATE_LIMIT_MAX_UNSYNCED', Math.max(1, Math.floor(perMinute / 20)));
}

/** REQUEST_RECEIVE_TIMEOUT_MS: how long a request may take to arrive, headers and body (api/http-server.ts). */
export const receiveTimeoutMs = (env: NodeJS.ProcessEnv = process.env): number =>
  positiveEnv(env, 'REQUEST_RECEIVE_TIMEOUT_MS', DEFAULT_RECEIVE_TIMEOUT_MS);

export function loadApiLimits(env: NodeJS.ProcessEnv = process.env): ApiLimits {
  const d = DEFAULT_LIMITS.deadlines;
  return {
    rateLimitPerMinute: positiveEnv(env, 'RATE_LIMIT_PER_MINUTE', DEFAULT_LIMITS.rateLimitPerMinute),
    authFailuresPerMinute: positiveEnv(env, 'AUTH_FAILURES_PER_MINUTE', DEFAULT_LIMITS.authFailuresPerMinute),
    searchAdmission: admissionLimits(env, 'SEARCH', DEFAULT_LIMITS.searchAdmission),
    askAdmission: admissionLimits(env, 'ASK', DEFAULT_LIMITS.askAdmission),
    deadlines: {
      upload: positiveEnv(env, 'DEADLINE_UPLOAD_MS', d.upload),
      search: positiveEnv(env, 'DEADLINE_SEARCH_MS', d.search),
      model: positiveEnv(env, 'DEADLINE_MODEL_MS', d.model),
    },
    tokensPerTenantPerDay: env.CHAT_TOKENS_PER_DAY ? positiveEnv(env, 'CHAT_TOKENS_PER_DAY', 1) : undefined,
  };
}

/**
 * The API's CPU threads for the reads' work on tenant text (domain/cpu/read-tasks.ts; docs/api.md,
 * "Input limits"). The budget stays under a read attempt's 5 s (api/read-path.ts), so a task past
 * it answers 400 rather than being retried as a timeout; the bounded algorithms take well under a
 * second.
 */
export const DEFAULT_API_CPU = { threads: 2, budgetMs: 3000, maxQueuedPerTenant: 16 };

/** API_CPU_THREADS and API_CPU_BUDGET_MS, checked like every positive setting. */
export function loadApiCpu(env: NodeJS.ProcessEnv = process.env): CpuPoolOptions {
  return {
    tasks: 'read',
    warm: true,
    threads: positiveEnv(env, 'API_CPU_THREADS', DEFAULT_API_CPU.threads),
    budgetMs: positiveEnv(env, 'API_CPU_BUDGET_MS', DEFAULT_API_CPU.budgetMs),
    maxQueuedPerTenant: DEFAULT_API_CPU.maxQueuedPerTenant,
  };
}
