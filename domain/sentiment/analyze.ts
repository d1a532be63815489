/**
 * Sentiment, from message to score and level: the configured chat model when there is one
 * (model-engine.ts), else the local engine (local-engine.ts). Both answer on the same scale with
 * the same levels (levels.ts). The API runs it on its read path (api/read-path.ts), with that
 * path's timeouts and retries; the benchmark calls the local engine directly too.
 */
import { inlineRead, messageLanguage as readLanguage, type ReadCpu } from '../cpu/read-tasks';
import type { ChatGateway } from '../models/chat';
import type { Embedder } from '../models/embeddings';
import type { SearchPhase } from '../timings';
import { localModel, scoreLocal, type SentimentScore } from './local-engine';
import { scoreWithModel } from './model-engine';

/** The language of a request: the header's, else the one the message shows, else English (text/language.ts). */
export const messageLanguage = (header: unknown, message: string) => readLanguage({ header, message });

export interface SentimentResult extends SentimentScore {
  engine: 'local' | 'openai';
}

/**
 * The sentiment of a message, in the language of `header`, else the one it shows. The CPU work on
 * its text (its language, segments and lexicon readings, or the model's prompt) runs through
 * `cpu`: the API's CPU threads, or here without it.
 */
export async function analyzeSentiment(
  deps: {
    embedder: Embedder;
    english?: Embedder;
    chat: ChatGateway;
    tenant?: string;
    signal?: AbortSignal;
    timings?: Partial<Record<SearchPhase, number>>;
    cpu?: ReadCpu;
  },
  input: { message: string; header?: unknown },
): Promise<SentimentResult> {
  const cpu = deps.cpu ?? inlineRead;
  if (!deps.chat.complete) {
    const { language, ...text } = await cpu({ task: 'readSentiment', input });
    return { ...(await scoreLocal(deps, { message: input.message, language }, localModel(), text)), engine: 'local' };
  }
  const language = await cpu({ task: 'messageLanguage', input });
  const started = performance.now();
  const score = await scoreWithModel(
    {
      chat: deps.chat,
      signal: deps.signal,
      prompt: (tokens) => cpu({ task: 'sentimentPrompt', input: { message: input.message, language, tokens } }),
    },
    { message: input.message, language },
  );
  if (deps.timings) deps.timings.model = performance.now() - started;
  return { ...score, engine: deps.chat.engine };
}
