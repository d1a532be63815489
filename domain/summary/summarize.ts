/**
 * Summary, from conversation to draft: the configured chat model when there is one, else the
 * built-in extractive engine. The API runs it on its read path (api/read-path.ts), with that
 * path's timeouts and retries; the benchmark calls the local engine directly too.
 * An uploaded case is read by its id with its public text only: subject, description and public
 * comments. Private comments are stored apart and never fetched here.
 */
import type { WeaviateClient } from 'weaviate-client';
import { inlineRead, type ReadCpu } from '../cpu/read-tasks';
import type { ChatGateway } from '../models/chat';
import { COLLECTIONS, tenantCollection } from '../weaviate/collections';
import { objectId } from '../weaviate/ingest';
import type { SearchPhase } from '../timings';
import type { ConversationText } from './conversation';
import type { SummaryDraft } from './local-engine';
import { summarizeWithModel } from './model-engine';

export interface SummaryResult {
  draft: SummaryDraft;
  engine: 'local' | 'openai';
}

/** Whether the request itself carries text to summarize. */
export const hasText = (c: ConversationText) =>
  Boolean(c.subject?.trim() || c.description?.trim() || c.comments?.some((m) => m.trim()));

/**
 * The public text of the tenant's case `caseId`, or undefined when the tenant has no such case.
 * Public comments are stored one per paragraph, in upload order.
 */
export async function caseConversation(
  deps: { weaviate: () => Promise<WeaviateClient> },
  input: { tenant: string; caseId: string },
): Promise<ConversationText | undefined> {
  const collection = await tenantCollection(await deps.weaviate(), COLLECTIONS.supportCase, input.tenant);
  const found = await collection?.query.fetchObjectById(objectId(input.tenant, 'case', input.caseId), {
    returnProperties: ['subject', 'description', 'comments'],
  });
  if (!found) return undefined;
  const p = found.properties as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  return {
    subject: text(p.subject),
    description: text(p.description),
    comments: text(p.comments)
      .split(/\n\s*\n/)
      .filter((m) => m.trim()),
  };
}

/**
 * The summary of a conversation, in the language of `header`, else the one it shows. The CPU work
 * on its text (its language, the built-in engine's summary, the model's prompt) runs through
 * `cpu`: the API's CPU threads, or here without it.
 */
export async function summarize(
  deps: {
    chat: ChatGateway;
    signal?: AbortSignal;
    timings?: Partial<Record<SearchPhase, number>>;
    cpu?: ReadCpu;
  },
  input: { conversation: ConversationText; header?: unknown },
): Promise<SummaryResult> {
  const cpu = deps.cpu ?? inlineRead;
  const started = performance.now();
  let draft: SummaryDraft;
  if (deps.chat.complete) {
    const language = await cpu({ task: 'conversationLanguage', input });
    draft = await summarizeWithModel({
      chat: deps.chat,
      conversation: input.conversation,
      language,
      signal: deps.signal,
      prompt: (tokens) => cpu({ task: 'summaryPrompt', input: { conversation: input.conversation, language, tokens } }),
    });
  } else draft = (await cpu({ task: 'summarizeLocally', input })).draft;
  if (deps.timings) deps.timings[deps.chat.complete ? 'model' : 'compose'] = performance.now() - started;
  return { draft, engine: deps.chat.engine };
}
