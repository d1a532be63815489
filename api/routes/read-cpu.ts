/**
 * The reads' CPU work on tenant text (summary, sentiment, tag: domain/cpu/read-tasks.ts) on the
 * API's CPU threads, for one request: in its tenant's turn, stopped with the read's attempt, past
 * the pool's budget answered 400 (InputTooCostly, api/temporal-errors.ts), and a tenant with too
 * many tasks already waiting answered 429.
 */
import { CpuQueueFull, type CpuPool } from '../../domain/cpu/pool';
import type { ReadCpu } from '../../domain/cpu/read-tasks';
import { tooManyRequests } from '../errors';

/** Seconds a client is told to wait when its tenant's line for the CPU threads is full. */
const RETRY_AFTER_S = 1;

/** A task refused because its tenant's line for the threads is full, as the client's 429; anything else as it is. */
export function asCpuRefusal(err: unknown): unknown {
  return err instanceof CpuQueueFull
    ? tooManyRequests(RETRY_AFTER_S, `${err.message} in this API instance`).because('queue_full')
    : err;
}

/** The request's way to the threads; undefined without a pool (the work then runs on the event loop). */
export function readCpu(pool: CpuPool | undefined, o: { tenant: string; signal?: AbortSignal }): ReadCpu | undefined {
  if (!pool) return undefined;
  return (async ({ task, input }) => {
    try {
      return await pool.run({ task, input, tenant: o.tenant, signal: o.signal } as Parameters<CpuPool['run']>[0]);
    } catch (err) {
      throw asCpuRefusal(err);
    }
  }) as ReadCpu;
}
