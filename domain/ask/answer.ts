/**
 * Ask, from question to composed answer: make a follow-up standalone, retrieve what the asker may
 * see, keep the sources relevant enough (or abstain), and compose with the configured engine.
 * The API runs it on its read path (api/read-path.ts), with that path's timeouts and retries;
 * the benchmark calls it directly.
 */
import type { ChatGateway } from '../models/chat';
import { type AskRetrievalInput, retrieveAskSources, type Source } from '../weaviate/ask-retrieve';
import type { Deps } from '../weaviate/retrieve';
import { ANSWER_THRESHOLD, chooseSources, type ComposedAnswer } from './compose';
import { standaloneQuestion, type Turn } from './follow-up';
import { composeLocal } from './local-engine';
import { composeWithModel } from './model-engine';

/** A model reads more sources than the extract shows, and chooses among them itself. */
const MODEL_SOURCES = { ...ANSWER_THRESHOLD, secondaryMargin: 0.05, maxSources: 4 };

export interface AskInput {
  tenant: string;
  question: string;
  /** Earlier turns of the session, oldest first. */
  history: Turn[];
  productIds: string[];
  /** `agent` may be answered from cases too. */
  author: 'agent' | 'customer';
  /**
   * ISO 639-1 code of the request language: the header's, else the one the question shows
   * (text/language.ts); undefined when neither tells, and then the sources' language is used.
   */
  language?: string;
  /** Epoch ms, for the recency of incidents. */
  now: number;
}

export interface AskResult {
  answer: ComposedAnswer;
  /** The question as searched for. */
  standalone: string;
  /** The language answered in: the request's, else the sources', else English. */
  language: string;
  engine: 'local' | 'openai';
}

/**
 * The tenant's language for a question that does not show its own: that of the first source
 * with a known language (an article's, declared or detected from its whole text), else English.
 */
export const sourcesLanguage = (sources: readonly Source[]): string => sources.find((s) => s.language)?.language ?? 'en';

export async function answerQuestion(deps: Deps & { chat: ChatGateway }, input: AskInput): Promise<AskResult> {
  const standalone = await standaloneQuestion({ question: input.question, history: input.history, chat: deps.chat, signal: deps.signal });
  const retrieval: AskRetrievalInput = { tenant: input.tenant, text: standalone, productIds: input.productIds, includeCases: input.author === 'agent', now: input.now };
  const candidates = await retrieveAskSources(deps, retrieval);
  const sources = chooseSources(standalone, candidates, deps.chat.complete ? MODEL_SOURCES : ANSWER_THRESHOLD);
  const language = input.language ?? sourcesLanguage(sources);
  const started = performance.now();
  const answer = deps.chat.complete
    ? await composeWithModel({ chat: deps.chat, question: input.question, history: input.history, sources, language, signal: deps.signal })
    : composeLocal({ question: standalone, sources, language });
  if (deps.timings) deps.timings[deps.chat.complete ? 'model' : 'compose'] = performance.now() - started;
  return { answer, standalone, language, engine: deps.chat.engine };
}
