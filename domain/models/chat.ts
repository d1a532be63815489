/**
 * The chat-model gateway. With CHAT_BASE_URL or an API key configured it calls an
 * OpenAI-compatible chat completions endpoint; otherwise the built-in local engine (extractive,
 * no model) answers, and /readyz says so.
 */
import { ApplicationFailure } from '@temporalio/common';
import OpenAI from 'openai';
import type { ServicesConfig } from '../config';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatGateway {
  /** 'openai' when a model endpoint is configured, 'local' for the built-in engine. */
  readonly engine: 'openai' | 'local';
  readonly model: string;
  /** Undefined for the local engine: callers then use their extractive fallback. */
  complete?(args: { messages: ChatMessage[]; json?: boolean; signal?: AbortSignal }): Promise<string>;
}

/** The model service answered with something that is not a usable reply; retryable (the next may be). */
export const MODEL_OUTPUT_INVALID = 'ModelOutputInvalid';
export const unreadable = (why: string) =>
  ApplicationFailure.create({
    type: MODEL_OUTPUT_INVALID,
    message: `the model service returned an answer that could not be read (${why})`,
    nonRetryable: false,
  });

/** A JSON-mode reply as an object (a code fence around it is tolerated), or an unreadable failure. */
export function replyObject(content: string): Record<string, any> {
  let reply: unknown;
  try {
    reply = JSON.parse(content.trim().replace(/^```(?:json)?\s*|(?<!\s)\s*```$/g, ''));
  } catch {
    throw unreadable('not JSON');
  }
  if (typeof reply !== 'object' || reply === null || Array.isArray(reply)) throw unreadable('not an object');
  return reply as Record<string, any>;
}

export function createChatGateway(config: ServicesConfig['chat']): ChatGateway {
  if (!config) return { engine: 'local', model: 'local-extractive' };
  const client = new OpenAI({
    baseURL: config.baseUrl,
    apiKey: config.apiKey,
    timeout: config.timeoutMs,
    maxRetries: 0,
  });
  return {
    engine: 'openai',
    model: config.model,
    async complete({ messages, json, signal }) {
      const res = await client.chat.completions
        .create(
          {
            model: config.model,
            messages,
            temperature: 0,
            ...(json ? { response_format: { type: 'json_object' as const } } : {}),
          },
          { signal },
        )
        .catch((err) => {
          // A body that is not JSON at all: the service answered, but nothing readable.
          throw err instanceof SyntaxError ? unreadable('its response is not JSON') : err;
        });
      const content = res?.choices?.[0]?.message?.content;
      if (typeof content !== 'string') throw unreadable('no message content');
      return content;
    },
  };
}
