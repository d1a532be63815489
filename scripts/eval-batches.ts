/**
 * The operator's side of batch evaluation (workflows/eval-batch.ts): start a batch for an import
 * file and read its progress. Used by `npm run eval:import`, the benchmark and the tests; the daily
 * retention schedule, which the API creates at start, is api/eval-retention.ts.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { type Client, WorkflowIdConflictPolicy } from '@temporalio/client';
import { evalBatchId, evalBatchProgressQuery, evalBatchWorkflow, type EvalBatchTotals } from '../workflows/eval-batch';
import { OPERATIONS, OperationAttr, TenantId } from '../workflows/constants';

/** A run is named by the file's content and the use case: importing the same file again attaches to it. */
export async function importRunId(o: { path: string; useCase?: string }): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(o.path)) hash.update(chunk as Buffer);
  hash.update(`\n${o.useCase ?? ''}`);
  return hash.digest('hex').slice(0, 16);
}

export async function startEvalBatch(o: {
  client: Client;
  taskQueue: string;
  tenant: string;
  path: string;
  useCase?: string;
  chunkLines?: number;
}): Promise<{ workflowId: string; runId: string }> {
  const runId = await importRunId(o);
  const workflowId = evalBatchId(o.tenant, runId);
  await o.client.workflow.start(evalBatchWorkflow, {
    taskQueue: o.taskQueue,
    workflowId,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    args: [
      { tenant: o.tenant, runId, path: o.path, useCase: o.useCase, importedAt: Date.now(), chunkLines: o.chunkLines },
    ],
    typedSearchAttributes: [
      { key: TenantId, value: o.tenant },
      { key: OperationAttr, value: OPERATIONS.evalBatch },
    ],
  });
  return { workflowId, runId };
}

/** The batch's progress (null while it plans), or its result once done. */
export async function evalBatchProgress(o: {
  client: Client;
  workflowId: string;
}): Promise<{ done: boolean; totals: EvalBatchTotals | null }> {
  const handle = o.client.workflow.getHandle(o.workflowId);
  const { status } = await handle.describe();
  if (status.name === 'COMPLETED') return { done: true, totals: await handle.result() };
  if (status.name !== 'RUNNING' && status.name !== 'CONTINUED_AS_NEW')
    throw new Error(`the batch ${o.workflowId} ended: ${status.name}`);
  return { done: false, totals: await handle.query(evalBatchProgressQuery).catch(() => null) };
}
