/** The only workflowsPath: every workflow the worker registers. */
export * from './ingestion';
export * from './read-log';
export * from './ask-session';
export * from './answer-log';
export * from './evaluation';
export * from './tag-training';
export * from './eval-batch';
