/**
 * Asks a tenant's tag trainer (workflows/tag-training.ts) to train now, starting the trainer when
 * it does not run, and waits for that training to end. Used by `npm run tags -- train`, the
 * tag benchmark and the tests.
 */
import type { Client } from '@temporalio/client';
import {
  tagTrainerId,
  tagTrainerStatusQuery,
  tagTrainerWorkflow,
  trainTagsNowSignal,
  type TagTrainerStatus,
  type TagTrainerTiming,
} from '../workflows/tag-training';
import { OPERATIONS, OperationAttr, TenantId } from '../workflows/constants';

const POLL_MS = 500;

export async function requestTagTraining(o: {
  client: Client;
  taskQueue: string;
  tenant: string;
  timing?: Partial<TagTrainerTiming>;
}): Promise<{ workflowId: string; requestedAt: number }> {
  const workflowId = tagTrainerId(o.tenant);
  const requestedAt = Date.now();
  await o.client.workflow.signalWithStart(tagTrainerWorkflow, {
    taskQueue: o.taskQueue,
    workflowId,
    args: [{ tenant: o.tenant, timing: o.timing }],
    signal: trainTagsNowSignal,
    signalArgs: [],
    typedSearchAttributes: [
      { key: TenantId, value: o.tenant },
      { key: OperationAttr, value: OPERATIONS.tagTrainer },
    ],
  });
  return { workflowId, requestedAt };
}

export async function tagTrainerStatus(o: { client: Client; tenant: string }): Promise<TagTrainerStatus> {
  return o.client.workflow.getHandle(tagTrainerId(o.tenant)).query(tagTrainerStatusQuery);
}

/** Waits until the tenant's trainer reports a training that started at `since` or later and ended. */
export async function waitForTagTraining(o: {
  client: Client;
  tenant: string;
  since: number;
  timeoutMs: number;
  onStatus?: (s: TagTrainerStatus) => void;
}): Promise<NonNullable<TagTrainerStatus['last']>> {
  const until = Date.now() + o.timeoutMs;
  for (;;) {
    // Between two runs (continue-as-new) the query may briefly find no running workflow.
    const status = await tagTrainerStatus(o).catch(() => undefined);
    if (status) o.onStatus?.(status);
    if (status?.last && status.last.startedAt >= o.since) return status.last;
    if (Date.now() > until)
      throw new Error(`no tag training of tenant ${o.tenant} ended within ${Math.round(o.timeoutMs / 1000)} s`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
