/**
 * Creates the worker: one task queue, all workflows, all activities, and concurrency bounded for
 * a small machine (the embedding server does the heavy lifting on the same cores).
 */
import { NativeConnection, Worker, WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../activities';
import type { ServicesConfig } from '../activities/config';
import { ensureCollections } from '../activities/weaviate/collections';
import { createActivityDeps } from './deps';

export interface CreateWorkerOptions {
  config: ServicesConfig;
  connection: NativeConnection;
  /** A prebuilt bundle (tests build it once); otherwise the workflows are bundled at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  taskQueue?: string;
}

export async function createWorker(o: CreateWorkerOptions): Promise<Worker> {
  const deps = createActivityDeps(o.config);
  await ensureCollections(await deps.weaviate());
  return Worker.create({
    connection: o.connection,
    namespace: o.config.temporal.namespace,
    taskQueue: o.taskQueue ?? o.config.temporal.taskQueue,
    ...(o.workflowBundle ? { workflowBundle: o.workflowBundle } : { workflowsPath: require.resolve('../workflows') }),
    activities: createActivities(deps),
    maxConcurrentActivityTaskExecutions: Number(process.env.WORKER_MAX_ACTIVITIES ?? 4),
  });
}
