/**
 * Whether any worker is polling the task queue. Without one a started workflow would wait
 * silently, so the API answers 503 at once instead. A worker re-polls at least every long-poll
 * interval (10 s as the launcher configures Temporal), so a poll older than `windowMs` means
 * none is alive.
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/** A worker polls again within Temporal's long-poll interval (10 s) with room for a slow turn (WORKER_PRESENCE_WINDOW_MS). */
export const DEFAULT_WORKER_PRESENCE_WINDOW_MS = 25_000;

export class WorkerPresence {
  private lastSeen = 0;

  constructor(
    private readonly client: Client,
    private readonly namespace: string,
    private readonly taskQueue: string,
    private readonly windowMs = DEFAULT_WORKER_PRESENCE_WINDOW_MS,
  ) {}

  async isPolling(): Promise<boolean> {
    if (Date.now() - this.lastSeen < 1000) return true;
    const res = await this.client.workflowService.describeTaskQueue({
      namespace: this.namespace,
      taskQueue: { name: this.taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    });
    const newest = Math.max(0, ...(res.pollers ?? []).map((p) => Number(p.lastAccessTime?.seconds ?? 0) * 1000));
    const alive = Date.now() - newest < this.windowMs;
    if (alive) this.lastSeen = Date.now();
    return alive;
  }
}
