/**
 * The chat-model gateway. With CHAT_BASE_URL or an API key configured it calls an
 * OpenAI-compatible chat completions endpoint; otherwise the built-in local engine (extractive,
 * no model) answers, and /readyz says so.
 */
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

export function createChatGateway(config: ServicesConfig['chat']): ChatGateway {
  if (!config) return { engine: 'local', model: 'local-extractive' };
  const client = new OpenAI({ baseURL: config.baseUrl, apiKey: config.apiKey, timeout: config.timeoutMs, maxRetries: 0 });
  return {
    engine: 'openai',
    model: config.model,
    async complete({ messages, json, signal }) {
      const res = await client.chat.completions.create(
        { model: config.model, messages, temperature: 0, ...(json ? { response_format: { type: 'json_object' as const } } : {}) },
        { signal },
      );
      const content = res.choices[0]?.message?.content;
      if (typeof content !== 'string') throw new Error('chat model returned no message content');
      return content;
    },
  };
}
