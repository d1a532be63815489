/**
 * The worker's logs as JSON lines (pino), like the API's: the Temporal runtime's own log entries
 * are routed through it with their metadata (workflow id, activity type, task queue). With tracing
 * on, every line written within a trace carries its `trace_id` and `span_id`.
 */
import { DefaultLogger, LogLevel } from '@temporalio/worker';
import pino from 'pino';
import { traceLogFields } from '../domain/observability/tracing';

/** At `info` until the worker starts and sets LOG_LEVEL's level (worker/main.ts). */
export const logger = pino({ level: 'info', base: { service: 'support-ai-worker' }, mixin: traceLogFields });

const LEVELS: Record<LogLevel, pino.Level> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/** A Temporal runtime logger at `level` that writes through pino (`into`: the worker's log, or the API's). */
export function temporalLogger(level: LogLevel, into: pino.Logger = logger): DefaultLogger {
  return new DefaultLogger(level, (entry) => {
    // pino serializes errors under `err`; the runtime puts them under `error`.
    const { error, ...meta } = (entry.meta ?? {}) as Record<string, unknown>;
    into[LEVELS[entry.level]]({ ...meta, ...(error ? { err: error } : {}) }, entry.message);
  });
}
