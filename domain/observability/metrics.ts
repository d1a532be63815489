/**
 * The Prometheus metrics of the API and the worker (docs/operations.md, "Metrics"): every series
 * the two processes export, defined once, on one registry per process. The code that does the work
 * records into these; `metrics-server.ts` serves them. Every label takes its values from a fixed,
 * documented set: operations from the operations table, dependencies, lanes, outcomes; a tenant
 * only through `tenantLabel`, which bounds the tenants a process names (METRICS_TENANT_LABELS).
 *
 * The definitions are module-level, as prom-client intends: a process that runs both the API and a
 * worker (the tests, the in-process benchmarks) counts both into the same series.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { inSpan } from './tracing';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'supportai_' });

const PREFIX = 'supportai_';
const registers = [registry];

/** Seconds: from a 5 ms search to a 2-minute upload. */
export const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
/** Seconds: a dependency call, from a 1 ms probe to a 60 s embedding call. */
const CALL_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export const httpRequests = new Counter({
  name: `${PREFIX}http_requests_total`,
  help: 'Requests answered, by operation (the operations table; never a raw path) and status class',
  labelNames: ['operation', 'status_class'] as const,
  registers,
});

export const httpDuration = new Histogram({
  name: `${PREFIX}http_request_duration_seconds`,
  help: 'Time from the request to its answer, by operation and status class',
  labelNames: ['operation', 'status_class'] as const,
  buckets: REQUEST_BUCKETS,
  registers,
});

export const httpInFlight = new Gauge({
  name: `${PREFIX}http_requests_in_flight`,
  help: 'Requests being answered, by operation',
  labelNames: ['operation'] as const,
  registers,
});

/** Why a request was refused before or instead of its work (docs/operations.md, "Metrics"). */
export type RejectionReason =
  'rate_limit' | 'queue_full' | 'deadline' | 'dependency_unavailable' | 'token_budget' | 'auth_failures';

/** A dependency an answer of 503 names; `other` when the failure did not say which. */
export type DependencyLabel =
  'temporal' | 'weaviate' | 'embeddings' | 'english_encoder' | 'chat_model' | 'worker' | 'other' | 'none';

export const admissionRejections = new Counter({
  name: `${PREFIX}admission_rejections_total`,
  help: 'Requests refused (429, 408, 503) by reason, and the dependency a 503 names',
  labelNames: ['reason', 'dependency'] as const,
  registers,
});

export const tenantThrottled = new Counter({
  name: `${PREFIX}tenant_throttled_total`,
  help: "429s for a tenant's rate limit, queue or token budget; tenant bounded by METRICS_TENANT_LABELS, then `other`",
  labelNames: ['tenant'] as const,
  registers,
});

export const dependencyUp = new Gauge({
  name: `${PREFIX}dependency_up`,
  help: "Whether a dependency answers its probe, as the API's circuit breakers see it (1 up, 0 down)",
  labelNames: ['dependency'] as const,
  registers,
});

export const dependencyProbeDuration = new Histogram({
  name: `${PREFIX}dependency_probe_duration_seconds`,
  help: "Time of the API's probe of a dependency, answered or failed",
  labelNames: ['dependency'] as const,
  buckets: CALL_BUCKETS,
  registers,
});

export const taskQueuePollers = new Gauge({
  name: `${PREFIX}task_queue_pollers`,
  help: 'Whether a worker polled the task queue within the presence window (1) or not (0), as the API checks it',
  labelNames: ['task_queue'] as const,
  registers,
});

/**
 * A gauge whose value is read when Prometheus scrapes: the sum, per label value, of what the
 * watched objects report (queues register themselves with `watch`; a process may have several, as
 * in the tests, where an API and a worker share one process).
 */
function watchedGauge<L extends string>(o: { name: string; help: string; label: string }) {
  const watched = new Map<L, Set<() => number>>();
  new Gauge({
    name: o.name,
    help: o.help,
    labelNames: [o.label],
    registers,
    collect() {
      for (const [value, set] of watched) {
        let total = 0;
        for (const read of set) total += read();
        this.set({ [o.label]: value }, total);
      }
    },
  });
  return function watch(value: L, read: () => number): void {
    watched.set(value, (watched.get(value) ?? new Set()).add(read));
  };
}

/** Embedding lanes: the short-query server, the passage (bulk) server, the tag model's English encoder. */
export type EmbeddingLane = 'query' | 'bulk' | 'english';

/** Counts a scheduler's waiting calls into `supportai_embedding_queue_length{lane}`. */
export const watchEmbeddingQueue = watchedGauge<EmbeddingLane>({
  name: `${PREFIX}embedding_queue_length`,
  help: 'Embedding calls waiting in the process for their server, by lane',
  label: 'lane',
});

/** Counts an admission queue's waiting requests or tasks into `supportai_admission_queue_depth{queue}`. */
export const watchAdmissionQueue = watchedGauge<'search' | 'ask' | 'cpu'>({
  name: `${PREFIX}admission_queue_depth`,
  help: "Requests (search, ask) or CPU tasks (cpu) waiting for their tenant's turn in this process",
  label: 'queue',
});

export const embeddingCallDuration = new Histogram({
  name: `${PREFIX}embedding_call_duration_seconds`,
  help: 'Time of one call to an embedding server, by lane',
  labelNames: ['lane'] as const,
  buckets: CALL_BUCKETS,
  registers,
});

export const embeddingErrors = new Counter({
  name: `${PREFIX}embedding_errors_total`,
  help: 'Embedding calls that failed (aborted ones not counted), by lane',
  labelNames: ['lane'] as const,
  registers,
});

/**
 * What a Weaviate call is for: `search` (every hybrid query: searches and asks' retrieval),
 * `ingest` (storing an upload's objects), `keys` (an API key's look-up). A fixed set, so the label
 * stays bounded; the other calls (counters, answers, results) are not timed.
 */
export type WeaviateCall = 'search' | 'ingest' | 'keys';

/** The kind of a Weaviate failure, read from its message (bounded, and with literal alternatives only). */
export function weaviateErrorKind(err: unknown): 'unavailable' | 'timeout' | 'rejected' | 'other' {
  const message = String((err as Error)?.message ?? err).slice(0, 1000);
  if (/UNAVAILABLE|ECONNREFUSED|ECONNRESET|EPIPE|fetch failed/.test(message)) return 'unavailable';
  if (/DEADLINE_EXCEEDED|timed out|timeout/i.test(message)) return 'timeout';
  if (/INVALID_ARGUMENT|UNAUTHENTICATED|PERMISSION_DENIED|status code: 4\d\d/.test(message)) return 'rejected';
  return 'other';
}

export const weaviateCallDuration = new Histogram({
  name: `${PREFIX}weaviate_call_duration_seconds`,
  help: 'Time of a Weaviate call, by what it is for',
  labelNames: ['call'] as const,
  buckets: CALL_BUCKETS,
  registers,
});

export const weaviateErrors = new Counter({
  name: `${PREFIX}weaviate_errors_total`,
  help: 'Weaviate calls that failed, by what they were for and kind (unavailable, timeout, rejected, other)',
  labelNames: ['call', 'kind'] as const,
  registers,
});

export const modelCalls = new Counter({
  name: `${PREFIX}model_calls_total`,
  help: 'Calls to a chat model, by engine (builtin, openai), model and outcome (ok, error, timeout)',
  labelNames: ['engine', 'model', 'outcome'] as const,
  registers,
});

export const modelTokens = new Counter({
  name: `${PREFIX}model_tokens_total`,
  help: "Tokens of a chat model's calls, by engine, model and kind (prompt, completion)",
  labelNames: ['engine', 'model', 'kind'] as const,
  registers,
});

export const modelFallbacks = new Counter({
  name: `${PREFIX}model_fallbacks_total`,
  help: 'Requests the built-in engine answered because the configured model failed, by operation',
  labelNames: ['operation'] as const,
  registers,
});

export const askStarts = new Counter({
  name: `${PREFIX}ask_starts_total`,
  help: "Asks this API started, by how: eager (the first workflow task came back to this process's ask worker) or dispatched (by the server to a poller of the ask queue)",
  labelNames: ['start'] as const,
  registers,
});

export const uploads = new Counter({
  name: `${PREFIX}uploads_total`,
  help: 'Uploaded items: accepted by the API, stored or failed by the worker; by kind (articles, cases, incidents)',
  labelNames: ['kind', 'outcome'] as const,
  registers,
});

export const batchEvalRecords = new Counter({
  name: `${PREFIX}batch_eval_records_total`,
  help: "Batch evaluation's records graded or failed",
  labelNames: ['outcome'] as const,
  registers,
});

export const batchEvalActive = new Gauge({
  name: `${PREFIX}batch_eval_active`,
  help: 'Grading activities of batch evaluations running in this process',
  registers,
});

export const tagTrainings = new Counter({
  name: `${PREFIX}tag_trainings_total`,
  help: 'Tag model trainings run (finished) or failed',
  labelNames: ['outcome'] as const,
  registers,
});

export const buildInfo = new Gauge({
  name: `${PREFIX}build_info`,
  help: 'Which process this is, and its version (always 1)',
  labelNames: ['process', 'version'] as const,
  registers,
});

/** Names the process in `supportai_build_info`, with the project's version, and bounds its tenant labels. */
export function markProcess(o: { process: 'api' | 'worker'; tenantLabels: number }): void {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  buildInfo.set({ process: o.process, version: pkg.version }, 1);
  tenantLabelLimit = o.tenantLabels;
}

/** The tenants this process names in labels, in the order it first saw them. */
const namedTenants = new Set<string>();
let tenantLabelLimit = 20;

/**
 * A tenant as a label value: its id for the first `METRICS_TENANT_LABELS` tenants the process sees,
 * `other` after them, so 10,000 tenants cost at most that many series per tenant-labelled metric.
 */
export function tenantLabel(tenant: string): string {
  if (namedTenants.has(tenant)) return tenant;
  if (namedTenants.size >= tenantLabelLimit) return 'other';
  namedTenants.add(tenant);
  return tenant;
}

/** `2xx`, `4xx`, … of an HTTP status. */
export const statusClass = (status: number) => `${Math.floor(status / 100)}xx`;

/**
 * Times `run` into `histogram` under `labels`; a failure counts into `errors` under the labels
 * `errorLabels` gives it (none: not counted, e.g. a call its caller aborted).
 */
export async function timed<T>(o: {
  histogram: Histogram<string>;
  labels: Record<string, string>;
  errors: Counter<string>;
  errorLabels: (err: unknown) => Record<string, string> | undefined;
  run: () => Promise<T>;
}): Promise<T> {
  const end = o.histogram.startTimer(o.labels);
  try {
    return await o.run();
  } catch (err) {
    const labels = o.errorLabels(err);
    if (labels) o.errors.inc(labels);
    throw err;
  } finally {
    end();
  }
}

/**
 * Times one Weaviate call by what it is for, and counts its failure by kind; within a traced
 * request, the call is a span of its trace too (tracing.ts).
 */
export const timedWeaviate = <T>(call: WeaviateCall, run: () => Promise<T>) =>
  timed({
    histogram: weaviateCallDuration,
    labels: { call },
    errors: weaviateErrors,
    errorLabels: (err) => ({ call, kind: weaviateErrorKind(err) }),
    run: () =>
      inSpan({ name: `weaviate ${call}`, attributes: { 'db.system': 'weaviate', 'db.operation.name': call } }, run),
  });
