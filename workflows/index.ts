/** The only workflowsPath: every workflow the worker registers. */
export * from './ingestion';
export * from './read-log';
export * from './ask';
export * from './evaluate';
export * from './tag-training';
export * from './eval-batch';
