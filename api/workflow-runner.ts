/**
 * Starts workflows for the routes and waits for their results within the request's deadline.
 * Every workflow carries the TenantId and Operation search attributes, so operators can filter
 * runs per customer in the Temporal Web UI.
 */
import {
  Client,
  WorkflowHandle,
  WorkflowIdConflictPolicy,
  type WorkflowHandleWithStartDetails,
} from '@temporalio/client';
import type { SearchAttributePair, Workflow, WorkflowResultType } from '@temporalio/common';
import { askTaskQueue, OperationAttr, TenantId, tenantPriority, type Operation } from '../workflows/constants';
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
   * An ask: started on the ask task queue, whose worker runs in this process (api/ask-runtime),
   * eagerly when the runner has an eager client (the first workflow task comes back with the
   * start). That worker is there whenever this process is, so no poller check is needed.
   */
  eagerAsk?: boolean;
}

export class WorkflowRunner {
  readonly presence: WorkerPresence;

  constructor(
    readonly client: Client,
    readonly taskQueue: string,
    /**
     * The client that starts asks eagerly: one over the connection of this process's ask worker
     * (a NativeConnection, which eager starts need). Without it (or with ASK_EAGER_START=false)
     * the server dispatches asks' first tasks. Everything else, waiting for results included, goes
     * through `client`, whose calls an abort signal can end (a NativeConnection's cannot).
     */
    readonly eagerClient?: Client,
    /** With no poll of a worker within it, workflow starts answer 503 (WORKER_PRESENCE_WINDOW_MS). */
    presenceWindowMs?: number,
  ) {
    this.presence = new WorkerPresence(client, client.options.namespace, taskQueue, presenceWindowMs);
  }

  /** The id of the workflow `start` starts for `operation`, `tenant` and `key`. */
  static workflowId(o: { operation: Operation; tenant: string; key: string }): string {
    return `${o.operation}:${o.tenant}:${o.key}`;
  }

  async start<A, R>(o: StartOptions<A, R>): Promise<WorkflowHandleWithStartDetails<WorkflowFn<A, R>>> {
    const eager = Boolean(o.eagerAsk && this.eagerClient);
    const client = eager ? this.eagerClient! : this.client;
    const start = async () => {
      if (!o.eagerAsk && !(await this.presence.isPolling()))
        throw unavailable('no worker is polling the task queue; try again shortly').because(
          'dependency_unavailable',
          'worker',
        );
      return client.workflow.start(o.workflow, {
        taskQueue: o.eagerAsk ? askTaskQueue(this.taskQueue) : this.taskQueue,
        requestEagerStart: eager,
        workflowId: WorkflowRunner.workflowId(o),
        args: [o.input],
        workflowIdConflictPolicy: o.attachToRunning
          ? WorkflowIdConflictPolicy.USE_EXISTING
          : WorkflowIdConflictPolicy.FAIL,
        memo: o.requestId ? { requestId: o.requestId } : undefined,
        // The tenant's fair share of the task queues; its activities and child workflows inherit it.
        priority: tenantPriority(o.tenant),
        typedSearchAttributes: [
          { key: TenantId, value: o.tenant },
          { key: OperationAttr, value: o.operation },
          ...(o.attributes ?? []),
        ],
      });
    };
    try {
      return await (o.deadline === undefined ? start() : client.withDeadline(o.deadline, start));
    } catch (err) {
      const mapped = temporalErrorToApiError(err, o.operation);
      // Not "work that was accepted continues": it may not have been started at all.
      if (mapped.code === 408)
        throw requestTimeout(
          `${o.operation} was not started before the request deadline; send it again (an upload sent again attaches to what was already started, so nothing is stored twice)`,
        );
      throw mapped;
    }
  }

  /**
   * The workflow's result, or 408 when `deadline` (epoch ms) passes first; a result that arrives
   * once the deadline has passed, before its timer fired, is a 408 too (api/middlewares/deadline.ts).
   */
  async result<W extends Workflow>(
    handle: WorkflowHandle<W>,
    deadline: number,
    operation: string,
  ): Promise<WorkflowResultType<W>> {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), Math.max(0, deadline - Date.now()));
    try {
      // Through this runner's own client, whichever started it: its calls end when the signal aborts.
      const runId = 'firstExecutionRunId' in handle ? String(handle.firstExecutionRunId) : undefined;
      const own = this.client.workflow.getHandle<W>(handle.workflowId, runId);
      const result = await this.client.withAbortSignal(abort.signal, () => own.result());
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
