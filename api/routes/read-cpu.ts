/**
 * The reads' CPU work on tenant text (summary, sentiment, tag: domain/cpu/read-tasks.ts) on the
 * API's CPU threads, for one request: in its tenant's turn, stopped with the read's attempt, past
 * the pool's budget answered 400 (InputTooCostly, api/temporal-errors.ts), and a tenant with too
 * many tasks already waiting answered 429.
 */
import { ApplicationFailure } from '@temporalio/common';
import { CpuQueueFull, type CpuPool } from '../../domain/cpu/pool';
import type { ReadCpu } from '../../domain/cpu/read-tasks';
import { tooManyRequests } from '../errors';
import { applicationFailureToApiError } from '../temporal-errors';

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

/**
 * A large body's reading on the threads (`run`), outside any read: a task past its budget answered
 * as its 400 (InputTooCostly), a full line for the threads as 429.
 */
export async function bodyOnThreads<R>(run: () => Promise<R>): Promise<R> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof ApplicationFailure) throw applicationFailureToApiError(err);
    throw asCpuRefusal(err);
  }
}

/** The body's memory, moved to the thread rather than copied, when the Buffer is all of it (not a view into a pool). */
export const ownBuffer = (bytes: Buffer): ArrayBuffer[] | undefined =>
  bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? [bytes.buffer as ArrayBuffer] : undefined;
