/** Structured JSON logs (pino); each request logs through a child carrying its request id. */
import pino from 'pino';

export const logger = pino({ level: process.env.LOG_LEVEL ?? 'info', base: { service: 'support-ai-api' } });
export type Logger = pino.Logger;
