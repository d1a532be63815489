/**
 * The tag trainer (workflows/tag-training.ts) on the time-skipping test server, with its real
 * timing (TAG_TRAINER): a burst of case uploads trains once, 60 s after the last one; changes that
 * never pause train at the latest 10 minutes after the first; without changes it retrains daily;
 * an operator's request trains at once; a failed training is recorded and the trainer goes on.
 * The training activity is the test's own (the real one reads the tenant's cases from Weaviate).
 */
import assert from 'node:assert/strict';
import { Context, heartbeat } from '@temporalio/activity';
import {
  WorkflowContinuedAsNewError,
  WorkflowFailedError,
  type WorkflowHandleWithFirstExecutionRunId,
} from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { Activities } from '../../activities';
import type { TagTrainingRun } from '../../domain/tags/train';
import {
  TAG_TRAINER,
  tagCasesChangedSignal,
  tagTrainerId,
  tagTrainerStatusQuery,
  tagTrainerWorkflow,
  trainTagsNowSignal,
  type TagTrainerInput,
} from '../../workflows/tag-training';
import { freshTenant } from '../helpers/harness';
import {
  cancelAndWait,
  eventTimeMs,
  historyOf,
  runChain,
  withTestWorkers,
  type HistoryEvent,
  type TestWorkers,
} from '../helpers/time-skipping';

/** A training run as the real activity reports one; `cases` tells the trainings apart. */
const trainingRun = (cases: number): TagTrainingRun => ({
  taggedCases: cases,
  cases,
  spamCases: 0,
  tags: 3,
  rareTags: 0,
  holdoutAccuracy: 0.9,
  temperature: 1,
  version: cases,
  durationMs: 5,
});

/** A training activity that counts its calls and answers a run with that count. */
function countingTrainer(calls: { tenant: string }[]): Pick<Activities, 'trainTags'> {
  return {
    async trainTags(input) {
      calls.push(input);
      return trainingRun(calls.length);
    },
  };
}

/** Starts the tenant's trainer as the case upload does (pending: cases changed), or idle. */
async function startTrainer(
  w: TestWorkers,
  o: { tenant: string; pending: boolean },
): Promise<WorkflowHandleWithFirstExecutionRunId<typeof tagTrainerWorkflow>> {
  return w.client.workflow.start(tagTrainerWorkflow, {
    taskQueue: w.taskQueue,
    workflowId: tagTrainerId(o.tenant),
    args: [{ tenant: o.tenant, pending: o.pending }],
  });
}

/**
 * Waits (in skipped time) until the run ends by continuing as new, as the trainer does after each
 * training, and returns the next run's id.
 */
async function nextRun(w: TestWorkers, o: { workflowId: string; runId: string }): Promise<string> {
  const err = await w.client.workflow.result(o.workflowId, o.runId, { followRuns: false }).then(
    () => assert.fail('the trainer completed instead of continuing as new'),
    (e: unknown) => e,
  );
  if (!(err instanceof WorkflowContinuedAsNewError)) throw err;
  return err.newExecutionRunId;
}

/** The events of one kind, by the name of their attributes. */
function eventsWith(events: HistoryEvent[], attributes: keyof HistoryEvent): HistoryEvent[] {
  return events.filter((e) => e[attributes] != null);
}

/**
 * What the run handed to its next run when it continued as new: its last training and what is
 * still pending. Read from the history rather than asked of the next run, which may have trained
 * again by then (the server skips to its timer whenever nothing else is due).
 */
function continuedWith(events: HistoryEvent[]): TagTrainerInput {
  const data = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.input?.payloads?.[0]?.data;
  assert.ok(data, 'the run did not continue as new');
  return JSON.parse(Buffer.from(data).toString());
}

/** When the run started its one training (the child workflow), in server time. */
function trainingStartMs(events: HistoryEvent[]): number {
  const started = eventsWith(events, 'startChildWorkflowExecutionInitiatedEventAttributes');
  assert.equal(started.length, 1, 'a run of the trainer trains exactly once');
  return eventTimeMs(started[0]);
}

describe('workflows: tag training (time-skipping)', () => {
  it('trains once, 60 s after the last change of a burst of uploads', async () => {
    const calls: { tenant: string }[] = [];
    await withTestWorkers({ activities: countingTrainer(calls) }, async (w) => {
      const tenant = freshTenant();
      const handle = await startTrainer(w, { tenant, pending: true });
      try {
        // Three more uploads, 20 s apart: each one restarts the 60 s of quiet.
        for (let i = 0; i < 3; i++) {
          await w.env.sleep('20s');
          await handle.signal(tagCasesChangedSignal);
        }
        const debouncing = await handle.query(tagTrainerStatusQuery);
        assert.deepEqual(debouncing, { state: 'debouncing', pending: true });
        await nextRun(w, { workflowId: handle.workflowId, runId: handle.firstExecutionRunId });

        const events = await historyOf({
          env: w.env,
          workflowId: handle.workflowId,
          runId: handle.firstExecutionRunId,
        });
        const signals = eventsWith(events, 'workflowExecutionSignaledEventAttributes');
        assert.equal(signals.length, 3);
        const quietMs = trainingStartMs(events) - eventTimeMs(signals[2]);
        assert.ok(quietMs >= TAG_TRAINER.debounceMs, `trained ${quietMs} ms after the last change`);
        // One 60 s timer per change; each change cancelled the previous one; only the last fired.
        const timers = eventsWith(events, 'timerStartedEventAttributes');
        assert.deepEqual(
          timers.map((t) => Number(t.timerStartedEventAttributes!.startToFireTimeout!.seconds)),
          [60, 60, 60, 60],
        );
        assert.equal(eventsWith(events, 'timerCanceledEventAttributes').length, 3);
        assert.equal(eventsWith(events, 'timerFiredEventAttributes').length, 1);
        assert.deepEqual(calls[0], { tenant });

        const next = continuedWith(events);
        assert.equal(next.pending, false);
        assert.equal(next.requested, false);
        assert.deepEqual(next.last?.run, trainingRun(1));
      } finally {
        await cancelAndWait({ client: w.client, workflowId: handle.workflowId });
      }
    });
  });

  it('trains at the latest 10 minutes after the first change when changes never pause', async () => {
    const calls: { tenant: string }[] = [];
    await withTestWorkers({ activities: countingTrainer(calls) }, async (w) => {
      const tenant = freshTenant();
      const handle = await startTrainer(w, { tenant, pending: true });
      const firstRun = w.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId);
      try {
        // A change every 30 s, until the first run has trained and continued as new.
        while ((await firstRun.describe()).status.name === 'RUNNING') {
          await w.env.sleep('30s');
          await handle.signal(tagCasesChangedSignal);
        }
        const events = await historyOf({
          env: w.env,
          workflowId: handle.workflowId,
          runId: handle.firstExecutionRunId,
        });
        const sinceFirstChangeMs = trainingStartMs(events) - eventTimeMs(events[0]);
        assert.ok(
          sinceFirstChangeMs >= TAG_TRAINER.maxDelayMs,
          `trained ${sinceFirstChangeMs} ms after the first change`,
        );
        // No 60 s of quiet ever came: every debounce timer was cancelled by the next change.
        assert.equal(eventsWith(events, 'timerFiredEventAttributes').length, 0);
        assert.ok(eventsWith(events, 'timerCanceledEventAttributes').length >= 19);
        assert.deepEqual(continuedWith(events).last?.run, trainingRun(1));
      } finally {
        await cancelAndWait({ client: w.client, workflowId: handle.workflowId });
      }
    });
  });

  it('retrains daily without changes', async () => {
    const calls: { tenant: string }[] = [];
    await withTestWorkers({ activities: countingTrainer(calls) }, async (w) => {
      const tenant = freshTenant();
      const handle = await startTrainer(w, { tenant, pending: false });
      try {
        const runs = [handle.firstExecutionRunId];
        for (let day = 0; day < 2; day++)
          runs.push(await nextRun(w, { workflowId: handle.workflowId, runId: runs[day] }));

        const days = await Promise.all(
          runs.slice(0, 2).map((runId) => historyOf({ env: w.env, workflowId: handle.workflowId, runId })),
        );
        for (const [day, events] of days.entries()) {
          const timers = eventsWith(events, 'timerStartedEventAttributes');
          assert.deepEqual(
            timers.map((t) => Number(t.timerStartedEventAttributes!.startToFireTimeout!.seconds) * 1000),
            [TAG_TRAINER.intervalMs],
          );
          const waitedMs = trainingStartMs(events) - eventTimeMs(events[0]);
          assert.ok(waitedMs >= TAG_TRAINER.intervalMs, `retrained ${waitedMs} ms after the run started`);
          assert.deepEqual(continuedWith(events).last?.run, trainingRun(day + 1));
        }
      } finally {
        await cancelAndWait({ client: w.client, workflowId: handle.workflowId });
      }
    });
  });

  it("trains at once on an operator's request, without the debounce", async () => {
    const calls: { tenant: string }[] = [];
    await withTestWorkers({ activities: countingTrainer(calls) }, async (w) => {
      const tenant = freshTenant();
      const handle = await startTrainer(w, { tenant, pending: false });
      try {
        await w.env.sleep('1 hour');
        await handle.signal(trainTagsNowSignal);
        await nextRun(w, { workflowId: handle.workflowId, runId: handle.firstExecutionRunId });
        const events = await historyOf({
          env: w.env,
          workflowId: handle.workflowId,
          runId: handle.firstExecutionRunId,
        });
        // The daily timer was cancelled by the request; no other timer ran.
        assert.equal(eventsWith(events, 'timerStartedEventAttributes').length, 1);
        assert.equal(eventsWith(events, 'timerCanceledEventAttributes').length, 1);
        const [request] = eventsWith(events, 'workflowExecutionSignaledEventAttributes');
        assert.ok(trainingStartMs(events) - eventTimeMs(request) < TAG_TRAINER.debounceMs);
        assert.deepEqual(continuedWith(events).last?.run, trainingRun(1));
      } finally {
        await cancelAndWait({ client: w.client, workflowId: handle.workflowId });
      }
    });
  });

  it("records a failed training in the activity's own words and keeps running", async () => {
    const failing: Pick<Activities, 'trainTags'> = {
      async trainTags() {
        throw ApplicationFailure.create({ type: 'InvalidInput', message: 'the tag model cannot be stored' });
      },
    };
    await withTestWorkers({ activities: failing }, async (w) => {
      const handle = await startTrainer(w, { tenant: freshTenant(), pending: false });
      try {
        await handle.signal(trainTagsNowSignal);
        await nextRun(w, { workflowId: handle.workflowId, runId: handle.firstExecutionRunId });
        const events = await historyOf({
          env: w.env,
          workflowId: handle.workflowId,
          runId: handle.firstExecutionRunId,
        });
        const { last } = continuedWith(events);
        assert.equal(last?.run, undefined);
        assert.equal(last?.error, 'the tag model cannot be stored');
        const { memo } = await w.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).describe();
        assert.equal(memo?.lastError, 'the tag model cannot be stored');
      } finally {
        await cancelAndWait({ client: w.client, workflowId: handle.workflowId });
      }
    });
  });

  it('ends when cancelled during a training, cancelling the training', async () => {
    let trainingStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (trainingStarted = resolve));
    const blocking: Pick<Activities, 'trainTags'> = {
      async trainTags() {
        trainingStarted();
        // Runs until its cancellation arrives (with a heartbeat, as the real training's does) or the worker stops.
        for (;;) {
          heartbeat();
          await Context.current().sleep(50);
        }
      },
    };
    // Isolated: the training's activity outlives its cancelled workflow.
    await withTestWorkers({ activities: blocking, isolated: true }, async (w) => {
      const handle = await startTrainer(w, { tenant: freshTenant(), pending: false });
      await handle.signal(trainTagsNowSignal);
      await started;
      await handle.cancel();
      const err = await handle.result().then(
        () => assert.fail('the trainer completed'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof WorkflowFailedError, String(err));
      assert.ok(err.cause instanceof CancelledFailure, String(err.cause));
      // The run ended there: no continue-as-new recording the cancellation as a failed training.
      const runs = await runChain({
        env: w.env,
        workflowId: handle.workflowId,
        firstRunId: handle.firstExecutionRunId,
      });
      assert.deepEqual(runs, [handle.firstExecutionRunId]);
      const events = await historyOf({ env: w.env, workflowId: handle.workflowId });
      const [child] = eventsWith(events, 'startChildWorkflowExecutionInitiatedEventAttributes');
      const training = child.startChildWorkflowExecutionInitiatedEventAttributes!.workflowId!;
      assert.equal((await w.client.workflow.getHandle(training).describe()).status.name, 'CANCELLED');
    });
  });
});
