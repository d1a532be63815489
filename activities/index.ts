/**
 * All activities, created once per worker with the clients they share.
 */
import { Context } from '@temporalio/activity';
import type { Progress } from '../domain/progress';
import { activityProgress } from './progress';
import { runInput } from './workflow-input';
import type { Article } from '../domain/contracts/article';
import type { WeaviateClient } from 'weaviate-client';
import { classified } from '../domain/failures';
import type { CpuPool } from '../domain/cpu/pool';
import type { ChatGateway } from '../domain/models/chat';
import type { Embedder } from '../domain/models/embeddings';
import type { TokenMeter } from '../domain/models/token-meter';
import * as ask from '../domain/ask/answer';
import * as evaluation from '../domain/evaluation/evaluate';
import * as answers from '../domain/weaviate/answers';
import * as ingest from '../domain/weaviate/ingest';
import * as tags from '../domain/tags/train';
import * as batch from '../domain/evaluation/batch';
import { countGradedRecords, countTraining, countUploadItems } from '../domain/observability/counted';
import type { UseCaseStore } from '../domain/evaluation/use-cases';

export interface ActivityDeps {
  weaviate: () => Promise<WeaviateClient>;
  embedder: Embedder;
  /** The tag model's English encoder, when configured. */
  english?: Embedder;
  chat: ChatGateway;
  /** Counts the chat model's tokens (started when a model is configured; stopped with the worker). */
  tokens?: TokenMeter;
  /** Use cases of batch evaluation (the API resolves them itself for evaluate). */
  useCases: UseCaseStore;
  /** Threads for the CPU-heavy work on tenant text (grading, redaction), off the event loop. */
  cpu: CpuPool;
  /** The thread tag models are fitted on: apart from `cpu`, so a training of minutes never takes grading's threads. */
  tagCpu: CpuPool;
  /** How long one slice of an article upload stores passages (domain/weaviate/ingest.ts, INGEST_SLICE_MS). */
  ingestSliceMs?: number;
}

/** Binds an activity body to the shared clients and the current activity's cancellation signal. */
function bind<D, A, R>(deps: D, fn: (d: D & { signal?: AbortSignal; progress?: Progress }, input: A) => Promise<R>) {
  return classified((input: A) =>
    fn({ ...deps, signal: Context.current().cancellationSignal, progress: activityProgress() }, input),
  );
}

/** What a step of ask returns: its value and the milliseconds it took in the activity (the response's Server-Timing). */
export interface Measured<R> {
  value: R;
  ms: number;
}

/** `bind`, with the step's own duration returned beside its value. */
function measured<D, A, R>(deps: D, fn: (d: D & { signal?: AbortSignal }, input: A) => Promise<R>) {
  return bind(deps, async (d: D & { signal?: AbortSignal }, input: A): Promise<Measured<R>> => {
    const started = performance.now();
    const value = await fn(d, input);
    return { value, ms: performance.now() - started };
  });
}

/** What the ask activities need: the clients every process has (the API's ask worker builds them from its own). */
export type AskActivityDeps = Pick<ActivityDeps, 'weaviate' | 'embedder' | 'english' | 'chat'>;

/** The activities of ask (workflows/ask.ts), registered by the worker processes and by the API's ask worker. */
export function createAskActivities(deps: AskActivityDeps) {
  return {
    readSessionTurns: measured(deps, ask.readSessionTurns),
    rewriteFollowUp: bind(deps, ask.rewriteFollowUp),
    answerLocally: measured(deps, ask.answerLocally),
    retrieveSources: measured(deps, ask.retrieveSources),
    composeLocalAnswer: measured(deps, ask.composeLocalAnswer),
    composeModelAnswer: measured(deps, ask.composeModelAnswer),
    storeAnswer: measured(deps, ask.storeAnswer),
  };
}

export function createActivities(deps: ActivityDeps) {
  return {
    ...createAskActivities(deps),
    upsertArticles: bind(
      deps,
      countUploadItems('articles', (d, input: ingest.ArticleSliceInput) =>
        ingest.upsertArticles(
          { ...d, sliceMs: deps.ingestSliceMs, run: runInput((started: { articles: Article[] }) => started.articles) },
          input,
        ),
      ),
    ),
    deleteArticles: bind(deps, ingest.deleteArticles),
    upsertCases: bind(deps, countUploadItems('cases', ingest.upsertCases)),
    upsertIncident: bind(deps, countUploadItems('incidents', ingest.upsertIncident)),
    storeAnswers: bind(deps, answers.storeAnswers),
    evaluate: bind(deps, evaluation.evaluate),
    trainTags: bind(deps, countTraining(tags.trainTags)),
    planEvalImport: bind(deps, batch.planEvalImport),
    gradeImportChunk: bind(deps, countGradedRecords(batch.gradeImportChunk)),
    purgeExpiredResults: bind(deps, batch.purgeExpiredResults),
  };
}

export type Activities = ReturnType<typeof createActivities>;
