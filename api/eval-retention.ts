/**
 * The daily retention schedule of batch evaluation (evalRetentionWorkflow in workflows/eval-batch.ts),
 * which the API makes sure exists at start. Starting and following a batch is the operator's side
 * (scripts/eval-batches.ts, `npm run eval:import`).
 */
import { type Client, ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import { evalRetentionWorkflow } from '../workflows/eval-batch';
import { OPERATIONS, OperationAttr } from '../workflows/constants';

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
