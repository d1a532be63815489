/**
 * Tag training, per tenant. `tags:<tenant>` (Operation "tags") is a long-lived trainer: case
 * uploads signal it when they have stored their cases, and it trains once uploads have been quiet
 * for `debounceMs` (at the latest `maxDelayMs` after the first change); it also retrains every
 * `intervalMs` without changes, and at once on `trainTagsNowSignal` (`npm run tags -- train`).
 * Each training is a child workflow `tags-train:<tenant>:<time>` (Operation "tags-train") whose
 * result and memo show the cases and tags it used. After each training the trainer continues as
 * new, so its history stays small.
 */
import {
  CancellationScope,
  ParentClosePolicy,
  WorkflowIdReusePolicy,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  executeChild,
  getExternalWorkflowHandle,
  isCancellation,
  setHandler,
  startChild,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import type { TagTrainingRun } from '../domain/tags/train';
import { OPERATIONS, OperationAttr, TenantId } from './constants';
import { tagTraining } from './proxies';

export const TAG_TRAINER = {
  debounceMs: 60_000,
  maxDelayMs: 10 * 60_000,
  intervalMs: 24 * 60 * 60_000,
};

export type TagTrainerTiming = typeof TAG_TRAINER;

export interface TagTrainerInput {
  tenant: string;
  timing?: Partial<TagTrainerTiming>;
  /** Cases changed and no training has covered them yet (carried over by continue-as-new). */
  pending?: boolean;
  /** Training requested by an operator and not started yet. */
  requested?: boolean;
  last?: TagTrainerStatus['last'];
}

export interface TagTrainerStatus {
  state: 'waiting' | 'debouncing' | 'training';
  pending: boolean;
  /** The last training: when it started and ended, and what it did (or why it failed). */
  last?: { startedAt: number; endedAt: number; run?: TagTrainingRun; error?: string };
}

export const tagCasesChangedSignal = defineSignal('casesChanged');
export const trainTagsNowSignal = defineSignal('trainNow');
export const tagTrainerStatusQuery = defineQuery<TagTrainerStatus>('status');

export const tagTrainerId = (tenant: string) => `${OPERATIONS.tagTrainer}:${tenant}`;

const attributes = (tenant: string, operation: string) => [
  { key: TenantId, value: tenant },
  { key: OperationAttr, value: operation },
];

export async function tagTrainerWorkflow(input: TagTrainerInput): Promise<void> {
  const timing = { ...TAG_TRAINER, ...input.timing };
  let pending = input.pending ?? false;
  let requested = input.requested ?? false;
  let changes = 0;
  const status: TagTrainerStatus = { state: 'waiting', pending, last: input.last };
  setHandler(tagCasesChangedSignal, () => {
    pending = true;
    changes += 1;
  });
  setHandler(trainTagsNowSignal, () => {
    requested = true;
  });
  setHandler(tagTrainerStatusQuery, () => ({ ...status, pending }));

  const due = await condition(() => requested || pending, timing.intervalMs);
  if (due && !requested) {
    // Debounce: wait until no change arrived for debounceMs, or maxDelayMs passed.
    status.state = 'debouncing';
    const firstChangeAt = Date.now();
    for (;;) {
      const seen = changes;
      const quiet = !(await condition(() => requested || changes !== seen, timing.debounceMs));
      if (quiet || requested || Date.now() - firstChangeAt >= timing.maxDelayMs) break;
    }
  }
  status.state = 'training';
  pending = false;
  requested = false;
  const startedAt = Date.now();
  let last: TagTrainerStatus['last'];
  try {
    const run = await executeChild(tagTrainingWorkflow, {
      workflowId: `${OPERATIONS.tagTraining}:${input.tenant}:${new Date(startedAt).toISOString()}`,
      args: [{ tenant: input.tenant }],
      typedSearchAttributes: attributes(input.tenant, OPERATIONS.tagTraining),
    });
    last = { startedAt, endedAt: Date.now(), run };
  } catch (err) {
    // The trainer itself was cancelled (its training with it): it ends, rather than record a
    // failed training and go on. A training cancelled on its own is recorded like any failure.
    if (isCancellation(err) && CancellationScope.current().consideredCancelled) throw err;
    // The activity gave up after its retries: record it, and train again on the next change.
    last = { startedAt, endedAt: Date.now(), error: failureReason(err) };
  }
  upsertMemo({
    lastTrainingEndedAt: new Date(last.endedAt).toISOString(),
    lastCases: last.run?.cases ?? null,
    lastTags: last.run?.tags ?? null,
    lastError: last.error ?? null,
  });
  await continueAsNew<typeof tagTrainerWorkflow>({
    tenant: input.tenant,
    timing: input.timing,
    pending,
    requested,
    last,
  });
}

/**
 * Why a training failed, in the activity's own words: the innermost cause. The child's failure
 * wraps the activity's ('Activity task failed'), which wraps the reason an operator can act on
 * (the fit's budget, say), which `npm run tags -- status` shows.
 */
function failureReason(err: unknown): string {
  let cause = err;
  while (cause instanceof Error && cause.cause instanceof Error) cause = cause.cause;
  return cause instanceof Error ? cause.message : String(cause);
}

/** One training run of a tenant's tag model. */
export async function tagTrainingWorkflow(input: { tenant: string }): Promise<TagTrainingRun> {
  const run = await tagTraining.trainTags(input);
  upsertMemo({
    cases: run.cases,
    tags: run.tags,
    spamCases: run.spamCases,
    rareTags: run.rareTags,
    holdoutAccuracy: run.holdoutAccuracy,
  });
  return run;
}

/**
 * Tells the tenant's trainer that cases changed, starting it when it does not run yet. Called by
 * the case-upload workflow once its cases are stored.
 */
export async function notifyTagTrainer(input: { tenant: string; timing?: Partial<TagTrainerTiming> }): Promise<void> {
  const id = tagTrainerId(input.tenant);
  try {
    await getExternalWorkflowHandle(id).signal(tagCasesChangedSignal);
    return;
  } catch {
    // Not running: start it below.
  }
  try {
    await startChild(tagTrainerWorkflow, {
      workflowId: id,
      args: [{ tenant: input.tenant, timing: input.timing, pending: true }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      typedSearchAttributes: attributes(input.tenant, OPERATIONS.tagTrainer),
      taskQueue: workflowInfo().taskQueue,
    });
  } catch (err) {
    // Started by another upload meanwhile: signal that one.
    if (!(err instanceof Error && err.name === 'WorkflowExecutionAlreadyStartedError')) throw err;
    await getExternalWorkflowHandle(id).signal(tagCasesChangedSignal);
  }
}
