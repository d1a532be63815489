/**
 * The API process's configuration: its own settings and the services' (domain/config.ts), parsed
 * once at start from the environment (docs/api.md, "Limits"); a bad value stops the start.
 */
import {
  type MetricsConfig,
  SERVICE_SETTINGS,
  type ServiceSettings,
  servicesConfigFrom,
  type ServicesConfig,
} from '../domain/config';
import type { CpuPoolOptions } from '../domain/cpu/pool';
import { flag, int, ms, parseSettings, port, text } from '../domain/settings';
import { TAG_TRAINER, type TagTrainerTiming } from '../workflows/tag-training';
import { type ApiLimits, DEFAULT_LIMITS } from './app-deps';
import { DEFAULT_RECEIVE_TIMEOUT_MS } from './http-server';
import { DEFAULT_SYNC_MS } from './rate-limiter';
import { DEFAULT_WORKER_PRESENCE_WINDOW_MS } from './worker-presence';

/**
 * The API's CPU threads for the reads' work on tenant text (domain/cpu/read-tasks.ts; docs/api.md,
 * "Input limits"). The budget stays under a read attempt's 5 s (api/read-path.ts), so a task past
 * it answers 400 rather than being retried as a timeout; the bounded algorithms take well under a
 * second.
 */
export const DEFAULT_API_CPU = { threads: 2, budgetMs: 3000, maxQueuedPerTenant: 16 };

const search = DEFAULT_LIMITS.searchAdmission;
const ask = DEFAULT_LIMITS.askAdmission;

/** The settings only the API reads (README, the settings tables); the services' come with them. */
export const API_SETTINGS = {
  API_PORT: port({ min: 0, default: 3000, doc: 'Port of the API; 0: any free one' }),
  API_HOST: text({ default: '127.0.0.1', doc: 'Address the API listens on' }),
  API_METRICS_PORT: port({ min: 0, default: 9464, doc: "Port of the API's metrics; 0: none" }),
  API_SDK_METRICS_PORT: port({
    min: 0,
    default: 9465,
    doc: "Port of the Temporal runtime's metrics in the API; 0: none",
  }),
  KEY_CACHE_TTL_MS: ms({ default: 10_000, doc: 'How long API-key and business look-ups are cached' }),
  RATE_LIMIT_PER_MINUTE: int({ default: DEFAULT_LIMITS.rateLimitPerMinute, doc: 'Requests per key per minute' }),
  AUTH_FAILURES_PER_MINUTE: int({
    default: DEFAULT_LIMITS.authFailuresPerMinute,
    doc: 'Requests with invalid keys per client address per minute',
  }),
  RATE_LIMIT_SYNC_MS: ms({ default: DEFAULT_SYNC_MS, doc: 'How often an instance shares its rate-limit counts' }),
  RATE_LIMIT_MAX_UNSYNCED: int({ doc: 'Requests counted between two syncs; none: a twentieth of the limit' }),
  REQUEST_RECEIVE_TIMEOUT_MS: ms({ default: DEFAULT_RECEIVE_TIMEOUT_MS, doc: 'How long a request may take to arrive' }),
  TRUST_PROXY: flag({ default: false, doc: 'Take the client address from X-Forwarded-For' }),
  READ_LOG_FLUSH_MS: ms({ default: 10_000, doc: "How often search counts go to the tenants' read logs" }),
  DEADLINE_UPLOAD_MS: ms({ default: DEFAULT_LIMITS.deadlines.upload, doc: 'Default deadline of uploads' }),
  DEADLINE_SEARCH_MS: ms({ default: DEFAULT_LIMITS.deadlines.search, doc: 'Default deadline of searches' }),
  DEADLINE_MODEL_MS: ms({ default: DEFAULT_LIMITS.deadlines.model, doc: 'Default deadline of model calls' }),
  WORKER_PRESENCE_WINDOW_MS: ms({ default: DEFAULT_WORKER_PRESENCE_WINDOW_MS, doc: 'No poll within it: 503' }),
  SEARCH_MAX_IN_FLIGHT: int({ default: search.maxInFlight, doc: 'Searches at once' }),
  SEARCH_MAX_IN_FLIGHT_PER_TENANT: int({ default: search.maxInFlightPerTenant, doc: "One tenant's searches at once" }),
  SEARCH_MAX_IN_FLIGHT_SHARED: int({ default: search.maxInFlightShared ?? 1, doc: '… while others search' }),
  SEARCH_MAX_QUEUED_PER_TENANT: int({ default: search.maxQueuedPerTenant, doc: "One tenant's waiting searches" }),
  ASK_EAGER_START: flag({ default: true, doc: "Hand each ask's first workflow task back with its start" }),
  ASK_MAX_IN_FLIGHT: int({ default: ask.maxInFlight, doc: 'Asks at once' }),
  ASK_MAX_IN_FLIGHT_PER_TENANT: int({ default: ask.maxInFlightPerTenant, doc: "One tenant's asks at once" }),
  ASK_MAX_IN_FLIGHT_SHARED: int({ default: ask.maxInFlightShared ?? 1, doc: '… while others ask' }),
  ASK_MAX_QUEUED_PER_TENANT: int({ default: ask.maxQueuedPerTenant, doc: "One tenant's waiting asks" }),
  API_MAX_MODEL_ACTIVITIES: int({ default: 4, doc: "Model calls the API's own ask worker runs at once" }),
  API_CPU_THREADS: int({ default: DEFAULT_API_CPU.threads, doc: "Threads for the reads' work on tenant text" }),
  API_CPU_BUDGET_MS: ms({ default: DEFAULT_API_CPU.budgetMs, doc: 'Time one such task may take' }),
  CHAT_TOKENS_PER_DAY: int({ doc: "Each tenant's model tokens per UTC day; none: no budget" }),
  TAG_TRAINING_DEBOUNCE_MS: ms({ default: TAG_TRAINER.debounceMs, doc: 'Quiet time before a tag training' }),
  TAG_TRAINING_MAX_DELAY_MS: ms({ default: TAG_TRAINER.maxDelayMs, doc: 'Longest wait after a change' }),
  TAG_TRAINING_INTERVAL_MS: ms({ default: TAG_TRAINER.intervalMs, doc: 'Retraining without changes' }),
};

/** Everything the API process reads from its environment, typed and checked. */
export interface ApiConfig {
  services: ServicesConfig;
  port: number;
  host: string;
  keyCacheTtlMs: number;
  limits: ApiLimits;
  rateLimit: { syncMs: number; maxUnsynced: number };
  receiveTimeoutMs: number;
  trustProxy: boolean;
  readLogFlushMs: number;
  workerPresenceWindowMs: number;
  eagerAsks: boolean;
  maxModelActivities: number;
  cpu: CpuPoolOptions;
  tagTraining: TagTrainerTiming;
  tokenSyncMs: number;
  /** None: the repository's use-cases/. */
  useCasesDir?: string;
  logLevel: ServiceSettings['LOG_LEVEL'];
  workerLogLevel: ServiceSettings['WORKER_LOG_LEVEL'];
  metrics: MetricsConfig;
}

/**
 * The API's configuration from `env`; throws a SettingsError naming every variable that breaks its
 * rule. RATE_LIMIT_MAX_UNSYNCED defaults to a twentieth of the per-key limit (30 of 600), so N
 * instances accept at most the limit plus (N − 1) twentieths of it (api/rate-limiter.ts).
 */
export function loadApiConfig(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  const s = parseSettings({ ...SERVICE_SETTINGS, ...API_SETTINGS }, env);
  return {
    services: servicesConfigFrom(s),
    port: s.API_PORT,
    host: s.API_HOST,
    keyCacheTtlMs: s.KEY_CACHE_TTL_MS,
    limits: {
      rateLimitPerMinute: s.RATE_LIMIT_PER_MINUTE,
      authFailuresPerMinute: s.AUTH_FAILURES_PER_MINUTE,
      searchAdmission: {
        maxInFlight: s.SEARCH_MAX_IN_FLIGHT,
        maxInFlightPerTenant: s.SEARCH_MAX_IN_FLIGHT_PER_TENANT,
        maxInFlightShared: s.SEARCH_MAX_IN_FLIGHT_SHARED,
        maxQueuedPerTenant: s.SEARCH_MAX_QUEUED_PER_TENANT,
      },
      askAdmission: {
        maxInFlight: s.ASK_MAX_IN_FLIGHT,
        maxInFlightPerTenant: s.ASK_MAX_IN_FLIGHT_PER_TENANT,
        maxInFlightShared: s.ASK_MAX_IN_FLIGHT_SHARED,
        maxQueuedPerTenant: s.ASK_MAX_QUEUED_PER_TENANT,
      },
      deadlines: { upload: s.DEADLINE_UPLOAD_MS, search: s.DEADLINE_SEARCH_MS, model: s.DEADLINE_MODEL_MS },
      tokensPerTenantPerDay: s.CHAT_TOKENS_PER_DAY,
    },
    rateLimit: {
      syncMs: s.RATE_LIMIT_SYNC_MS,
      maxUnsynced: s.RATE_LIMIT_MAX_UNSYNCED ?? Math.max(1, Math.floor(s.RATE_LIMIT_PER_MINUTE / 20)),
    },
    receiveTimeoutMs: s.REQUEST_RECEIVE_TIMEOUT_MS,
    trustProxy: s.TRUST_PROXY,
    readLogFlushMs: s.READ_LOG_FLUSH_MS,
    workerPresenceWindowMs: s.WORKER_PRESENCE_WINDOW_MS,
    eagerAsks: s.ASK_EAGER_START,
    maxModelActivities: s.API_MAX_MODEL_ACTIVITIES,
    cpu: {
      tasks: 'read',
      warm: true,
      threads: s.API_CPU_THREADS,
      budgetMs: s.API_CPU_BUDGET_MS,
      maxQueuedPerTenant: DEFAULT_API_CPU.maxQueuedPerTenant,
    },
    tagTraining: {
      debounceMs: s.TAG_TRAINING_DEBOUNCE_MS,
      maxDelayMs: s.TAG_TRAINING_MAX_DELAY_MS,
      intervalMs: s.TAG_TRAINING_INTERVAL_MS,
    },
    tokenSyncMs: s.TOKEN_SYNC_MS,
    useCasesDir: s.USE_CASES_DIR,
    logLevel: s.LOG_LEVEL,
    workerLogLevel: s.WORKER_LOG_LEVEL,
    metrics: {
      host: s.METRICS_HOST,
      port: s.API_METRICS_PORT,
      sdkPort: s.API_SDK_METRICS_PORT,
      tenantLabels: s.METRICS_TENANT_LABELS,
    },
  };
}
