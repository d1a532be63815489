/**
 * Creates the worker: all workflows and the short activities on the task queue, the ingestion
 * activities and the grading activities each on a task queue next to it (workflows/constants.ts),
 * each with its own activity slots, and concurrency bounded for a small machine (the embedding
 * server does the heavy lifting on the same cores). A long upload or a large grading therefore
 * never holds the slots other work needs; grading's CPU work runs on threads (domain/cpu), and
 * tag training's fit on a thread of its own.
 */
import { NativeConnection, Runtime, Worker, WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../activities';
import { ensureCollections } from '../domain/weaviate/collections';
import { askTaskQueue, gradingTaskQueue, ingestionTaskQueue } from '../workflows/constants';
import { askSinks } from './ask-worker';
import type { WorkerConfig } from './config';
import { createActivityDeps } from './deps';
import { tracingSinks, tracingWorkerInterceptors } from './tracing';
import { workflowBundle as sharedBundle } from './workflow-bundle';

export interface CreateWorkerOptions {
  /** Parsed once at the process's start (worker/config.ts, loadWorkerConfig). */
  config: WorkerConfig;
  connection: NativeConnection;
  /** A bundle of the workflows; by default the shared one (worker/workflow-bundle.ts). */
  workflowBundle?: WorkerOptions['workflowBundle'];
  taskQueue?: string;
}

/** The Temporal workers of one process (one per task queue), run and stopped together. */
export interface SupportWorker {
  run(): Promise<void>;
  shutdown(): void;
}

export async function createWorker(o: CreateWorkerOptions): Promise<SupportWorker> {
  const deps = createActivityDeps(o.config);
  await ensureCollections(await deps.weaviate());
  // One set of activities (one embedding scheduler) for both queues. Each queue registers all of
  // them, so runs that scheduled an activity on the other queue before the split still complete.
  const activities = createActivities(deps);
  const { namespace } = o.config.services.temporal;
  const taskQueue = o.taskQueue ?? o.config.services.temporal.taskQueue;
  // One bundle for the two queues that run workflows, built before this process started.
  const workflowBundle = o.workflowBundle ?? (await sharedBundle({ logger: Runtime.instance().logger }));
  // Traced requests' spans (worker/tracing.ts): the activities' interceptor, and the workflows' sink.
  const interceptors = tracingWorkerInterceptors();
  const main = await Worker.create({
    connection: o.connection,
    namespace,
    taskQueue,
    workflowBundle,
    activities,
    sinks: tracingSinks(),
    interceptors,
    maxConcurrentActivityTaskExecutions: o.config.maxActivities.main,
  });
  // Asks the API processes' own ask workers did not take (docs/api.md, "Ask").
  const ask = await Worker.create({
    connection: o.connection,
    namespace,
    taskQueue: askTaskQueue(taskQueue),
    workflowBundle,
    activities,
    sinks: { ...askSinks(), ...tracingSinks() },
    interceptors,
    maxConcurrentActivityTaskExecutions: o.config.maxActivities.main,
  });
  const ingestion = await Worker.create({
    connection: o.connection,
    namespace,
    taskQueue: ingestionTaskQueue(taskQueue),
    activities,
    interceptors,
    maxConcurrentActivityTaskExecutions: o.config.maxActivities.ingestion,
  });
  const grading = await Worker.create({
    connection: o.connection,
    namespace,
    taskQueue: gradingTaskQueue(taskQueue),
    activities,
    interceptors,
    maxConcurrentActivityTaskExecutions: o.config.maxActivities.grading,
  });
  const workers = [main, ask, ingestion, grading];
  const stopRunning = () => {
    for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
  };
  return {
    async run() {
      // When one stops or fails, the other is stopped too; the first failure is reported.
      const results = await Promise.allSettled(workers.map((w) => w.run().finally(stopRunning)));
      await Promise.all([deps.cpu.close(), deps.tagCpu.close(), deps.tokens?.stop()]);
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    },
    shutdown: stopRunning,
  };
}
