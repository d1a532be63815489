/**
 * The worker process's configuration: its own settings and the services' (domain/config.ts), parsed
 * once at start from the environment; a bad value stops the start (README, the settings tables).
 */
import {
  type MetricsConfig,
  SERVICE_SETTINGS,
  type ServiceSettings,
  servicesConfigFrom,
  type ServicesConfig,
} from '../domain/config';
import { int, ms, parseSettings, port } from '../domain/settings';
import { INGEST_SLICE_MS } from '../domain/weaviate/ingest';

/**
 * Time one tag model's fit may run on its thread. Fitting a tenant at the training cap (50,000
 * cases, about 80 tags, with the English encoder) took about 8 minutes of CPU, 11.5 minutes on two
 * cores shared with other work; the default leaves room for a slower or busier machine.
 */
const TAG_TRAINING_BUDGET_MS = 30 * 60_000;

/** The settings only the worker reads; the services' come with them. */
export const WORKER_SETTINGS = {
  WORKER_MAX_ACTIVITIES: int({ default: 4, doc: 'Activities of the main and ask task queues at once' }),
  WORKER_MAX_INGEST_ACTIVITIES: int({ default: 2, doc: 'Upload activities at once' }),
  WORKER_MAX_GRADING_ACTIVITIES: int({ default: 8, doc: 'Grading activities at once' }),
  WORKER_INGEST_SLICE_MS: ms({ default: INGEST_SLICE_MS, doc: 'How long one upload activity stores passages' }),
  WORKER_CPU_THREADS: int({ default: 2, doc: 'Threads for grading, redaction and article conversion' }),
  WORKER_CPU_BUDGET_MS: ms({ default: 30_000, doc: 'Time one input may take on such a thread' }),
  WORKER_TAG_TRAINING_BUDGET_MS: ms({ default: TAG_TRAINING_BUDGET_MS, doc: "Time one tag model's fit may take" }),
  WORKER_METRICS_PORT: port({ min: 0, default: 9466, doc: "Port of the worker's metrics; 0: none" }),
  WORKER_SDK_METRICS_PORT: port({ min: 0, default: 9467, doc: "Port of the Temporal runtime's metrics in the worker" }),
};

/** Everything the worker process reads from its environment, typed and checked. */
export interface WorkerConfig {
  services: ServicesConfig;
  /** Activity slots of each task queue (worker/worker.ts). */
  maxActivities: { main: number; ingestion: number; grading: number };
  cpu: { threads: number; budgetMs: number };
  ingestSliceMs: number;
  tagTrainingBudgetMs: number;
  tokenSyncMs: number;
  /** None: the repository's use-cases/. */
  useCasesDir?: string;
  logLevel: ServiceSettings['LOG_LEVEL'];
  workerLogLevel: ServiceSettings['WORKER_LOG_LEVEL'];
  metrics: MetricsConfig;
}

/** The worker's configuration from `env`; throws a SettingsError naming every variable that breaks its rule. */
export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  const s = parseSettings({ ...SERVICE_SETTINGS, ...WORKER_SETTINGS }, env);
  return {
    services: servicesConfigFrom(s),
    maxActivities: {
      main: s.WORKER_MAX_ACTIVITIES,
      ingestion: s.WORKER_MAX_INGEST_ACTIVITIES,
      grading: s.WORKER_MAX_GRADING_ACTIVITIES,
    },
    cpu: { threads: s.WORKER_CPU_THREADS, budgetMs: s.WORKER_CPU_BUDGET_MS },
    ingestSliceMs: s.WORKER_INGEST_SLICE_MS,
    tagTrainingBudgetMs: s.WORKER_TAG_TRAINING_BUDGET_MS,
    tokenSyncMs: s.TOKEN_SYNC_MS,
    useCasesDir: s.USE_CASES_DIR,
    logLevel: s.LOG_LEVEL,
    workerLogLevel: s.WORKER_LOG_LEVEL,
    metrics: {
      host: s.METRICS_HOST,
      port: s.WORKER_METRICS_PORT,
      sdkPort: s.WORKER_SDK_METRICS_PORT,
      tenantLabels: s.METRICS_TENANT_LABELS,
    },
  };
}
