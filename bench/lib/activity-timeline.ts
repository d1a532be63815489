/**
 * What Temporal knows of an upload's activities, for bench:isolation: when its first activity
 * attempt started (the end of its wait for an ingestion slot), how many attempts its activities
 * took, and when the last one closed. Read from the workflow's history and, while it runs, from its
 * pending activities. A history records an activity's start (with its attempt number) only when
 * the activity closes, and then only the last attempt's, so a caller that needs the first attempt of
 * a retried activity observes the workflow while it runs (`merge`).
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

type Timestamp = { seconds?: { toString(): string } | null; nanos?: number | null } | null | undefined;
const ms = (ts: Timestamp) => (ts ? Number(ts.seconds?.toString() ?? 0) * 1000 + (ts.nanos ?? 0) / 1e6 : undefined);

const EventType = temporal.api.enums.v1.EventType;
const STARTED_STATE = temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED;

export interface ActivityTimeline {
  workflowId: string;
  /** The workflow's status: `RUNNING`, `COMPLETED`, `FAILED`, `TERMINATED`, ... */
  status: string;
  /** Activities scheduled so far. */
  activities: number;
  /** Start of the earliest activity attempt seen, epoch ms. */
  firstStartedMs?: number;
  /** When the last activity closed (completed, failed, timed out), epoch ms. */
  lastClosedMs?: number;
  /** The largest attempt number seen over its activities, a retry scheduled but not started included (1: nothing was retried). */
  maxAttempt: number;
  /** The message of the last activity failure seen, if any. */
  lastFailure?: string;
}

/** The timeline of one workflow now. */
export async function activityTimeline(client: Client, workflowId: string): Promise<ActivityTimeline> {
  const handle = client.workflow.getHandle(workflowId);
  const [description, history] = await Promise.all([handle.describe(), handle.fetchHistory()]);
  const timeline: ActivityTimeline = { workflowId, status: description.status.name, activities: 0, maxAttempt: 0 };
  const started = (at: number | undefined, attempt: number | null | undefined) => {
    if (at !== undefined) timeline.firstStartedMs = Math.min(timeline.firstStartedMs ?? Infinity, at);
    timeline.maxAttempt = Math.max(timeline.maxAttempt, attempt ?? 1);
  };
  for (const e of history.events ?? []) {
    const at = ms(e.eventTime);
    switch (e.eventType) {
      case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
        timeline.activities += 1;
        break;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
        started(at, e.activityTaskStartedEventAttributes?.attempt);
        break;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED:
        timeline.lastFailure = e.activityTaskFailedEventAttributes?.failure?.message ?? undefined;
        timeline.lastClosedMs = at;
        break;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
      case EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT:
      case EventType.EVENT_TYPE_ACTIVITY_TASK_CANCELED:
        timeline.lastClosedMs = at;
        break;
    }
  }
  for (const p of description.raw.pendingActivities ?? []) {
    if (p.state === STARTED_STATE) started(ms(p.lastStartedTime), p.attempt);
    // Scheduled again after a failed attempt (a retry on its way) counts as that attempt.
    else if ((p.attempt ?? 1) > 1) timeline.maxAttempt = Math.max(timeline.maxAttempt, p.attempt ?? 1);
    if (p.lastFailure?.message) timeline.lastFailure = p.lastFailure.message;
  }
  return timeline;
}

/** Two observations of the same workflow as one: the earliest start, the most attempts, the latest state. */
export function merge(earlier: ActivityTimeline | undefined, later: ActivityTimeline): ActivityTimeline {
  if (!earlier) return later;
  const firstStartedMs = Math.min(earlier.firstStartedMs ?? Infinity, later.firstStartedMs ?? Infinity);
  return {
    ...later,
    firstStartedMs: Number.isFinite(firstStartedMs) ? firstStartedMs : undefined,
    maxAttempt: Math.max(earlier.maxAttempt, later.maxAttempt),
    lastFailure: later.lastFailure ?? earlier.lastFailure,
  };
}

/**
 * The workflows of the given requests (by the `requestId` the API keeps in each workflow's memo),
 * among a tenant's workflows of one operation. Visibility lags a little: listing is retried for up
 * to `waitMs` until every request has at least one.
 */
export async function workflowsOfRequests(
  client: Client,
  o: { tenant: string; operation: string; requestIds: ReadonlySet<string>; waitMs?: number },
): Promise<Map<string, string[]>> {
  const query = `TenantId="${o.tenant}" AND Operation="${o.operation}"`;
  const deadline = Date.now() + (o.waitMs ?? 10_000);
  for (;;) {
    const found = new Map<string, string[]>();
    for await (const wf of client.workflow.list({ query })) {
      const requestId = wf.memo?.requestId;
      if (typeof requestId === 'string' && o.requestIds.has(requestId))
        found.set(requestId, [...(found.get(requestId) ?? []), wf.workflowId]);
    }
    if (found.size >= o.requestIds.size || Date.now() > deadline) return found;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/**
 * Terminates a tenant's running workflows (except its read log), so work a phase left behind (an
 * upload still storing, a tag training) does not load the next one. At most `limit` of them.
 */
export async function terminateRunning(client: Client, tenant: string, limit = 2000): Promise<number> {
  let terminated = 0;
  const query = `TenantId="${tenant}" AND ExecutionStatus="Running"`;
  for await (const wf of client.workflow.list({ query })) {
    if (terminated >= limit) break;
    if (wf.workflowId.startsWith('reads:')) continue;
    await client.workflow
      .getHandle(wf.workflowId, wf.runId)
      .terminate('bench:isolation: the phase is over')
      .then(() => (terminated += 1))
      .catch(() => undefined); // it may have closed meanwhile
  }
  return terminated;
}

/**
 * A tenant's running workflows' activities now: how many are running on a worker (holding a slot),
 * for how long the oldest of them has, and how many wait in the queue for one. At most `limit`
 * workflows are looked at.
 */
export async function activitySlots(
  client: Client,
  tenant: string,
  limit = 200,
): Promise<{ workflows: number; running: number; waiting: number; running_longest_s: number | null }> {
  const counts = { workflows: 0, running: 0, waiting: 0, running_longest_s: null as number | null };
  const query = `TenantId="${tenant}" AND ExecutionStatus="Running"`;
  for await (const wf of client.workflow.list({ query })) {
    if (counts.workflows >= limit) break;
    if (wf.workflowId.startsWith('reads:')) continue;
    counts.workflows += 1;
    const description = await client.workflow
      .getHandle(wf.workflowId, wf.runId)
      .describe()
      .catch(() => undefined);
    for (const p of description?.raw.pendingActivities ?? []) {
      if (p.state === STARTED_STATE) {
        counts.running += 1;
        const since = ms(p.lastStartedTime);
        if (since !== undefined)
          counts.running_longest_s = Math.max(
            counts.running_longest_s ?? 0,
            Math.round((Date.now() - since) / 100) / 10,
          );
      } else counts.waiting += 1;
    }
  }
  return counts;
}
