/**
 * The reads' CPU work on tenant text (summary, sentiment, tag: domain/cpu/read-tasks.ts) on the
 * API's CPU threads, for one request: in its tenant's turn, stopped with the read's attempt, past
 * the pool's budget answered 400 (InputTooCostly, api/temporal-errors.ts), and a tenant with too
 * many tasks already waiting answered 429.
 */
import { ApplicationFailure } from '@temporalio/common';
import { CpuQueueFull, type CpuPool } from '../../domain/cpu/pool';
import { inlineRead, type ReadCpu, type ReadTasks } from '../../domain/cpu/read-tasks';
import { ApiError, tooManyRequests } from '../errors';
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
  return (async ({ task, input, transfer }) => {
    try {
      return await pool.run({ task, input, transfer, tenant: o.tenant, signal: o.signal } as Parameters<
        CpuPool['run']
      >[0]);
    } catch (err) {
      throw asCpuRefusal(err);
    }
  }) as ReadCpu;
}

/** The tasks that read a large body from its bytes, and what they give for a body they accept. */
type BodyTask = 'readUploadBody' | 'readRequestBody';
type BodyRead<N extends BodyTask> = Exclude<ReturnType<ReadTasks[N]>, { error: unknown }>;

/** The body's memory, moved to the thread rather than copied, when the array is all of it (not a view into a pool). */
const ownBuffer = (bytes: Uint8Array): ArrayBuffer[] | undefined =>
  bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? [bytes.buffer as ArrayBuffer] : undefined;

/**
 * A large body (left as bytes by the body reader, middlewares/body.ts) read by `task`: on one of the
 * API's CPU threads in its tenant's turn, its bytes moved there, or here without threads. A body the
 * reader refuses answers its 400 or 413, a task past its budget its 400 (InputTooCostly), a full
 * line for the threads 429.
 */
export async function readLargeBody<N extends BodyTask>(o: {
  pool?: CpuPool;
  tenant: string;
  task: N;
  input: Parameters<ReadTasks[N]>[0];
}): Promise<BodyRead<N>> {
  const cpu = readCpu(o.pool, { tenant: o.tenant }) ?? inlineRead;
  let reading: ReturnType<ReadTasks[BodyTask]>;
  try {
    reading = await cpu({ task: o.task, input: o.input, transfer: ownBuffer(o.input.bytes) });
  } catch (err) {
    throw err instanceof ApplicationFailure ? applicationFailureToApiError(err) : err;
  }
  if ('error' in reading) throw new ApiError(reading.error.status, reading.error.message);
  return reading as BodyRead<N>;
}
