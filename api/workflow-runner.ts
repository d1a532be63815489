/**
 * Starts workflows for the routes and waits for their results within the request's deadline.
 * Every workflow carries the TenantId and Operation search attributes, so operators can filter
 * runs per customer in the Temporal Web UI.
 */
import { Client, WorkflowHandle, WorkflowIdConflictPolicy } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import { askTaskQueue, OperationAttr, TenantId, type Operation } from '../workflows/constants';
import { requestTimeout, unavailable } from './errors';
import { deadlinePassed } from './middlewares/deadline';
import { temporalErrorToApiError } from './temporal-errors';
import { WorkerPresence } from './worker-presence';

export { OperationAttr, TenantId } from '../workflows/constants';

type WorkflowFn<A, R> = (input: A) => Promise<R>;

export interface StartOptions<A, R> {
  workflow: WorkflowFn<A, R>;
  operation: Operation;
  tenant: string;
  /** The business part of the workflow id; the id is `<operation>:<tenant>:<key>`. */
  key: string;
  input: A;
  /** Attach to a running workflow with the same id instead of failing (idempotent uploads). */
  attachToRunning?: boolean;
  /** The HTTP request that started it, kept in the workflow's memo to tie API logs to runs. */
  requestId?: string;
  /** The request's deadline (epoch ms): starting must not outlast it, even while Temporal does not answer. */
  deadline?: number;
  /** Search attributes beside TenantId and Operation. */
  attributes?: SearchAttributePair[];
  /**
   * Start it eagerly on the ask task queue, whose worker runs in this process (worker/ask-worker.ts):
   * the first workflow task comes back with the start. That worker is there whenever this process
   * is, so no poller check is needed.
   */
  eagerAsk?: boolean;
}

export class WorkflowRunner {
  readonly presence: WorkerPresence;

  constructor(
    readonly client: Client,
    readonly taskQueue: string,
    /** Whether `eagerAsk` starts are eager (ASK_EAGER_START); when not, the server dispatches their first task. */
    readonly eagerStarts = true,
  ) {
    this.presence = new WorkerPresence(client, client.options.namespace, taskQueue);
  }

  /** The id of the workflow `start` starts for `operation`, `tenant` and `key`. */
  static workflowId(o: { operation: Operation; tenant: string; key: string }): string {
    return `${o.operation}:${o.tenant}:${o.key}`;
  }

  async start<A, R>(o: StartOptions<A, R>): Promise<WorkflowHandle<WorkflowFn<A, R>>> {
    const start = async () => {
      if (!o.eagerAsk && !(await this.presence.isPolling())) throw unavailable('no worker is polling the task queue; try again shortly');
      return this.client.workflow.start(o.workflow, {
        taskQueue: o.eagerAsk ? askTaskQueue(this.taskQueue) : this.taskQueue,
        requestEagerStart: o.eagerAsk && this.eagerStarts,
        workflowId: WorkflowRunner.workflowId(o),
        args: [o.input],
        workflowIdConflictPolicy: o.attachToRunning ? WorkflowIdConflictPolicy.USE_EXISTING : WorkflowIdConflictPolicy.FAIL,
        memo: o.requestId ? { requestId: o.requestId } : undefined,
        typedSearchAttributes: [{ key: TenantId, value: o.tenant }, { key: OperationAttr, value: o.operation }, ...(o.attributes ?? [])],
      });
    };
    try {
      return await (o.deadline === undefined ? start() : this.client.withDeadline(o.deadline, start));
    } catch (err) {
      const mapped = temporalErrorToApiError(err, o.operation);
      // Not "work that was accepted continues": it may not have been started at all.
      if (mapped.code === 408) throw requestTimeout(`${o.operation} was not started before the request deadline; send it again (an upload sent again attaches to what was already started, so nothing is stored twice)`);
      throw mapped;
    }
  }

  /**
   * The workflow's result, or 408 when `deadline` (epoch ms) passes first; a result that arrives
   * once the deadline has passed, before its timer fired, is a 408 too (api/middlewares/deadline.ts).
   */
  async result<R>(handle: WorkflowHandle<WorkflowFn<any, R>>, deadline: number, operation: string): Promise<R> {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), Math.max(0, deadline - Date.now()));
    try {
      const result = await this.client.withAbortSignal(abort.signal, () => handle.result());
      if (!deadlinePassed(deadline)) return result;
    } catch (err) {
      if (!abort.signal.aborted && !deadlinePassed(deadline)) throw temporalErrorToApiError(err, operation);
    } finally {
      clearTimeout(timer);
    }
    throw temporalErrorToApiError(Object.assign(new Error('deadline'), { name: 'AbortError' }), operation);
  }

  async execute<A, R>(o: StartOptions<A, R> & { deadline: number }): Promise<R> {
    return this.result(await this.start(o), o.deadline, o.operation);
  }
}
