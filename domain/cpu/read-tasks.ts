/**
 * The work the API's CPU threads run (pool.ts, created with `tasks: 'read'`): the pure CPU parts of
 * the reads that take tenant text (summary, sentiment, tag), so that no request's text holds the
 * API's event loop, whatever its size: telling its language, reading a conversation into
 * sentences and ranking them, cleaning and cutting a message into segments with their lexicon
 * readings, a message's keywords, and shortening a text to a chat model's context. What calls a
 * service (embeddings, the chat model, Weaviate) stays in the API's main thread. Each algorithm
 * is bounded by the input limits as well (docs/api.md, "Input limits"), and each task has the
 * pool's budget. Each export takes one structured-clonable object and returns one.
 *
 * `inlineRead` runs the same functions in the calling thread, for the benches and the tests that
 * call the domain directly.
 */
import type { ChatMessage } from '../models/chat';
import { type MessageText, readMessageText } from '../sentiment/local-engine';
import { sentimentMessages } from '../sentiment/model-engine';
import type { ConversationText } from '../summary/conversation';
import { summarizeLocal, type SummaryDraft } from '../summary/local-engine';
import { summaryMessages } from '../summary/model-engine';
import { keywordTags as keywordsOf } from '../tags/keywords';
import type { TagScore } from '../tags/model';
import { tagMessages } from '../tags/model-engine';
import { requestLanguage } from '../text/language';
import { readUpload, type UploadReading, type UploadReadingInput } from '../contracts/upload-reading';
import { moved } from './moved';
import { readBody, type ReadBodyInput } from '../contracts/read-body';
import type { BodyCheck } from '../contracts/json-body';

/** Characters of a conversation its language is told from (text/language.ts reads 2,000). */
const LANGUAGE_SAMPLE = 2000;

/** The start of a conversation's text, enough to tell its language. */
function conversationSample(c: ConversationText): string {
  const parts: string[] = [];
  let length = 0;
  for (const part of [c.subject, c.description, ...(c.comments ?? [])]) {
    if (!part) continue;
    parts.push(part.slice(0, LANGUAGE_SAMPLE - length));
    length += part.length + 1;
    if (length >= LANGUAGE_SAMPLE) break;
  }
  return parts.join('\n');
}

/** The request language of a summary: the header's, else the one the conversation shows, else English. */
export function conversationLanguage(input: { conversation: ConversationText; header?: unknown }): string {
  return requestLanguage({ header: input.header, text: conversationSample(input.conversation) });
}

/** The built-in engine's summary, and the request language its labels are in. */
export function summarizeLocally(input: { conversation: ConversationText; header?: unknown }): {
  language: string;
  draft: SummaryDraft;
} {
  const language = conversationLanguage(input);
  return { language, draft: summarizeLocal({ conversation: input.conversation, language }) };
}

/** The model's messages for a summary, the conversation shortened to `tokens`. */
export function summaryPrompt(input: {
  conversation: ConversationText;
  language: string;
  tokens: number;
}): ChatMessage[] {
  return summaryMessages(input);
}

/** The request language of a message (sentiment, tag): the header's, else the one it shows, else English. */
export function messageLanguage(input: { message: string; header?: unknown }): string {
  return requestLanguage({ header: input.header, text: input.message.slice(0, LANGUAGE_SAMPLE) });
}

/** What the local sentiment engine reads of a message before its embeddings, in the request language. */
export function readSentiment(input: { message: string; header?: unknown }): MessageText & { language: string } {
  const language = messageLanguage(input);
  return { language, ...readMessageText({ message: input.message, language }) };
}

/** The model's messages for a sentiment, the message shortened to `tokens`. */
export function sentimentPrompt(input: { message: string; language: string; tokens: number }): ChatMessage[] {
  return sentimentMessages(input);
}

/** A message's keyword tags (a tenant without a tag model). */
export function keywordTags(input: { message: string; language: string; limit: number }): TagScore[] {
  return keywordsOf(input);
}

/** The model's messages for tags, the message shortened to `tokens`. */
export function tagPrompt(input: {
  message: string;
  language: string;
  vocabulary: string[];
  limit: number;
  tokens: number;
}): ChatMessage[] {
  return tagMessages(input);
}

/** A large upload's body, decoded, parsed and checked, its valid items as JSON bytes (contracts/upload-reading.ts). */
export function readUploadBody(input: UploadReadingInput): UploadReading {
  const reading = readUpload(input);
  // The items' JSON (up to 10 MB) is moved to the event loop's thread, not copied there.
  return 'json' in reading ? moved(reading, [reading.json]) : reading;
}

/** A large body of a summary, sentiment or tag, decoded, parsed and checked (contracts/read-body.ts). */
export function readRequestBody(input: ReadBodyInput): BodyCheck {
  return readBody(input);
}

export const READ_TASKS = {
  readUploadBody,
  readRequestBody,
  conversationLanguage,
  summarizeLocally,
  summaryPrompt,
  messageLanguage,
  readSentiment,
  sentimentPrompt,
  keywordTags,
  tagPrompt,
};

export type ReadTasks = typeof READ_TASKS;
export type ReadTaskName = keyof ReadTasks;

/** Runs one of the reads' CPU tasks: on the API's threads (pool.ts), or here (`inlineRead`). */
export type ReadCpu = <N extends ReadTaskName>(o: {
  task: N;
  input: Parameters<ReadTasks[N]>[0];
  /** Buffers of `input` moved to the thread rather than copied (unusable here after); nothing in this thread. */
  transfer?: ArrayBuffer[];
}) => Promise<ReturnType<ReadTasks[N]>>;

/** The tasks in the calling thread: the benches and the tests that call the domain directly. */
export const inlineRead: ReadCpu = async ({ task, input }) =>
  (READ_TASKS[task] as (i: typeof input) => ReturnType<ReadTasks[typeof task]>)(input);
