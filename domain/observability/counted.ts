/**
 * The worker's outcome counters, as wrappers of the domain functions its activities bind
 * (activities/index.ts): uploads' items stored and failed, batch evaluation's records graded and
 * failed (with the chunks being graded as `supportai_batch_eval_active`), tag trainings run and
 * failed. An attempt that Temporal retries counts again: these count work done, not requests.
 */
import type { IngestResult } from '../weaviate/ingest';
import type { ChunkOutcome } from '../evaluation/batch';
import { batchEvalActive, batchEvalRecords, tagTrainings, uploads } from './metrics';

type Step<D, A, R> = (deps: D, input: A) => Promise<R>;

/** Counts an upload step's items stored and failed under `kind`; a step that returns an id stored one. */
export function countUploadItems<D, A, R extends IngestResult | { id: string }>(
  kind: 'articles' | 'cases' | 'incidents',
  step: Step<D, A, R>,
): Step<D, A, R> {
  return async function countedUpload(deps, input) {
    const result = await step(deps, input);
    const { stored, failed } = 'stored' in result ? result : { stored: 1, failed: [] };
    uploads.inc({ kind, outcome: 'stored' }, stored);
    if (failed.length) uploads.inc({ kind, outcome: 'failed' }, failed.length);
    return result;
  };
}

/** Counts a batch evaluation chunk's records graded and failed, and the chunks in progress. */
export function countGradedRecords<D, A>(step: Step<D, A, ChunkOutcome>): Step<D, A, ChunkOutcome> {
  return async function countedGrading(deps, input) {
    batchEvalActive.inc();
    try {
      const outcome = await step(deps, input);
      batchEvalRecords.inc({ outcome: 'graded' }, outcome.graded);
      if (outcome.failed) batchEvalRecords.inc({ outcome: 'failed' }, outcome.failed);
      return outcome;
    } finally {
      batchEvalActive.dec();
    }
  };
}

/** Counts a tag training's attempt as run (it finished) or failed. */
export function countTraining<D, A, R>(step: Step<D, A, R>): Step<D, A, R> {
  return async function countedTraining(deps, input) {
    try {
      const result = await step(deps, input);
      tagTrainings.inc({ outcome: 'run' });
      return result;
    } catch (err) {
      tagTrainings.inc({ outcome: 'failed' });
      throw err;
    }
  };
}
