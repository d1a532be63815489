/**
 * What each result file of bench/results measures: the code paths (files, or folders ending in "/")
 * whose change can move its figures. `npm run bench:stale` (bench/stale.ts) lists the result files
 * measured at a commit older than the last change of one of their paths. The benchmark's own
 * script and the bench/lib modules it imports are added to its paths by bench:stale itself.
 *
 * A result kept on purpose as a record of an earlier state (a "before" figure docs/benchmarks.md
 * compares with) says so with `frozen` and is never stale.
 */

/**
 * The service as every benchmark through the API runs it: the HTTP edge, settings, node flags,
 * dependencies, and the metrics every request and activity counts. (Tracing, off unless an OTLP
 * endpoint is set, is measured by observability.json alone.)
 */
const SERVICE = [
  'api/app.ts',
  'api/app-deps.ts',
  'api/config.ts',
  'api/http-server.ts',
  'api/middlewares/',
  'api/server.ts',
  'domain/config.ts',
  'domain/settings.ts',
  'domain/observability/metrics.ts',
  'domain/observability/counted.ts',
  'scripts/stack/processes.ts',
  'scripts/stack/stack.ts',
  'package-lock.json',
];
/** The reads the API answers itself (search, summary, sentiment, tags): docs/architecture.md. */
const READ_PATH = ['api/read-path.ts', 'api/routes/read-route.ts', 'api/routes/read-cpu.ts', 'domain/cpu/'];
/** Retrieval: the embedding clients and the Weaviate queries. */
const RETRIEVAL = ['domain/models/embeddings.ts', 'domain/models/embedding-scheduler.ts', 'domain/weaviate/'];
/** An ask: its route, the API's ask runtime, the workflow, its activities and the answer's composition. */
const ASK = [
  'api/routes/assistant.ts',
  'api/ask-runtime/',
  'api/workflow-runner.ts',
  'worker/ask-worker.ts',
  'workflows/',
  'activities/',
  'domain/ask/',
  ...RETRIEVAL,
];
/** An upload: the route, the body's reading, the ingestion workflows and activities, the text preparation. */
const UPLOAD = [
  'api/routes/upload-route.ts',
  'api/routes/articles.ts',
  'api/routes/cases.ts',
  'api/routes/incidents.ts',
  'domain/contracts/',
  'domain/text/',
  'workflows/',
  'activities/',
  'worker/',
  ...RETRIEVAL,
];
/** What a killed process costs the clients: the supervisor, every process's code, how failures are classified. */
const FAULT_HANDLING = [
  'scripts/stack/',
  'api/',
  'worker/',
  'workflows/',
  'activities/',
  'domain/weaviate/',
  'domain/failures.ts',
];
/** Batch evaluation: the workflow, its grading activities and the judge. */
const EVALUATION = ['workflows/', 'activities/', 'worker/', 'domain/evaluation/', 'scripts/eval-batches.ts'];

export interface Measured {
  /** The benchmark script that writes the file (its bench/lib imports count as measured). */
  script: string;
  /** The service's code the figures depend on. */
  paths: string[];
  /** Why the file is kept as it is: a record of an earlier state, never stale. */
  frozen?: string;
}

export const MEASURED: Record<string, Measured> = {
  'search.json': { script: 'bench/search.ts', paths: [...SERVICE, 'api/routes/search.ts', ...READ_PATH, ...RETRIEVAL] },
  'tune-search.json': { script: 'bench/search.ts', paths: [...RETRIEVAL] },
  'ingest.json': { script: 'bench/ingest.ts', paths: [...SERVICE, ...UPLOAD] },
  'fairness.json': {
    script: 'bench/fairness.ts',
    paths: [...SERVICE, 'api/rate-limiter.ts', 'api/routes/search.ts', ...READ_PATH, ...UPLOAD],
  },
  'isolation.json': {
    script: 'bench/isolation.ts',
    paths: [...SERVICE, 'api/', 'domain/', 'workflows/', 'activities/', 'worker/'],
  },
  'latency.json': { script: 'bench/latency.ts', paths: [...SERVICE, 'api/routes/search.ts', ...READ_PATH, ...ASK] },
  'latency-before.json': {
    script: 'bench/latency.ts',
    paths: [],
    frozen: 'the search latency before the read path left Temporal, the "before" of docs/benchmarks.md',
  },
  'ask.json': { script: 'bench/ask.ts', paths: [...SERVICE, ...ASK] },
  'ask-repeat.json': {
    script: 'bench/ask.ts',
    paths: [],
    frozen:
      "a second run of the code ask.json measured at 860820a, for the spread between runs (a column of docs/benchmarks.md's ask table)",
  },
  'tune-ask.json': { script: 'bench/ask.ts', paths: ['domain/ask/', ...RETRIEVAL] },
  'summary.json': {
    script: 'bench/summary.ts',
    paths: [...SERVICE, 'api/routes/conversations.ts', 'api/presenters/summary.ts', 'domain/summary/', ...READ_PATH],
  },
  'tune-summary.json': { script: 'bench/summary.ts', paths: ['domain/summary/'] },
  'sentiment.json': {
    script: 'bench/sentiment.ts',
    paths: [...SERVICE, 'api/routes/sentiment.ts', 'domain/sentiment/', 'domain/tags/', ...READ_PATH],
  },
  'tags.json': {
    script: 'bench/tags.ts',
    paths: [...SERVICE, 'api/routes/tag.ts', 'domain/tags/', 'scripts/tag-trainer.ts', ...READ_PATH],
  },
  'tune-tags.json': { script: 'bench/tune-tags.ts', paths: ['domain/tags/', 'domain/models/embeddings.ts'] },
  'models.json': {
    script: 'bench/models.ts',
    paths: [
      ...SERVICE,
      'domain/models/',
      'domain/ask/',
      'domain/summary/',
      'domain/sentiment/',
      'scripts/stack/chat_server.py',
    ],
  },
  'judge.json': { script: 'bench/judge.ts', paths: ['domain/evaluation/', 'bench/data/ifeval-fresh/'] },
  'judge-fresh-first-run.json': {
    script: 'bench/judge.ts',
    paths: [],
    frozen: "the built-in judge's first run on the fresh wordings in six languages, before any change made for them",
  },
  'judge-reworded-first-run.json': {
    script: 'bench/judge.ts',
    paths: [],
    frozen: "the built-in judge's first run on the reworded tuning half, before any change made for it",
  },
  'language.json': { script: 'bench/language.ts', paths: ['domain/text/language.ts'] },
  'eval-batch.json': { script: 'bench/eval-batch.ts', paths: [...EVALUATION] },
  'eval-batch-10k.json': { script: 'bench/eval-batch.ts', paths: [...EVALUATION] },
  'eval-report.json': {
    script: 'bench/eval-report.ts',
    paths: ['domain/evaluation/', 'domain/weaviate/eval-results.ts', 'scripts/eval-report.ts'],
  },
  'faults-local.json': {
    script: 'bench/faults-local.ts',
    paths: [...SERVICE, ...FAULT_HANDLING],
  },
  'faults.json': {
    script: 'bench/faults.ts',
    paths: [...SERVICE, ...FAULT_HANDLING],
  },
  'observability.json': {
    script: 'bench/observability.ts',
    paths: [
      ...SERVICE,
      'domain/observability/',
      'api/task-queue-watch.ts',
      'worker/tracing.ts',
      'workflows/tracing.ts',
      'ops/',
      'scripts/stack/',
      'api/routes/search.ts',
      ...ASK,
    ],
  },
  'workflow-bundle.json': { script: 'bench/workflow-bundle.ts', paths: ['worker/workflow-bundle.ts', 'workflows/'] },
};
