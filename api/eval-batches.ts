/**
 * The client side of batch evaluation (workflows/eval-batch.ts): start a batch for an import file,
 * read its progress, and make sure the daily retention schedule exists. Used by
 * `npm run eval:import`, the API at start (the schedule), the benchmark and the tests.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import {
  type Client,
  ScheduleAlreadyRunning,
  ScheduleOverlapPolicy,
  WorkflowIdConflictPolicy,
} from '@temporalio/client';
import {
  evalBatchId,
  evalBatchProgressQuery,
  evalBatchWorkflow,
  evalRetentionWorkflow,
  type EvalBatchTotals,
} from '../workflows/eval-batch';
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

export const retentionScheduleId = (taskQueue: string) => `${OPERATIONS.evalRetention}:${taskQueue}`;

/** Creates the daily retention schedule of a task queue, unless it exists. */
export async function ensureRetentionSchedule(o: { client: Client; taskQueue: string }): Promise<string> {
  const scheduleId = retentionScheduleId(o.taskQueue);
  try {
    await o.client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: '1 day' }] },
      action: {
        type: 'startWorkflow',
        workflowType: evalRetentionWorkflow,
        taskQueue: o.taskQueue,
        workflowId: `${OPERATIONS.evalRetention}:${o.taskQueue}`,
        typedSearchAttributes: [{ key: OperationAttr, value: OPERATIONS.evalRetention }],
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  return scheduleId;
}
