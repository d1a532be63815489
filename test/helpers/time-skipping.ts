/**
 * Workflow tests on Temporal's time-skipping test server (test/workflows): one server per mocha
 * run, started on first use and stopped after the last suite, and one bundle of the project's
 * workflows, built once, which every test worker loads. Timers, retry back-offs and continue-as-new
 * therefore run in skipped time: a day-long timer takes milliseconds.
 *
 * The server is the Java test server that `npm test` provisions (scripts/stack/provision.ts) and
 * names in TEMPORAL_TEST_SERVER; the testing package would otherwise download it at run time.
 */
import { randomBytes } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { WorkflowContinuedAsNewError, WorkflowNotFoundError } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';
import type { Activities } from '../../activities';
import { askSinks, type AskWorkerOptions } from '../../worker/ask-worker';
import { installRuntime } from '../../scripts/stack/in-process';
import { gradingTaskQueue, ingestionTaskQueue } from '../../workflows/constants';

export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

let environment: Promise<TestWorkflowEnvironment> | undefined;
let bundle: Promise<WorkflowBundle> | undefined;

/** The test server's executable, or a failure saying how to run these tests. */
function testServerPath(): string {
  const found = process.env.TEMPORAL_TEST_SERVER;
  if (!found) throw new Error('the workflow tests need the time-skipping test server: run them with `npm test`');
  return found;
}

/**
 * Starts the server. The testing package waits 5 s for it to listen; a JVM starting on two busy
 * cores may take longer, so a failed first start is tried once more (the package stops a server it
 * gave up on).
 */
async function startEnvironment(): Promise<TestWorkflowEnvironment> {
  const options = { server: { executable: { type: 'existing-path' as const, path: testServerPath() } } };
  installRuntime();
  const env = await TestWorkflowEnvironment.createTimeSkipping(options).catch((err) => {
    console.warn(`[time-skipping] the test server did not start (${err.message}); trying once more`);
    return TestWorkflowEnvironment.createTimeSkipping(options);
  });
  await registerSearchAttributes(env);
  return env;
}

/** The search attributes every workflow of the project sets (workflows/constants.ts), as the stack registers them. */
async function registerSearchAttributes(env: TestWorkflowEnvironment): Promise<void> {
  const keyword = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: { TenantId: keyword, Operation: keyword, ChatId: keyword },
  });
}

/** The run's time-skipping environment, started on first use. */
export function timeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  environment ??= startEnvironment();
  return environment;
}

/** The project's workflows (workflows/index.ts), bundled once per run. */
export function workflowBundle(): Promise<WorkflowBundle> {
  bundle ??= bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), logger: quietBundlerLogger });
  return bundle;
}

/** The bundler reports each build at info level; only its warnings and errors matter here. */
const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => console.warn(`[bundler] ${message}`),
  error: (message: string) => console.error(`[bundler] ${message}`),
};

/** Stops the server, if one was started (a start that failed has already been reported by the tests). */
export async function closeTimeSkipping(): Promise<void> {
  const started = await environment?.catch(() => undefined);
  environment = undefined;
  await started?.teardown();
}

// A root-level hook (registered when the first test file imports this module): the server
// outlives every suite and stops after the last one.
after(closeTimeSkipping);

/** What a test runs with its workers. */
export interface TestWorkers {
  env: TestWorkflowEnvironment;
  /** The time-skipping client: waiting on a result lets the server skip time. */
  client: TestWorkflowEnvironment['client'];
  /** The fresh task queue of the workflows; the activities also serve its ingestion and grading queues. */
  taskQueue: string;
}

/** What a test runs its workers with. */
export interface TestWorkerOptions {
  /** The test's activities (see withTestWorkers). */
  activities: Partial<Activities>;
  /**
   * Run on a server of its own, stopped after the test, instead of the shared one. For a test
   * that leaves work the test server never settles: an activity still running when its workflow
   * ended, or a child workflow ending after its parent, holds the server's clock still for every
   * later test, whose timers would then take their real time.
   */
  isolated?: boolean;
  /** Hears how each ask the workers run ends, through its sinks (worker/ask-worker.ts). */
  onAskEnded?: AskWorkerOptions['onEnded'];
}

/**
 * Runs `test` while workers serve a fresh task queue: the project's workflows, and `activities`
 * on that queue and on its ingestion and grading queues, as the real worker registers them
 * (worker/worker.ts). The activities are the test's own: the real ones where they need no service,
 * small implementations of the same signatures where they would need Weaviate.
 */
export async function withTestWorkers<T>(o: TestWorkerOptions, test: (w: TestWorkers) => Promise<T>): Promise<T> {
  if (!o.isolated) return runWorkers({ ...o, env: await timeSkippingEnv() }, test);
  const env = await startEnvironment();
  try {
    return await runWorkers({ ...o, env }, test);
  } finally {
    await env.teardown();
  }
}

async function runWorkers<T>(
  o: TestWorkerOptions & { env: TestWorkflowEnvironment },
  test: (w: TestWorkers) => Promise<T>,
): Promise<T> {
  const { env } = o;
  const workflowBundleCode = await workflowBundle();
  const taskQueue = `wf-test-${randomBytes(5).toString('hex')}`;
  const base = { connection: env.nativeConnection, namespace: env.namespace ?? 'default', activities: o.activities };
  const workers = [
    await Worker.create({ ...base, taskQueue, workflowBundle: workflowBundleCode, sinks: askSinks(o.onAskEnded) }),
  ];
  if (Object.keys(o.activities).length > 0) {
    workers.push(await Worker.create({ ...base, taskQueue: ingestionTaskQueue(taskQueue) }));
    workers.push(await Worker.create({ ...base, taskQueue: gradingTaskQueue(taskQueue) }));
  }
  const runs = workers.map((w) => w.run());
  const stopped = Promise.race(runs).then(() => {
    throw new Error('a test worker stopped before its test ended');
  });
  // Once the test is over the workers stop on purpose: that rejection is nobody's failure.
  stopped.catch(() => undefined);
  try {
    return await Promise.race([test({ env, client: env.client, taskQueue }), stopped]);
  } finally {
    for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
    await Promise.allSettled(runs);
  }
}

/** The events of one run of a workflow (its latest run without `runId`). */
export async function historyOf(o: {
  env: TestWorkflowEnvironment;
  workflowId: string;
  runId?: string;
}): Promise<HistoryEvent[]> {
  const history = await o.env.client.workflow.getHandle(o.workflowId, o.runId).fetchHistory();
  return history.events ?? [];
}

/** The runs of a workflow id, first to last, found by following each run's continue-as-new. */
export async function runChain(o: {
  env: TestWorkflowEnvironment;
  workflowId: string;
  firstRunId: string;
}): Promise<string[]> {
  const runs = [o.firstRunId];
  for (;;) {
    const events = await historyOf({ env: o.env, workflowId: o.workflowId, runId: runs[runs.length - 1] });
    const next = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
    if (!next) return runs;
    runs.push(next);
  }
}

/** The server time of a history event, in milliseconds. */
export function eventTimeMs(event: HistoryEvent): number {
  const t = event.eventTime;
  if (!t) throw new Error(`event ${event.eventId} has no time`);
  return Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6);
}

/**
 * Ends a workflow a test leaves running (a tag trainer, say) by cancelling it and waiting until it
 * has ended, so none of its timers fires into a later test. Not by terminating it: the test server
 * holds time still while a workflow task is due, and a run terminated with a task due never
 * releases that hold, so every later test would wait its timers out in real time. A run that
 * continues as new before the request reaches it is followed to the next. Not for a child whose
 * parent has ended (an abandoned one): its end would hold the clock too; such a test runs isolated.
 */
export async function cancelAndWait(o: { client: TestWorkers['client']; workflowId: string }): Promise<void> {
  for (;;) {
    const described = await o.client.workflow
      .getHandle(o.workflowId)
      .describe()
      .catch((err) => {
        if (err instanceof WorkflowNotFoundError) return undefined;
        throw err;
      });
    if (!described || described.status.name !== 'RUNNING') return;
    const run = o.client.workflow.getHandle(o.workflowId, described.runId);
    await run.cancel().catch(() => undefined);
    const continued = await o.client.workflow.result(o.workflowId, described.runId, { followRuns: false }).then(
      () => false,
      (err) => err instanceof WorkflowContinuedAsNewError,
    );
    if (!continued) return;
  }
}
