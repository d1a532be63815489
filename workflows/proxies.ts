/**
 * One activity proxy per timeout profile. Every profile has a start-to-close timeout and a bounded
 * retry policy, so a dependency that stays down ends the workflow instead of retrying forever.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const NON_RETRYABLE = ['InvalidInput', 'NotFound'];

/** Writes to Weaviate with embeddings: minutes of work per batch, heartbeating per group. */
export const ingestion = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 5, nonRetryableErrorTypes: NON_RETRYABLE },
});

/** Interactive reads: a search answers in seconds or the request fails with 504. */
export const query = proxyActivities<Activities>({
  startToCloseTimeout: '20s',
  scheduleToCloseTimeout: '60s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '5s', maximumAttempts: 3, nonRetryableErrorTypes: NON_RETRYABLE },
});
