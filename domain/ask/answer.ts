/**
 * Ask, from question to stored answer, in the steps the ask workflow runs as activities
 * (workflows/ask.ts): read the session's earlier turns, make a follow-up standalone, retrieve what
 * the asker may see and keep the sources relevant enough (or abstain), compose with the
 * configured engine, store the answer. bench/lib/ask-in-process.ts runs the same steps one after
 * the other without Temporal, for the benchmark's baseline.
 */
import { questionIntent } from '../tags/tag';
import { type ChatGateway, forTenant } from '../models/chat';
import type { Embedder } from '../models/embeddings';
import { type AskRetrievalInput, retrieveAskSources, type Source } from '../weaviate/ask-retrieve';
import { type AnswerRecord, sessionAnswers, storeAnswers } from '../weaviate/answers';
import type { SearchPhase } from '../timings';
import type { Deps } from '../weaviate/retrieve';
import { ANSWER_THRESHOLD, chooseSources, type ComposedAnswer, type RankedSource } from './compose';
import { searchedQuestion } from './bounds';
import { standaloneQuestion, type Turn } from './follow-up';
import { phrases } from './i18n';
import { composeLocal } from './local-engine';
import { composeWithModel } from './model-engine';

/** A model reads more sources than the extract shows, and chooses among them itself. */
const MODEL_SOURCES = { ...ANSWER_THRESHOLD, secondaryMargin: 0.05, maxSources: 4 };

/** Turns of a session kept as the context of its next question, and characters of each answer. */
export const SESSION_CONTEXT = { turns: 10, answerChars: 1000 };

export type Engine = 'local' | 'openai';

/**
 * Milliseconds per step of one ask (Server-Timing, the benchmark's breakdown): `history`,
 * `retrieve`, `compose` or `model`, `store`; and within `retrieve` its phases `tenant`, `embed`, `hybrid`.
 */
export type AskTimings = Partial<Record<SearchPhase | 'history' | 'retrieve' | 'store', number>>;

/** One question as the API received it. */
export interface AskQuestion {
  tenant: string;
  /** The answer's id, chosen by the API: the stored answer's and the response's. */
  answerId: string;
  /** The session: the request's Chat-Identifier, else a new one. */
  chatId: string;
  question: string;
  /** Whether the request named a session, whose earlier turns are then the context. */
  followUp: boolean;
  productIds: string[];
  /** `agent` may be answered from cases too. */
  author: 'agent' | 'customer';
  /**
   * ISO 639-1 code of the request language: the header's, else the one the question shows
   * (text/language.ts); undefined when neither tells, and then the sources' language is used.
   */
  language?: string;
  /** Epoch ms: the recency of incidents, and the stored answer's time. */
  now: number;
}

/** What retrieval hands to composition. */
export interface AskSources {
  /** The question as searched for. */
  standalone: string;
  sources: RankedSource[];
  /** The language to answer in: the request's, else the sources', else English. */
  language: string;
  /** The tenant's tag model's reading of the question, when it has one. */
  intentTag: string | null;
  timings: AskTimings;
}

/** The answer as the API presents it. */
export interface AskAnswer {
  answerId: string;
  chatId: string;
  standalone: string;
  language: string;
  /** The engine that composed the answer: the built-in one when it stood in for a failed model (`fallback`). */
  engine: Engine;
  intentTag: string | null;
  /** The composed answer; its sources without their passages. */
  answer: ComposedAnswer;
  /** Why the built-in engine answered instead of the configured model (CHAT_FALLBACK=local): the model's failure. */
  fallback?: { reason: string };
}

/**
 * The tenant's language for a question that does not show its own: that of the first source
 * with a known language (an article's, declared or detected from its whole text), else English.
 */
export const sourcesLanguage = (sources: readonly Source[]): string =>
  sources.find((s) => s.language)?.language ?? 'en';

/** A stored answer as the context of the next question: its answer text shortened. */
export const turnOf = (record: AnswerRecord): Turn => ({
  question: record.question,
  standalone: record.standalone,
  answer: record.answer.slice(0, SESSION_CONTEXT.answerChars),
  answerId: record.answerId,
});

export type AskDeps = Deps & { chat: ChatGateway; english?: Embedder };

/** The session's last turns, oldest first, from its stored answers (each ask stores its answer before it returns). */
export async function readSessionTurns(
  deps: Pick<Deps, 'weaviate'>,
  input: { tenant: string; chatId: string },
): Promise<Turn[]> {
  const stored = await sessionAnswers(deps, { ...input, limit: SESSION_CONTEXT.turns });
  return stored.map(turnOf);
}

/**
 * The question as it is searched for. A follow-up is rewritten by the model when one is configured
 * (a model call, which the workflow runs as an activity of its own); otherwise locally.
 */
export function rewriteFollowUp(
  deps: { chat: ChatGateway; signal?: AbortSignal },
  input: { question: string; history: Turn[]; tenant?: string },
): Promise<string> {
  const chat = input.tenant ? forTenant(deps.chat, input.tenant) : deps.chat;
  return standaloneQuestion({ question: input.question, history: input.history, chat, signal: deps.signal });
}

/**
 * Retrieval: the sources the asker may see that are relevant enough (none: abstain), the language
 * to answer in, and the question's intent tag. `standalone` is the rewritten follow-up when the
 * model made it; otherwise the local rewrite is made here.
 */
export async function retrieveSources(
  deps: AskDeps,
  input: Pick<AskQuestion, 'tenant' | 'question' | 'productIds' | 'author' | 'language' | 'now'> & {
    history: Turn[];
    standalone?: string;
    engine: Engine;
  },
): Promise<AskSources> {
  const timings: AskTimings = {};
  const d = { ...deps, timings };
  const local = { ...deps.chat, complete: undefined };
  // What is searched for and composed from is the question's opening (ASK_BOUNDS): its cost is bounded.
  const standalone = searchedQuestion(input.standalone ?? (await rewriteFollowUp({ chat: local }, input)));
  const retrieval: AskRetrievalInput = {
    tenant: input.tenant,
    text: standalone,
    productIds: input.productIds,
    includeCases: input.author === 'agent',
    now: input.now,
  };
  const [candidates, intentTag] = await Promise.all([
    retrieveAskSources(d, retrieval),
    // The intent is an extra: when the tag model cannot be read, the answer goes without it.
    questionIntent({ ...deps, tenant: input.tenant }, { message: input.question }).catch((err) => {
      if (deps.signal?.aborted) throw err;
      return null;
    }),
  ]);
  const sources = chooseSources(standalone, candidates, input.engine === 'openai' ? MODEL_SOURCES : ANSWER_THRESHOLD);
  return { standalone, sources, language: input.language ?? sourcesLanguage(sources), intentTag, timings };
}

/**
 * Composition with the local engine: the extract of the sources that answers (milliseconds, no
 * model). Sources chosen for the model (`chosenFor: 'openai'`, when the local engine stands in
 * for it) are chosen again by the local engine's own threshold, so it abstains as it would have.
 */
export async function composeLocalAnswer(
  _deps: unknown,
  input: { standalone: string; sources: RankedSource[]; language: string; chosenFor?: Engine },
): Promise<ComposedAnswer> {
  const sources =
    input.chosenFor === 'openai' ? chooseSources(input.standalone, input.sources, ANSWER_THRESHOLD) : input.sources;
  return withoutPassages(composeLocal({ question: input.standalone, sources, language: input.language }));
}

/** Composition by the configured model: one model call, which the workflow runs as an activity of its own. */
export async function composeModelAnswer(
  deps: { chat: ChatGateway; signal?: AbortSignal },
  input: { question: string; history: Turn[]; sources: Source[]; language: string; tenant?: string },
): Promise<ComposedAnswer> {
  const chat = input.tenant ? forTenant(deps.chat, input.tenant) : deps.chat;
  return withoutPassages(await composeWithModel({ chat, ...input, signal: deps.signal }));
}

/** The used sources without their passages: the answer's links need only their titles and addresses. */
const withoutPassages = (answer: ComposedAnswer): ComposedAnswer => ({
  ...answer,
  used: answer.used.map((s) => ({ ...s, passages: [] })),
});

/** The answer's plain text without its citation markers: the response's `plaintext`, and what is stored. */
export const plainAnswer = (answer: ComposedAnswer): string =>
  answer.parts
    .map((p) => [p.lead, p.text].filter(Boolean).join(' '))
    .join('\n\n')
    // A citation takes the blanks before it; it starts where they start, not again inside them.
    .replace(/(?<!\s)\s*\[\d+(?:\s*,\s*\d+)*\]/g, '');

/** The answer as stored (collection AskAnswer): idempotent, its object id comes from the answer id. */
export async function storeAnswer(
  deps: Pick<Deps, 'weaviate'>,
  input: { question: AskQuestion; answer: AskAnswer },
): Promise<void> {
  const { question: q, answer: a } = input;
  const record: AnswerRecord = {
    answerId: a.answerId,
    chatId: a.chatId,
    question: q.question,
    standalone: a.standalone,
    answer: a.answer.responseType === 'no-answer' ? phrases(a.language).noAnswer : plainAnswer(a.answer),
    responseType: a.answer.responseType,
    language: a.language,
    author: q.author,
    engine: a.engine,
    sources: a.answer.used.map((s) => ({ kind: s.kind, id: s.id, title: s.title, url: s.url })),
    createdAt: q.now,
  };
  await storeAnswers(deps, { tenant: q.tenant, answers: [record] });
}

/** The answer to `q` from what retrieval found and what `engine` composed of it. */
export const answerFrom = (q: AskQuestion, found: AskSources, engine: Engine, answer: ComposedAnswer): AskAnswer => ({
  answerId: q.answerId,
  chatId: q.chatId,
  standalone: found.standalone,
  language: found.language,
  engine,
  intentTag: found.intentTag,
  answer,
});

/**
 * The whole ask with the local engine as one step: retrieval, the extract, storing the answer (unless
 * `store: false`). The ask workflow runs it as one local activity, so the sources' passages never
 * enter the history and the ask costs one activation of the workflow instead of three.
 */
export async function answerLocally(
  deps: AskDeps,
  input: { question: AskQuestion; history: Turn[]; store?: boolean },
): Promise<AskAnswer & { timings: AskTimings }> {
  const { question: q } = input;
  const retrieving = performance.now();
  const found = await retrieveSources(deps, { ...q, history: input.history, engine: 'local' });
  const composing = performance.now();
  const answer = await composeLocalAnswer(deps, found);
  const storing = performance.now();
  const result = answerFrom(q, found, 'local', answer);
  const store = input.store !== false;
  if (store) await storeAnswer(deps, { question: q, answer: result });
  const timings: AskTimings = {
    ...found.timings,
    retrieve: composing - retrieving,
    compose: storing - composing,
    ...(store ? { store: performance.now() - storing } : {}),
  };
  return { ...result, timings };
}
