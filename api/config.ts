/**
 * The API's own settings, read once from the environment at start (docs/api.md, "Limits").
 */
import { positiveEnv } from '../domain/config';
import { TAG_TRAINER, type TagTrainerTiming } from '../workflows/tag-training';
import { ApiLimits, DEFAULT_LIMITS } from './app';

/** Tag-trainer timing overrides (workflows/tag-training.ts), for tests and operators. */
export function loadTagTrainerTiming(env: NodeJS.ProcessEnv = process.env): Partial<TagTrainerTiming> {
  const timing: Partial<TagTrainerTiming> = {};
  if (env.TAG_TRAINING_DEBOUNCE_MS) timing.debounceMs = positiveEnv(env, 'TAG_TRAINING_DEBOUNCE_MS', TAG_TRAINER.debounceMs);
  if (env.TAG_TRAINING_MAX_DELAY_MS) timing.maxDelayMs = positiveEnv(env, 'TAG_TRAINING_MAX_DELAY_MS', TAG_TRAINER.maxDelayMs);
  if (env.TAG_TRAINING_INTERVAL_MS) timing.intervalMs = positiveEnv(env, 'TAG_TRAINING_INTERVAL_MS', TAG_TRAINER.intervalMs);
  return timing;
}

export function loadApiLimits(env: NodeJS.ProcessEnv = process.env): ApiLimits {
  const d = DEFAULT_LIMITS.deadlines;
  const a = DEFAULT_LIMITS.searchAdmission;
  return {
    rateLimitPerMinute: positiveEnv(env, 'RATE_LIMIT_PER_MINUTE', DEFAULT_LIMITS.rateLimitPerMinute),
    authFailuresPerMinute: positiveEnv(env, 'AUTH_FAILURES_PER_MINUTE', DEFAULT_LIMITS.authFailuresPerMinute),
    searchAdmission: {
      maxInFlight: positiveEnv(env, 'SEARCH_MAX_IN_FLIGHT', a.maxInFlight),
      maxInFlightPerTenant: positiveEnv(env, 'SEARCH_MAX_IN_FLIGHT_PER_TENANT', a.maxInFlightPerTenant),
      maxInFlightShared: positiveEnv(env, 'SEARCH_MAX_IN_FLIGHT_SHARED', a.maxInFlightShared ?? 1),
      maxQueuedPerTenant: positiveEnv(env, 'SEARCH_MAX_QUEUED_PER_TENANT', a.maxQueuedPerTenant),
    },
    deadlines: {
      upload: positiveEnv(env, 'DEADLINE_UPLOAD_MS', d.upload),
      search: positiveEnv(env, 'DEADLINE_SEARCH_MS', d.search),
      model: positiveEnv(env, 'DEADLINE_MODEL_MS', d.model),
    },
  };
}
