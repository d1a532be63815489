/**
 * The API's own settings, read once from the environment at start (docs/api.md, "Limits").
 */
import { ApiLimits, DEFAULT_LIMITS } from './app';

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
}

export function loadApiLimits(env: NodeJS.ProcessEnv = process.env): ApiLimits {
  const d = DEFAULT_LIMITS.deadlines;
  return {
    rateLimitPerMinute: positive(env, 'RATE_LIMIT_PER_MINUTE', DEFAULT_LIMITS.rateLimitPerMinute),
    deadlines: {
      upload: positive(env, 'DEADLINE_UPLOAD_MS', d.upload),
      search: positive(env, 'DEADLINE_SEARCH_MS', d.search),
      model: positive(env, 'DEADLINE_MODEL_MS', d.model),
    },
  };
}
