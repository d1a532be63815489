/**
 * The retention purge (evalRetentionWorkflow in workflows/eval-batch.ts), which the daily
 * retention schedule starts (api/eval-retention.ts), on the time-skipping test server: it purges as
 * of the workflow's own clock, and rides out a store outage with its retries before giving up
 * until the next day's run. The test server has no schedules: the workflow is started as the
 * schedule's action starts it (the schedule itself is tested against the real stack, in
 * test/integration/eval-batch.test.ts). The purge activity is the test's own (the real one deletes
 * results in Weaviate).
 */
import assert from 'node:assert/strict';
import { activityInfo } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import type { Activities } from '../../activities';
import { OPERATIONS, OperationAttr } from '../../workflows/constants';
import { evalRetentionWorkflow } from '../../workflows/eval-batch';
import { eventTimeMs, historyOf, withTestWorkers, type TestWorkers } from '../helpers/time-skipping';

const DAY_MS = 86_400_000;

/** Starts the purge as the schedule's action does (workflow id and search attribute). */
function startPurge(w: TestWorkers) {
  return w.client.workflow.start(evalRetentionWorkflow, {
    taskQueue: w.taskQueue,
    workflowId: `${OPERATIONS.evalRetention}:${w.taskQueue}`,
    typedSearchAttributes: [{ key: OperationAttr, value: OPERATIONS.evalRetention }],
  });
}

describe('workflows: retention purge (time-skipping)', () => {
  it("purges as of the workflow's clock and returns what the purge deleted", async () => {
    const asked: number[] = [];
    const purge: Pick<Activities, 'purgeExpiredResults'> = {
      async purgeExpiredResults(input) {
        asked.push(input.now);
        return { tenants: 3, deleted: 42 };
      },
    };
    await withTestWorkers({ activities: purge }, async (w) => {
      // The server's clock a year and more ahead of the machine's: the cut-off follows the server's.
      const wallClock = Date.now();
      await w.env.sleep(400 * DAY_MS);
      const handle = await startPurge(w);
      assert.deepEqual(await handle.result(), { tenants: 3, deleted: 42 });

      const events = await historyOf({ env: w.env, workflowId: handle.workflowId });
      const scheduled = events.find((e) => e.activityTaskScheduledEventAttributes);
      assert.ok(scheduled);
      assert.equal(asked.length, 1);
      assert.ok(asked[0] >= wallClock + 400 * DAY_MS, `purged as of ${new Date(asked[0]).toISOString()}`);
      assert.ok(asked[0] >= eventTimeMs(events[0]) && asked[0] <= eventTimeMs(scheduled));
    });
  });

  it('rides out a store outage with retries', async () => {
    const attempts: number[] = [];
    const purge: Pick<Activities, 'purgeExpiredResults'> = {
      async purgeExpiredResults() {
        attempts.push(activityInfo().attempt);
        if (attempts.length < 3) throw new Error('connect ECONNREFUSED (test store down)');
        return { tenants: 1, deleted: 2 };
      },
    };
    await withTestWorkers({ activities: purge }, async (w) => {
      const handle = await startPurge(w);
      assert.deepEqual(await handle.result(), { tenants: 1, deleted: 2 });
      assert.deepEqual(attempts, [1, 2, 3]);
    });
  });

  it("gives up after five attempts, leaving the purge to the next day's run", async () => {
    const attempts: number[] = [];
    const purge: Pick<Activities, 'purgeExpiredResults'> = {
      async purgeExpiredResults() {
        attempts.push(activityInfo().attempt);
        throw ApplicationFailure.retryable('the vector store is unavailable', 'DependencyUnavailable');
      },
    };
    await withTestWorkers({ activities: purge }, async (w) => {
      const handle = await startPurge(w);
      const err = await handle.result().then(
        () => assert.fail('the purge completed'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof WorkflowFailedError);
      assert.ok(err.cause instanceof ActivityFailure);
      assert.deepEqual(attempts, [1, 2, 3, 4, 5]);
      // Back-off of 1, 2, 4 and 8 s between the attempts, in server time.
      const events = await historyOf({ env: w.env, workflowId: handle.workflowId });
      const elapsedMs = eventTimeMs(events.at(-1)!) - eventTimeMs(events[0]);
      assert.ok(elapsedMs >= 15_000, `gave up ${elapsedMs} ms after the start`);
    });
  });
});
