/**
 * The API's own settings, read once from the environment at start (docs/api.md, "Limits").
 */
import { positiveEnv } from '../domain/config';
import { TAG_TRAINER, type TagTrainerTiming } from '../workflows/tag-training';
import { ApiLimits, DEFAULT_LIMITS } from './app';
import type { FairAdmissionOptions } from './middlewares/fair-admission';

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
