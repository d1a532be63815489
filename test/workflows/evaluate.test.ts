/**
 * Evaluate (workflows/evaluate.ts) on the time-skipping test server, with the real grading
 * activity (createActivities' evaluate: the built-in judge on a CPU thread, as without a chat
 * model): it grades on the grading task queue against the rules in its input, which the history
 * keeps; a judge that keeps failing is tried three times, an input past its CPU budget once.
 */
import assert from 'node:assert/strict';
import { activityInfo } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { createActivities, type Activities } from '../../activities';
import type { Rule } from '../../domain/contracts/evaluation';
import { createCpuPool, type CpuPool } from '../../domain/cpu/pool';
import { DEFAULT_USE_CASES_DIR, UseCaseStore } from '../../domain/evaluation/use-cases';
import { FAILURE_TYPES } from '../../domain/failures';
import { createChatGateway } from '../../domain/models/chat';
import { gradingTaskQueue } from '../../workflows/constants';
import { evaluateWorkflow } from '../../workflows/evaluate';
import { freshTenant } from '../helpers/harness';
import { historyOf, withTestWorkers, type TestWorkers } from '../helpers/time-skipping';

const RULES: Rule[] = [
  { id: 'commas', description: 'Do not use any commas in the answer.', category: 'Style', severity: 'warning' },
  {
    id: 'no-email',
    description: 'The answer must not contain any email addresses.',
    category: 'Privacy',
    severity: 'critical',
  },
];
const messages = [{ role: 'user', content: 'How do I reset my password?' }];

const noService = (name: string) => () => Promise.reject(new Error(`${name} is not part of the workflow tests`));

/**
 * The worker's real activities with the clients grading needs: no chat model (the built-in
 * judge) and a CPU thread. Weaviate and the embedding server are not there; grading never asks.
 */
function evaluateActivities(cpu: CpuPool): Pick<Activities, 'evaluate'> {
  const { evaluate } = createActivities({
    weaviate: noService('Weaviate'),
    embedder: { model: 'none', embed: noService('the embedding server') },
    chat: createChatGateway(undefined),
    useCases: new UseCaseStore(DEFAULT_USE_CASES_DIR),
    cpu,
    tagCpu: cpu,
  });
  return { evaluate };
}

function startEvaluate(w: TestWorkers, o: { output: string }) {
  const tenant = freshTenant();
  return w.client.workflow.start(evaluateWorkflow, {
    taskQueue: w.taskQueue,
    workflowId: `evaluate:${tenant}:${o.output.length}`,
    args: [{ tenant, messages, output: o.output, rules: RULES }],
  });
}

/** The failure a run ended with. */
async function failureOf(run: Promise<unknown>): Promise<WorkflowFailedError> {
  const err = await run.then(
    () => assert.fail('the evaluation completed'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof WorkflowFailedError, String(err));
  return err;
}

describe('workflows: evaluate (time-skipping)', () => {
  let cpu: CpuPool;
  before(() => {
    cpu = createCpuPool({ threads: 1, budgetMs: 30_000 });
  });
  after(() => cpu.close());

  it('grades with the built-in judge on the grading queue, critical failures first', async () => {
    await withTestWorkers({ activities: evaluateActivities(cpu) }, async (w) => {
      const handle = await startEvaluate(w, { output: 'Open Settings, then write to help@example.com.' });
      const grading = await handle.result();
      assert.deepEqual(
        grading.rules.map((r) => [r.ruleId, r.outcome]),
        [
          ['no-email', 'fail'],
          ['commas', 'fail'],
        ],
      );
      assert.equal(grading.correctness.verdict, 'defect');

      const events = await historyOf({ env: w.env, workflowId: handle.workflowId });
      const scheduled = events.flatMap((e) => e.activityTaskScheduledEventAttributes ?? []);
      assert.equal(scheduled.length, 1);
      assert.equal(scheduled[0].taskQueue?.name, gradingTaskQueue(w.taskQueue));
      // The history keeps what was graded against what.
      const input = JSON.parse(Buffer.from(scheduled[0].input!.payloads![0].data!).toString());
      assert.deepEqual(input.rules, RULES);
    });
  });

  it('passes an output that keeps the rules', async () => {
    await withTestWorkers({ activities: evaluateActivities(cpu) }, async (w) => {
      const grading = await (await startEvaluate(w, { output: 'Open Settings and choose Reset password.' })).result();
      assert.deepEqual(
        grading.rules.map((r) => [r.ruleId, r.outcome]),
        [
          ['commas', 'pass'],
          ['no-email', 'pass'],
        ],
      );
      assert.equal(grading.correctness.verdict, 'correct');
    });
  });

  it('tries a judge that keeps failing three times, then fails', async () => {
    const attempts: number[] = [];
    const stalled: Pick<Activities, 'evaluate'> = {
      async evaluate() {
        attempts.push(activityInfo().attempt);
        throw ApplicationFailure.retryable('the chat model did not answer in time', FAILURE_TYPES.timeout);
      },
    };
    await withTestWorkers({ activities: stalled }, async (w) => {
      const err = await failureOf((await startEvaluate(w, { output: 'Hello' })).result());
      assert.ok(err.cause instanceof ActivityFailure);
      assert.equal((err.cause.cause as ApplicationFailure).type, FAILURE_TYPES.timeout);
      assert.deepEqual(attempts, [1, 2, 3]);
    });
  });

  it('does not retry an input past its CPU budget', async () => {
    const attempts: number[] = [];
    const tooCostly: Pick<Activities, 'evaluate'> = {
      async evaluate() {
        attempts.push(activityInfo().attempt);
        throw ApplicationFailure.retryable('grading this output took longer than its budget', FAILURE_TYPES.tooCostly);
      },
    };
    await withTestWorkers({ activities: tooCostly }, async (w) => {
      const err = await failureOf((await startEvaluate(w, { output: 'Hello' })).result());
      assert.equal(((err.cause as ActivityFailure).cause as ApplicationFailure).type, FAILURE_TYPES.tooCostly);
      assert.deepEqual(attempts, [1]);
    });
  });

  it('grades with the built-in judge when the model judge fails for good and CHAT_FALLBACK=local, saying why', async () => {
    const engines: (string | undefined)[] = [];
    const { evaluate: builtin } = evaluateActivities(cpu);
    const modelDown: Pick<Activities, 'evaluate'> = {
      async evaluate(input) {
        engines.push(input.engine);
        if (input.engine !== 'local')
          throw ApplicationFailure.retryable('the model service is unavailable', FAILURE_TYPES.unavailable);
        return builtin(input);
      },
    };
    await withTestWorkers({ activities: modelDown }, async (w) => {
      const tenant = freshTenant();
      const deadline = (await w.env.currentTimeMs()) + 60_000;
      const result = await w.client.workflow.execute(evaluateWorkflow, {
        taskQueue: w.taskQueue,
        workflowId: `evaluate:${tenant}:fallback`,
        args: [
          {
            tenant,
            messages,
            output: 'Open Settings and choose Reset password.',
            rules: RULES,
            engine: 'openai',
            fallback: 'local',
            deadline,
          },
        ],
      });
      assert.deepEqual(engines, [undefined, undefined, undefined, 'local']);
      assert.equal(result.fallback?.reason, 'the model service is unavailable');
      assert.deepEqual(
        result.rules.map((r) => r.outcome),
        ['pass', 'pass'],
      );
    });
  });
});
