/**
 * One activity proxy per timeout profile. Every profile has a start-to-close timeout and a bounded
 * retry policy, so a dependency that stays down ends the workflow instead of retrying forever.
 */
import { proxyActivities, workflowInfo, type ActivityOptions, type RetryPolicy } from '@temporalio/workflow';
import type { Priority } from '@temporalio/common';
import type { Activities } from '../activities';
import { gradingTaskQueue, ingestionTaskQueue, TenantId, tenantPriority } from './constants';

export const NON_RETRYABLE = ['InvalidInput', 'NotFound', 'InputTooCostly'];

/**
 * The tenant's fairness key for the activity being scheduled: the run's own (set when the API
 * started it, inherited by its children), or, for a run started without one (by an operator's
 * command, or before fairness), its TenantId search attribute. Every run of this service has one.
 */
function tenantShare(): Priority | undefined {
  const info = workflowInfo();
  const tenant = info.priority?.fairnessKey || info.typedSearchAttributes.get(TenantId);
  return tenant ? tenantPriority(tenant) : undefined;
}

/** `options`, each activity scheduled with them carrying its tenant's fairness key (read when it is scheduled). */
function fairShared<T extends ActivityOptions>(options: T): T {
  return Object.defineProperty(options, 'priority', { enumerable: true, get: tenantShare });
}

/** Retries for about an hour (70 attempts, at most a minute apart): for writes that must outlive a store's outage. */
const RETRY_FOR_AN_HOUR: RetryPolicy = {
  initialInterval: '1s',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  maximumAttempts: 70,
  nonRetryableErrorTypes: NON_RETRYABLE,
};

/**
 * Writes to Weaviate with embeddings, on the ingestion task queue next to the workflow's own (read
 * when each activity is scheduled). An attempt is short by construction: an article upload stores
 * in slices of INGEST_SLICE_MS (15 s) of passages, then hands the rest back (workflows/ingestion.ts);
 * a case upload is at most 100 cases of at most 2,000 embedded characters each. So an attempt is
 * the slice plus at most one article's conversion (a CPU thread, a few seconds per megabyte, within
 * WORKER_CPU_BUDGET_MS) and one group of about one embedding call (cut off at the deadline while it
 * waits for other tenants' calls): about 20 s on two busy cores. Three minutes leaves room for a much slower machine, and a lost worker is noticed
 * by its missing heartbeats within 30 s. A timeout therefore means an overloaded or failing
 * dependency, not a costly input (which fails at once, InputTooCostly, or as a failed item), and
 * an accepted upload must outlive an outage of Weaviate or the embedding servers (a restart, a
 * slow recovery): attempts are retried for about an hour, as the chat session's stores are.
 */
export const ingestion = proxyActivities<Activities>(
  fairShared({
    get taskQueue() {
      return ingestionTaskQueue(workflowInfo().taskQueue);
    },
    startToCloseTimeout: '3 minutes',
    heartbeatTimeout: '30s',
    retry: RETRY_FOR_AN_HOUR,
  }),
);

/**
 * Training a tenant's tag model: reading its cases (and, with the English encoder, every text),
 * then the fit on the worker's tag-training thread, which may take WORKER_TAG_TRAINING_BUDGET_MS
 * (30 minutes by default) and may first wait for another tenant's. It heartbeats throughout, so a
 * lost worker is noticed within 30 s; the start-to-close timeout only bounds the whole. On the
 * ingestion task queue, like the uploads that start it.
 */
export const tagTraining = proxyActivities<Activities>(
  fairShared({
    get taskQueue() {
      return ingestionTaskQueue(workflowInfo().taskQueue);
    },
    startToCloseTimeout: '2 hours',
    heartbeatTimeout: '30s',
    retry: {
      initialInterval: '1s',
      backoffCoefficient: 2,
      maximumInterval: '30s',
      maximumAttempts: 5,
      nonRetryableErrorTypes: NON_RETRYABLE,
    },
  }),
);

/**
 * Stores what a chat session produced (answers) in Weaviate: quick writes, retried for about an
 * hour before the session gives up, so a Weaviate outage loses nothing that Temporal accepted.
 */
export const sessionStore = proxyActivities<Activities>(
  fairShared({
    startToCloseTimeout: '30s',
    retry: RETRY_FOR_AN_HOUR,
  }),
);

/**
 * Batch evaluation: planning an import file, grading a chunk of its records (a few hundred
 * gradings; heartbeats per record), the retention purge. A silent attempt is retried after 30
 * seconds; five attempts, each skipping what the previous ones stored.
 */
export const batch = proxyActivities<Activities>(
  fairShared({
    startToCloseTimeout: '60 minutes',
    heartbeatTimeout: '30s',
    retry: {
      initialInterval: '1s',
      backoffCoefficient: 2,
      maximumInterval: '30s',
      maximumAttempts: 5,
      nonRetryableErrorTypes: NON_RETRYABLE,
    },
  }),
);

/**
 * Grading one output: a model call per 20 rules, or the built-in judge on a CPU thread of the
 * worker (domain/cpu). An attempt may take 3 minutes; three attempts, so a stalled model ends
 * in a timeout (504) well before the request's deadline would, unless the client asked for a
 * shorter one (408). It runs on the grading task queue with slots of its own, and heartbeats while
 * it waits, so a terminated workflow stops its thread within seconds.
 */
const GRADING: ActivityOptions = fairShared({
  get taskQueue() {
    return gradingTaskQueue(workflowInfo().taskQueue);
  },
  startToCloseTimeout: '3 minutes',
  heartbeatTimeout: '10s',
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '10s',
    maximumAttempts: 3,
    nonRetryableErrorTypes: NON_RETRYABLE,
  },
});

export const grading = proxyActivities<Activities>(GRADING);

/** `grading`, its attempts all ended by `deadline` (epoch ms, at least a second from now): a model judge with a fallback after it. */
export const gradingUntil = (deadline: number) =>
  proxyActivities<Activities>({ ...GRADING, scheduleToCloseTimeout: Math.max(1000, deadline - Date.now()) });
