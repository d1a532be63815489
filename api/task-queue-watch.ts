/**
 * Whether each of the project's task queues has a worker polling it, checked every few seconds in
 * the background and exported as `supportai_task_queue_pollers{task_queue}` (1 or 0) for the alert
 * NoWorkerPolling (docs/operations.md). A poll counts while it is younger than the presence window
 * (WORKER_PRESENCE_WINDOW_MS), as for the API's own 503 (worker-presence.ts). The ask queue is also
 * polled by every API's ask worker; the others only by worker processes.
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { setTimeout as sleep } from 'node:timers/promises';
import { taskQueuePollers } from '../domain/observability/metrics';
import { askTaskQueue, gradingTaskQueue, ingestionTaskQueue } from '../workflows/constants';
import type { Logger } from './logger';

const { TASK_QUEUE_TYPE_WORKFLOW: WORKFLOW, TASK_QUEUE_TYPE_ACTIVITY: ACTIVITY } = temporal.api.enums.v1.TaskQueueType;

export interface TaskQueueWatch {
  stop(): Promise<void>;
}

export function watchTaskQueues(o: {
  client: Client;
  namespace: string;
  taskQueue: string;
  windowMs: number;
  intervalMs?: number;
  logger: Logger;
}): TaskQueueWatch {
  const queues = [
    { label: 'workflows', name: o.taskQueue, type: WORKFLOW },
    { label: 'ask', name: askTaskQueue(o.taskQueue), type: WORKFLOW },
    { label: 'ingestion', name: ingestionTaskQueue(o.taskQueue), type: ACTIVITY },
    { label: 'grading', name: gradingTaskQueue(o.taskQueue), type: ACTIVITY },
  ];
  const stopping = new AbortController();
  const polled = async (q: (typeof queues)[number]) => {
    const res = await o.client.workflowService.describeTaskQueue({
      namespace: o.namespace,
      taskQueue: { name: q.name, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType: q.type,
    });
    const newest = Math.max(0, ...(res.pollers ?? []).map((p) => Number(p.lastAccessTime?.seconds ?? 0) * 1000));
    return Date.now() - newest < o.windowMs;
  };
  const loop = (async () => {
    while (!stopping.signal.aborted) {
      for (const q of queues) {
        try {
          taskQueuePollers.set({ task_queue: q.label }, (await polled(q)) ? 1 : 0);
        } catch (err) {
          // Temporal down: its own alert says so; the queue's state is unknown, not "no worker".
          taskQueuePollers.remove({ task_queue: q.label });
          o.logger.debug({ err, taskQueue: q.name }, 'could not describe the task queue');
        }
      }
      await sleep(o.intervalMs ?? 5000, undefined, { ref: false, signal: stopping.signal }).catch(() => undefined);
    }
  })();
  return {
    async stop() {
      stopping.abort();
      await loop;
    },
  };
}
