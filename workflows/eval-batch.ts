/**
 * Batch evaluation of an imported JSONL file: `eval-batch:<tenant>:<runId>` (search attributes
 * TenantId and Operation "eval-batch"). The file travels by reference (its path): one activity
 * cuts it into chunks of lines, then each chunk is graded by one heartbeating activity, at most
 * `concurrency` at once. Progress is in the memo (shown in the Web UI) and in the `progress`
 * query (the import command's progress bar). The workflow continues as new every 100 chunks,
 * carrying the chunks left and the totals, so its history stays small for any file size. A worker
 * that dies mid-run loses nothing: its chunk activities are retried and skip what was stored.
 *
 * `evalRetentionWorkflow` runs the retention purge; a Temporal Schedule starts it daily.
 */
import { continueAsNew, defineQuery, setHandler, upsertMemo } from '@temporalio/workflow';
import type { ChunkOutcome, ImportChunk, ImportProblem } from '../domain/evaluation/batch';
import type { GradingCounts } from '../domain/evaluation/batch-counts';
import { batch } from './proxies';

export interface EvalBatchTotals extends GradingCounts {
  lines: number;
  chunks: number;
  chunksDone: number;
  linesDone: number;
  /** The first problems found, with their line numbers. */
  problems: ImportProblem[];
}

export interface EvalBatchInput {
  tenant: string;
  runId: string;
  path: string;
  useCase?: string;
  importedAt: number;
  chunkLines?: number;
  concurrency?: number;
  /** Carried over by continue-as-new. */
  remaining?: ImportChunk[];
  totals?: EvalBatchTotals;
}

export const EVAL_BATCH = { chunkLines: 250, concurrency: 2, chunksPerRun: 100, maxProblems: 50 };

export const evalBatchProgressQuery = defineQuery<EvalBatchTotals | null>('progress');

/**
 * Every count of {@link GradingCounts}, to add a chunk's outcome to the totals. A record rather than a list so the
 * compiler refuses a count left out; kept here because a workflow takes only types from domain/.
 */
const COUNTED: Record<keyof GradingCounts, true> = {
  graded: true,
  alreadyGraded: true,
  duplicates: true,
  invalid: true,
  failed: true,
};
const COUNT_KEYS = Object.keys(COUNTED) as (keyof GradingCounts)[];

export const evalBatchId = (tenant: string, runId: string) => `eval-batch:${tenant}:${runId}`;

function add(totals: EvalBatchTotals, chunk: ImportChunk, o: ChunkOutcome): void {
  totals.chunksDone += 1;
  totals.linesDone += chunk.lines;
  for (const key of COUNT_KEYS) totals[key] += o[key];
  totals.problems.push(...o.problems.slice(0, Math.max(0, EVAL_BATCH.maxProblems - totals.problems.length)));
}

export async function evalBatchWorkflow(input: EvalBatchInput): Promise<EvalBatchTotals> {
  let totals = input.totals ?? null;
  setHandler(evalBatchProgressQuery, () => totals);
  let remaining = input.remaining;
  if (!remaining) {
    const plan = await batch.planEvalImport({
      path: input.path,
      chunkLines: input.chunkLines ?? EVAL_BATCH.chunkLines,
    });
    remaining = plan.chunks;
    totals = {
      lines: plan.lines,
      chunks: plan.chunks.length,
      chunksDone: 0,
      linesDone: 0,
      graded: 0,
      alreadyGraded: 0,
      duplicates: 0,
      invalid: 0,
      failed: 0,
      problems: [],
    };
  }
  const t = totals!;
  const queue = [...remaining];
  const thisRun = queue.splice(0, EVAL_BATCH.chunksPerRun);
  const lane = async () => {
    for (let chunk = thisRun.shift(); chunk; chunk = thisRun.shift()) {
      const outcome = await batch.gradeImportChunk({
        tenant: input.tenant,
        runId: input.runId,
        path: input.path,
        chunk,
        useCase: input.useCase,
        importedAt: input.importedAt,
      });
      add(t, chunk, outcome);
      upsertMemo({
        progress: `${t.linesDone}/${t.lines} lines`,
        graded: t.graded,
        alreadyGraded: t.alreadyGraded,
        invalid: t.invalid,
        failed: t.failed,
      });
    }
  };
  await Promise.all(Array.from({ length: input.concurrency ?? EVAL_BATCH.concurrency }, lane));
  if (queue.length > 0) {
    await continueAsNew<typeof evalBatchWorkflow>({ ...input, remaining: queue, totals: t });
  }
  return t;
}

export async function evalRetentionWorkflow(): Promise<{ tenants: number; deleted: number }> {
  return batch.purgeExpiredResults({ now: Date.now() });
}
