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
