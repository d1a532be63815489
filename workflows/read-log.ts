/**
 * The operators' view of a tenant's reads. Searches run in the API process (api/read-path.ts), so
 * no workflow exists per search; instead each API instance sends this workflow, `reads:<tenant>`
 * (search attributes TenantId and Operation "reads"), one signal per few seconds with what that
 * tenant's reads did: how many per operation, how many failed, their latencies. The memo keeps
 * the totals of the run and the last batch; the history lists every batch.
 *
 * The history stays bounded: after `BATCHES_PER_RUN` signals, or when Temporal suggests it, the
 * run continues as new with the totals carried over.
 */
import { condition, continueAsNew, defineSignal, setHandler, upsertMemo, workflowInfo } from '@temporalio/workflow';

/** What one API instance's reads of one operation did during one batch. */
export interface ReadStats {
  count: number;
  /** Answers 5xx (dependency down or slow, or an internal error). */
  failed: number;
  /** Answers 408 (the request's deadline passed). */
  timedOut: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  /** The chat model's tokens these reads spent, when a model answered them. */
  promptTokens?: number;
  completionTokens?: number;
}

export interface ReadBatch {
  /** ISO times the batch covers. */
  from: string;
  to: string;
  operations: Record<string, ReadStats>;
}

export interface ReadLogState {
  tenant: string;
  /** When these totals started (the first run's start). */
  since?: string;
  totals?: Record<
    string,
    { count: number; failed: number; timedOut: number; promptTokens?: number; completionTokens?: number }
  >;
}

export const readsSignal = defineSignal<[ReadBatch]>('reads');

/** About two hours of batches at one every 10 s from one API instance. */
export const BATCHES_PER_RUN = 720;

export async function readLogWorkflow(state: ReadLogState): Promise<void> {
  const totals = state.totals ?? {};
  const since = state.since ?? new Date(workflowInfo().startTime).toISOString();
  let batches = 0;
  setHandler(readsSignal, (batch) => {
    batches += 1;
    for (const [operation, stats] of Object.entries(batch.operations)) {
      const total = (totals[operation] ??= { count: 0, failed: 0, timedOut: 0 });
      total.count += stats.count;
      total.failed += stats.failed;
      total.timedOut += stats.timedOut;
      if (stats.promptTokens || stats.completionTokens) {
        total.promptTokens = (total.promptTokens ?? 0) + (stats.promptTokens ?? 0);
        total.completionTokens = (total.completionTokens ?? 0) + (stats.completionTokens ?? 0);
      }
    }
    upsertMemo({ since, totals, lastBatch: batch });
  });
  await condition(() => batches >= BATCHES_PER_RUN || workflowInfo().continueAsNewSuggested);
  await continueAsNew<typeof readLogWorkflow>({ tenant: state.tenant, since, totals });
}
