/** Names shared by the API, the worker and the workflows. */
import { SearchAttributeType, defineSearchAttributeKey, type Priority } from '@temporalio/common';

/** Search attributes of every workflow, so operators can filter runs per customer in the Web UI. */
export const TenantId = defineSearchAttributeKey('TenantId', SearchAttributeType.KEYWORD);
export const OperationAttr = defineSearchAttributeKey('Operation', SearchAttributeType.KEYWORD);
/** The chat session (Chat-Identifier) of an ask: all the questions of one session. */
export const ChatIdAttr = defineSearchAttributeKey('ChatId', SearchAttributeType.KEYWORD);

export const DEFAULT_TASK_QUEUE = 'support-ai';

/**
 * The most bytes (as JSON) of one item a workflow takes as input (an uploaded item, an evaluate request): it must fit
 * a workflow payload (Temporal refuses payloads of 2 MiB) with room to spare.
 */
export const MAX_ITEM_BYTES = 1536 * 1024;

/**
 * A tenant's share of every task queue: its tasks carry the tenant as their fairness key, so the
 * server (with `matching.enableFairness`) hands each queue's tasks out in turn between tenants, by
 * equal weights, instead of in the order they came (docs/api.md, "Fair sharing between tenants").
 * Tenants are at most 64 ASCII characters (TENANT_PATTERN), the limit of a fairness key.
 */
export const tenantPriority = (tenant: string): Priority => ({ fairnessKey: tenant });

/**
 * Ingestion activities run on a task queue of their own, polled by the same worker process with
 * its own slots, so uploads never take the slots that searches need.
 */
export const ingestionTaskQueue = (taskQueue: string) => `${taskQueue}-ingestion`;

/**
 * Grading (evaluate and batch evaluation) runs on a task queue of its own too: its activities wait
 * for the worker's CPU threads, and must never hold the slots that storing answers or training
 * tags need.
 */
export const gradingTaskQueue = (taskQueue: string) => `${taskQueue}-grading`;

/**
 * Ask runs on a task queue of its own, polled by a worker inside each API process (so the API can
 * start an ask eagerly: its first workflow task comes back with the start, and runs where the
 * request waits) and by the worker processes.
 */
export const askTaskQueue = (taskQueue: string) => `${taskQueue}-ask`;

/** The Operation search attribute and the first part of every workflow id. */
export const OPERATIONS = {
  upsertArticles: 'articles-upsert',
  deleteArticles: 'articles-delete',
  upsertCases: 'cases-upsert',
  upsertIncident: 'incident-upsert',
  searchCases: 'search-cases',
  searchArticles: 'search-articles',
  /** The per-tenant read log (workflows/read-log.ts); searches themselves run without a workflow. */
  reads: 'reads',
  /** Each ask is a workflow (workflows/ask.ts); a chat session is its asks with the same ChatId. */
  ask: 'ask',
  feedback: 'feedback',
  /** Summary runs on the read path, like ask. */
  summary: 'summary',
  sentiment: 'sentiment',
  evaluate: 'evaluate',
  /** The per-tenant tag trainer (workflows/tag-training.ts) and each of its training runs. */
  tagTrainer: 'tags',
  tagTraining: 'tags-train',
  tag: 'tag',
  /** Batch evaluation of an imported file (workflows/eval-batch.ts), and the retention purge. */
  evalBatch: 'eval-batch',
  evalRetention: 'eval-retention',
} as const;

export type Operation = (typeof OPERATIONS)[keyof typeof OPERATIONS];

/**
 * What the built-in engine is left of a request's time when the model's attempts give up at its
 * end (CHAT_FALLBACK=local): the model's calls end this long before the request's deadline.
 */
export const FALLBACK_RESERVE_MS = 3000;
