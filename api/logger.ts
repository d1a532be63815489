/**
 * Structured JSON logs (pino); each request logs through a child carrying its request id, and, with
 * tracing on, every line written within a trace carries its `trace_id` and `span_id`.
 */
import pino from 'pino';
import { traceLogFields } from '../domain/observability/tracing';

/** At `info` until the API starts and sets LOG_LEVEL's level (api/server.ts). */
export const logger = pino({ level: 'info', base: { service: 'support-ai-api' }, mixin: traceLogFields });
export type Logger = pino.Logger;
