/**
 * The read log (workflows/read-log.ts) on the time-skipping test server, fed by the API's own
 * sender (api/read-log.ts): a flush starts the tenant's read log or signals the running one, each
 * batch adds to the totals in its memo, and after BATCHES_PER_RUN batches the run continues as
 * new with its totals and its start carried over, batches from several API instances included.
 * The workflow has no activities.
 */
import assert from 'node:assert/strict';
import { WorkflowContinuedAsNewError } from '@temporalio/client';
import { ReadLog, type ReadRecord } from '../../api/read-log';
import { OPERATIONS, TenantId } from '../../workflows/constants';
import { BATCHES_PER_RUN, type ReadLogState } from '../../workflows/read-log';
import { freshTenant } from '../helpers/harness';
import { cancelAndWait, historyOf, runChain, withTestWorkers, type TestWorkers } from '../helpers/time-skipping';

/** An API instance's read log, flushed by the test only (its own timer would fire in an hour). */
const apiReadLog = (w: TestWorkers) => new ReadLog({ client: w.client, taskQueue: w.taskQueue, flushMs: 3_600_000 });

const read = (tenant: string, status = 200, operation: string = OPERATIONS.searchCases): ReadRecord => ({
  tenant,
  operation,
  ms: 12,
  status,
});

/** The memo of the run, once the run has handled every signal sent so far (a query waits for that). */
async function memoOf(w: TestWorkers, o: { workflowId: string; runId?: string }): Promise<Record<string, any>> {
  const handle = w.client.workflow.getHandle(o.workflowId, o.runId);
  await handle.query('__stack_trace');
  return (await handle.describe()).memo ?? {};
}

/** Waits (in skipped time) until the run continues as new; returns the next run's id. */
async function nextRun(w: TestWorkers, o: { workflowId: string; runId: string }): Promise<string> {
  const err = await w.client.workflow.result(o.workflowId, o.runId, { followRuns: false }).then(
    () => assert.fail('the read log completed instead of continuing as new'),
    (e: unknown) => e,
  );
  if (!(err instanceof WorkflowContinuedAsNewError)) throw err;
  return err.newExecutionRunId;
}

/** The state a run was started with. */
async function startState(w: TestWorkers, o: { workflowId: string; runId: string }): Promise<ReadLogState> {
  const [started] = await historyOf({ env: w.env, ...o });
  const data = started.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
  assert.ok(data, 'the run has no input');
  return JSON.parse(Buffer.from(data).toString());
}

describe('workflows: read log (time-skipping)', () => {
  it("starts the tenant's read log on the first flush and adds each batch to its totals", async () => {
    await withTestWorkers({ activities: {} }, async (w) => {
      const tenant = freshTenant();
      const workflowId = `${OPERATIONS.reads}:${tenant}`;
      const log = apiReadLog(w);
      try {
        log.record(read(tenant, 200));
        log.record(read(tenant, 503));
        log.record(read(tenant, 408));
        log.record(read(tenant, 200, OPERATIONS.searchArticles));
        await log.flush();
        log.record(read(tenant, 200));
        log.record(read(tenant, 200));
        await log.flush();

        const memo = await memoOf(w, { workflowId });
        assert.deepEqual(memo.totals, {
          [OPERATIONS.searchCases]: { count: 5, failed: 1, timedOut: 1 },
          [OPERATIONS.searchArticles]: { count: 1, failed: 0, timedOut: 0 },
        });
        assert.deepEqual(Object.keys(memo.lastBatch.operations), [OPERATIONS.searchCases]);
        assert.equal(memo.lastBatch.operations[OPERATIONS.searchCases].count, 2);

        // One workflow, signalled twice: the second flush found it running.
        const described = await w.client.workflow.getHandle(workflowId).describe();
        assert.equal(described.typedSearchAttributes.get(TenantId), tenant);
        assert.equal(memo.since, described.startTime.toISOString());
        const events = await historyOf({ env: w.env, workflowId });
        assert.equal(events.filter((e) => e.workflowExecutionSignaledEventAttributes).length, 2);
      } finally {
        await log.stop();
        await cancelAndWait({ client: w.client, workflowId });
      }
    });
  });

  it('continues as new after its batches per run, carrying its totals and start, with several API instances sending', async () => {
    await withTestWorkers({ activities: {} }, async (w) => {
      const tenant = freshTenant();
      const workflowId = `${OPERATIONS.reads}:${tenant}`;
      const instances = [apiReadLog(w), apiReadLog(w), apiReadLog(w), apiReadLog(w)];
      try {
        // The first flush starts the run; then each instance flushes its share, all at once.
        instances[0].record(read(tenant, 503));
        await instances[0].flush();
        const firstRunId = (await w.client.workflow.getHandle(workflowId).describe()).runId;
        let sent = 1;
        await Promise.all(
          instances.map(async (log) => {
            while (sent < BATCHES_PER_RUN) {
              sent += 1;
              log.record(read(tenant));
              await log.flush();
            }
          }),
        );
        const secondRunId = await nextRun(w, { workflowId, runId: firstRunId });

        const first = await startState(w, { workflowId, runId: firstRunId });
        const second = await startState(w, { workflowId, runId: secondRunId });
        assert.deepEqual(second.totals, {
          [OPERATIONS.searchCases]: { count: BATCHES_PER_RUN, failed: 1, timedOut: 0 },
        });
        assert.equal(first.since, undefined);
        const { startTime } = await w.client.workflow.getHandle(workflowId, firstRunId).describe();
        assert.equal(second.since, startTime.toISOString());

        // The next batch adds to the carried totals.
        instances[1].record(read(tenant, 408));
        await instances[1].flush();
        const memo = await memoOf(w, { workflowId, runId: secondRunId });
        assert.deepEqual(memo.totals, {
          [OPERATIONS.searchCases]: { count: BATCHES_PER_RUN + 1, failed: 1, timedOut: 1 },
        });
        assert.equal(memo.since, second.since);
        assert.deepEqual(await runChain({ env: w.env, workflowId, firstRunId }), [firstRunId, secondRunId]);
      } finally {
        await Promise.all(instances.map((log) => log.stop()));
        await cancelAndWait({ client: w.client, workflowId });
      }
    });
  });
});
