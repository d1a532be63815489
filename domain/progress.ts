/**
 * How long work reports how far it is. An activity passes a reporter that heartbeats (the Web UI
 * shows the details, and the server answers a heartbeat with cancellation); a benchmark or a test
 * calling the function directly passes none.
 */
export type Progress = (details?: Record<string, unknown>) => void;

/**
 * Reports `details` every second until `work` settles, so work waiting on a CPU thread
 * (cpu/pool.ts) still hears of its cancellation and its timeout, which the server reports only in
 * answer to a heartbeat.
 */
export async function heartbeating<T>(
  work: Promise<T>,
  o: { progress?: Progress; details: Record<string, unknown> },
): Promise<T> {
  const timer = o.progress && setInterval(() => o.progress?.(o.details), 1000);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}
