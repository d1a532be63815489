import { heartbeat } from '@temporalio/activity';

/**
 * Heartbeats `details` when called inside an activity (the Web UI shows them); elsewhere (a
 * benchmark or a test calling the function directly) there is nothing to report to.
 */
export function reportProgress(details: Record<string, unknown>): void {
  try {
    heartbeat(details);
  } catch {
    // Not inside an activity.
  }
}

/**
 * Heartbeats every second until `work` settles, so an activity waiting on a CPU thread (cpu/pool.ts)
 * still hears of its cancellation and its timeout, which the server reports only in answer to a
 * heartbeat.
 */
export async function heartbeating<T>(work: Promise<T>, details: Record<string, unknown>): Promise<T> {
  const timer = setInterval(() => reportProgress(details), 1000);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}
