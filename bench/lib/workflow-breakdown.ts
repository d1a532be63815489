/**
 * Where the time of a search through the API goes, read from the search workflows' histories: the
 * event timestamps split a workflow-per-search run into its steps, and the client's own timing of
 * the same request (paired by the X-Request-Id the API returns and keeps in the workflow's memo)
 * gives the rest: HTTP, the API's checks, the workflow start and the result poll.
 *
 * `workflowPhases` is pure and unit-tested in test/unit/bench-latency.test.ts.
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { percentile } from './load';

/** A history event: its type without the `EVENT_TYPE_` prefix and its time in epoch milliseconds. */
export interface TimedEvent {
  type: string;
  ms: number;
}

/** Milliseconds of each step of one search workflow; null when the history has no such step. */
export interface WorkflowPhases {
  /** Workflow started → its first workflow task started (task queue wait of the workflow task). */
  start_to_first_workflow_task_ms: number | null;
  /** First workflow task started → activity scheduled (the task runs, completes, schedules). */
  workflow_task_to_activity_scheduled_ms: number | null;
  /** Activity scheduled → started: the activity's wait in the task queue. */
  activity_queue_wait_ms: number | null;
  /** Activity started → completed: the retrieval itself, in the worker (last attempt). */
  activity_run_ms: number | null;
  /** Activity completed → workflow completed: the second workflow task and the completion. */
  activity_completed_to_workflow_completed_ms: number | null;
  /** Workflow started → workflow closed. */
  workflow_total_ms: number | null;
}

const CLOSED = [
  'WORKFLOW_EXECUTION_COMPLETED',
  'WORKFLOW_EXECUTION_FAILED',
  'WORKFLOW_EXECUTION_TIMED_OUT',
  'WORKFLOW_EXECUTION_TERMINATED',
  'WORKFLOW_EXECUTION_CANCELED',
];

export function workflowPhases(events: readonly TimedEvent[]): WorkflowPhases {
  const first = (...types: string[]) => events.find((e) => types.includes(e.type))?.ms;
  const last = (...types: string[]) => [...events].reverse().find((e) => types.includes(e.type))?.ms;
  const span = (from?: number, to?: number) =>
    from === undefined || to === undefined ? null : Math.round((to - from) * 100) / 100;
  const started = first('WORKFLOW_EXECUTION_STARTED');
  const firstTask = first('WORKFLOW_TASK_STARTED');
  const scheduled = first('ACTIVITY_TASK_SCHEDULED');
  const activityStarted = last('ACTIVITY_TASK_STARTED');
  const activityDone = last('ACTIVITY_TASK_COMPLETED', 'ACTIVITY_TASK_FAILED', 'ACTIVITY_TASK_TIMED_OUT');
  const closed = last(...CLOSED);
  return {
    start_to_first_workflow_task_ms: span(started, firstTask),
    workflow_task_to_activity_scheduled_ms: span(firstTask, scheduled),
    activity_queue_wait_ms: span(scheduled, activityStarted),
    activity_run_ms: span(activityStarted, activityDone),
    activity_completed_to_workflow_completed_ms: span(activityDone, closed),
    workflow_total_ms: span(started, closed),
  };
}

export interface PhaseStats {
  samples: number;
  mean_ms: number;
  p50_ms: number;
}

/** Mean and p50 of each phase over several workflows (nulls left out), plus the API's remainder. */
export function summarizePhases(rows: readonly (WorkflowPhases & { client_ms: number })[]): Record<string, PhaseStats> {
  const out: Record<string, PhaseStats> = {};
  const withRemainder = rows.map((r) => ({
    ...r,
    http_api_and_result_poll_ms: r.workflow_total_ms === null ? null : r.client_ms - r.workflow_total_ms,
  }));
  const keys = withRemainder.length ? (Object.keys(withRemainder[0]) as (keyof (typeof withRemainder)[number])[]) : [];
  for (const key of keys) {
    const values = withRemainder.map((r) => r[key]).filter((v): v is number => typeof v === 'number');
    if (!values.length) continue;
    const r2 = (x: number) => Math.round(x * 10) / 10;
    out[key] = {
      samples: values.length,
      mean_ms: r2(values.reduce((a, b) => a + b, 0) / values.length),
      p50_ms: r2(percentile(values, 0.5)),
    };
  }
  return out;
}

/** What the client's time minus the workflow's own time holds. */
const REMAINDER =
  "http_api_and_result_poll_ms = the client's time minus workflow started to closed: HTTP on the loopback, key and scope checks, " +
  "the rate limit, the API's search admission (its wait for a turn of the tenant), the worker-presence check, the workflow start call and the result long-poll";

function eventMs(ts: temporal.api.history.v1.IHistoryEvent['eventTime']): number {
  return Number(ts?.seconds?.toString() ?? 0) * 1000 + (ts?.nanos ?? 0) / 1e6;
}

/** The history of one workflow as timed events. */
export async function fetchTimedEvents(client: Client, workflowId: string): Promise<TimedEvent[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).map((e) => ({
    type: (temporal.api.enums.v1.EventType[e.eventType ?? 0] ?? 'UNSPECIFIED').replace(/^EVENT_TYPE_/, ''),
    ms: eventMs(e.eventTime),
  }));
}

/** Up to `n` items spread evenly over a list. */
export function spread<T>(items: readonly T[], n: number): T[] {
  if (items.length <= n) return [...items];
  return Array.from({ length: n }, (_, i) => items[Math.floor((i * items.length) / n)]);
}

/**
 * The breakdown for requests the client timed: `timings` maps each request's X-Request-Id to the
 * client's milliseconds. Finds their workflows by tenant and operation (the search attributes the
 * API sets), reads the histories of up to `sample` of them, and summarizes. Visibility is
 * eventually consistent, so listing is retried for a few seconds until every request is found.
 */
export async function searchWorkflowBreakdown(
  client: Client,
  o: { tenant: string; operation: string; timings: ReadonlyMap<string, number>; sample: number },
): Promise<{ workflows_found: number; workflows_read: number; remainder: string; phases: Record<string, PhaseStats> }> {
  const query = `TenantId="${o.tenant}" AND Operation="${o.operation}"`;
  let found: { id: string; requestId: string }[] = [];
  for (let attempt = 0; attempt < 10; attempt++) {
    found = [];
    for await (const wf of client.workflow.list({ query })) {
      const requestId = wf.memo?.requestId;
      if (typeof requestId === 'string' && o.timings.has(requestId)) found.push({ id: wf.workflowId, requestId });
    }
    if (found.length >= o.timings.size) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  // In the order the requests were sent, so the sample spreads evenly over the measurement.
  const idOf = new Map(found.map((f) => [f.requestId, f.id]));
  const ordered = [...o.timings.keys()].filter((requestId) => idOf.has(requestId));
  const rows = [];
  for (const requestId of spread(ordered, o.sample))
    rows.push({
      ...workflowPhases(await fetchTimedEvents(client, idOf.get(requestId)!)),
      client_ms: o.timings.get(requestId)!,
    });
  return {
    workflows_found: found.length,
    workflows_read: rows.length,
    remainder: REMAINDER,
    phases: summarizePhases(rows),
  };
}
