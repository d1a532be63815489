/**
 * The ask worker that runs inside each API process, on the task queue `<TASK_QUEUE>-ask`, over the
 * API's own Temporal connection. With it the API starts each ask eagerly (`requestEagerStart`):
 * the server hands the new execution's first workflow task back in the start's answer, so the
 * ask's local activities (retrieval, composition, storing the answer) run here, in the process
 * the request waits in, with the API's embedding scheduler and fair admission, and no task goes
 * through the server's matching. When this worker has no free slot, the server dispatches the
 * task to any poller of the queue instead: the worker processes poll it too.
 */
import { NativeConnection, Runtime, Worker, type InjectedSinks, type WorkerOptions } from '@temporalio/worker';
import { createAskActivities, type AskActivityDeps } from '../activities';
import type { AskSinks, AskWorkflowResult } from '../workflows/ask';
import { askTaskQueue } from '../workflows/constants';
import { tracingSinks, tracingWorkerInterceptors } from './tracing';
import { workflowBundle } from './workflow-bundle';

export interface AskWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  deps: AskActivityDeps;
  /** A bundle holding askWorkflow; by default the shared one of every workflow (worker/workflow-bundle.ts). */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Model calls of asks this process runs at once (the local steps are local activities). */
  maxActivities: number;
  /**
   * Hears each ask this worker runs as it ends: its answer, stored, or undefined when it is failing
   * (api/ask-runtime/answered-asks.ts).
   */
  onEnded?: (workflowId: string, result: AskWorkflowResult | undefined) => void;
}

/** The sinks through which the ask workflow tells how it ends; a worker without a listener ignores them. */
export function askSinks(onEnded?: AskWorkerOptions['onEnded']): InjectedSinks<AskSinks> {
  return {
    asks: {
      answered: { fn: (info, result) => onEnded?.(info.workflowId, result), callDuringReplay: false },
      failed: { fn: (info) => onEnded?.(info.workflowId, undefined), callDuringReplay: false },
    },
  };
}

export interface AskWorker {
  /** Stops polling and waits for the tasks in hand. */
  stop(): Promise<void>;
}

export async function startAskWorker(o: AskWorkerOptions): Promise<AskWorker> {
  const worker = await Worker.create({
    connection: o.connection,
    namespace: o.namespace,
    taskQueue: askTaskQueue(o.taskQueue),
    workflowBundle: o.workflowBundle ?? (await workflowBundle({ logger: Runtime.instance().logger })),
    activities: createAskActivities(o.deps),
    // Traced asks' spans (worker/tracing.ts); both are empty while tracing is off.
    sinks: { ...askSinks(o.onEnded), ...tracingSinks() },
    interceptors: tracingWorkerInterceptors(),
    maxConcurrentActivityTaskExecutions: o.maxActivities,
  });
  const running = worker.run();
  return {
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    },
  };
}
