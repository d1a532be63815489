/** Structured JSON logs (pino); each request logs through a child carrying its request id. */
import pino from 'pino';

/** At `info` until the API starts and sets LOG_LEVEL's level (api/server.ts). */
export const logger = pino({ level: 'info', base: { service: 'support-ai-api' } });
export type Logger = pino.Logger;
