/**
 * Sentiment, from message to score and level: the configured chat model when there is one
 * (model-engine.ts), else the local engine (local-engine.ts). Both answer on the same scale with
 * the same levels (levels.ts). The API runs it on its read path (api/read-path.ts), with that
 * path's timeouts and retries; the benchmark calls the local engine directly too.
 */
import type { ChatGateway } from '../models/chat';
import { requestLanguage } from '../text/language';
import type { Embedder } from '../models/embeddings';
import type { SearchPhase } from '../weaviate/retrieve';
import { scoreLocal, type SentimentInput, type SentimentScore } from './local-engine';
import { scoreWithModel } from './model-engine';

/** The language of a request: the header's, else the one the message shows, else English (text/language.ts). */
export const messageLanguage = (header: unknown, message: string) => requestLanguage({ header, text: message });

export interface SentimentResult extends SentimentScore {
  engine: 'local' | 'openai';
}

export async function analyzeSentiment(
  deps: {
    embedder: Embedder;
    english?: Embedder;
    chat: ChatGateway;
    tenant?: string;
    signal?: AbortSignal;
    timings?: Partial<Record<SearchPhase, number>>;
  },
  input: SentimentInput,
): Promise<SentimentResult> {
  if (!deps.chat.complete) return { ...(await scoreLocal(deps, input)), engine: 'local' };
  const started = performance.now();
  const score = await scoreWithModel({ chat: deps.chat, signal: deps.signal }, input);
  if (deps.timings) deps.timings.model = performance.now() - started;
  return { ...score, engine: deps.chat.engine };
}
