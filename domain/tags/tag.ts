/**
 * Tags of a conversation, three ways (docs/api.md, "Tags"):
 * - the tenant has a tag model and a chat model is configured: the model picks from the tenant's
 *   tag vocabulary (model-engine.ts), source "model";
 * - the tenant has a tag model, no chat model: the trained model's tags (model.ts), source
 *   "trained", those scoring at least TAG_MIN_SCORE;
 * - the tenant has no tag model (no tagged cases yet): keyword tags from the message
 *   (keywords.ts), source "keyword".
 * At most TAG_LIMIT tags, highest score first.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { WeaviateClient } from 'weaviate-client';
import { inlineRead, type ReadCpu } from '../cpu/read-tasks';
import { FAILURE_TYPES } from '../failures';
import type { ChatGateway } from '../models/chat';
import type { Embedder } from '../models/embeddings';
import { TagModelCache } from '../weaviate/tag-models';
import { embeddedPart } from '../text/records';
import type { SearchPhase } from '../timings';
import { tagPredictor, type TagModel, type TagScore } from './model';
import { MODEL_VOCABULARY, tagWithModel } from './model-engine';

export const TAG_LIMIT = 5;
/** Trained tags below this probability are not returned. */
export const TAG_MIN_SCORE = 0.05;
/** Ask's intentTag needs this probability: the top tag is then right about 9 times in 10 (docs/benchmarks.md). */
export const INTENT_MIN_SCORE = 0.5;

export type TagSource = 'trained' | 'model' | 'keyword';
export interface SourcedTag extends TagScore {
  source: TagSource;
}

/** The tenant's trained tag predictor, from the process-wide cache. */
export type Predictor = ReturnType<typeof tagPredictor> & { model: TagModel };
export const tagModels = new TagModelCache<Predictor>({
  build: (model) => Object.assign(tagPredictor(model), { model }),
});

export interface TagDeps {
  weaviate: () => Promise<WeaviateClient>;
  embedder: Embedder;
  /** The English encoder, for a model trained with it. */
  english?: Embedder;
  chat: ChatGateway;
  tenant: string;
  signal?: AbortSignal;
  timings?: Partial<Record<SearchPhase, number>>;
}

async function timed<T>(deps: TagDeps, phase: SearchPhase, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await fn();
  } finally {
    if (deps.timings) deps.timings[phase] = (deps.timings[phase] ?? 0) + performance.now() - started;
  }
}

/** The trained model's scores for a message (all tags, best first), or undefined without a model. */
export async function trainedScores(
  deps: Omit<TagDeps, 'chat'>,
  input: { message: string },
): Promise<TagScore[] | undefined> {
  const predict = await tagModels.get(deps, deps.tenant);
  if (!predict) return undefined;
  // As much of the message is embedded as of a case (its vector's text).
  const text = embeddedPart(input.message);
  const read = (embedder: Embedder) =>
    embedder
      .embed({ texts: [text], inputType: 'passage', interactive: true, tenant: deps.tenant, signal: deps.signal })
      .then(([v]) => v);
  const english = predict.model.english ? deps.english : undefined;
  if (predict.model.english && english?.model !== predict.model.english) {
    // A configuration problem, not a passing one: no retry.
    throw ApplicationFailure.create({
      type: FAILURE_TYPES.unavailable,
      message: `the tag model reads texts with ${predict.model.english}, which is not configured`,
      nonRetryable: true,
    });
  }
  const [vector, englishVector] = await timed(deps as TagDeps, 'embed', () =>
    Promise.all([read(deps.embedder), english && read(english)]),
  );
  return predict({ vector, text, english: englishVector });
}

/** Ask's `intentTag`: the trained model's top tag when it scores at least INTENT_MIN_SCORE, else null. */
export async function questionIntent(deps: Omit<TagDeps, 'chat'>, input: { message: string }): Promise<string | null> {
  const [top] = (await trainedScores(deps, input)) ?? [];
  return top && top.score >= INTENT_MIN_SCORE ? top.name : null;
}

/**
 * The tags of a message. The CPU work on its text that grows with its length (its language, its
 * keywords, the model's prompt) runs through `cpu`: the API's CPU threads, or here without it.
 * The trained model reads the message's first 2,000 characters (embeddedPart) and costs at most
 * its own size (TAG_TRAINING.maxParameters), so it runs here.
 */
export async function tagConversation(
  deps: TagDeps & { cpu?: ReadCpu },
  input: { message: string; header?: unknown },
): Promise<{ tags: SourcedTag[]; engine: 'trained' | 'model' | 'keyword' }> {
  const cpu = deps.cpu ?? inlineRead;
  const scores = await trainedScores(deps, input);
  if (!scores) {
    const language = await cpu({ task: 'messageLanguage', input });
    const tags = await cpu({ task: 'keywordTags', input: { message: input.message, language, limit: TAG_LIMIT } });
    return { tags: tags.map((t) => ({ ...t, source: 'keyword' })), engine: 'keyword' };
  }
  if (deps.chat.complete) {
    const language = await cpu({ task: 'messageLanguage', input });
    const vocabulary = scores.slice(0, MODEL_VOCABULARY).map((s) => s.name);
    const limit = TAG_LIMIT;
    const prompt = (tokens: number) =>
      cpu({ task: 'tagPrompt', input: { message: input.message, language, vocabulary, limit, tokens } });
    const tags = await timed(deps, 'model', () =>
      tagWithModel({ chat: deps.chat, signal: deps.signal, prompt }, { ...input, language, vocabulary, limit }),
    );
    return { tags: tags.map((t) => ({ ...t, source: 'model' })), engine: 'model' };
  }
  const tags = scores.filter((s) => s.score >= TAG_MIN_SCORE).slice(0, TAG_LIMIT);
  return { tags: tags.map((t) => ({ name: t.name, score: round(t.score), source: 'trained' })), engine: 'trained' };
}

const round = (x: number) => Math.round(x * 10_000) / 10_000;
