/**
 * The chat-model gateway. With CHAT_BASE_URL or an API key configured it calls an
 * OpenAI-compatible chat completions endpoint; otherwise the built-in local engine (extractive,
 * no model) answers, and /readyz says so.
 *
 * Every call names its capability, which bounds its reply (`max_tokens`, CHAT_MAX_TOKENS_*), and
 * a call that expects JSON sends the JSON Schema its reply is checked against, as a strict
 * `json_schema` response format, so a server that constrains its output (llama.cpp, vLLM, OpenAI)
 * can only produce a readable reply. A server that refuses `json_schema` gets `json_object` from
 * then on (found on the first refusal, logged once); the reply is validated either way. A reply
 * cut by its token bound (`finish_reason: "length"`) is unreadable. Each call's tokens go to the
 * observer (the token meter, the log).
 */
import { ApplicationFailure } from '@temporalio/common';
import OpenAI, { APIError } from 'openai';
import { type ChatCapability, type ChatSettings, DEFAULT_CONTEXT_TOKENS, DEFAULT_MAX_TOKENS } from '../config';
import { stringLimit, tidyStrings, withStringLimit } from './bounded-strings';
import { dataBudget, estimateTokens } from './prompt-budget';
import { modelCalls, modelTokens } from '../observability/metrics';
import { inSpan } from '../observability/tracing';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export type Capability = ChatCapability;

/** A JSON Schema a reply must match, with the name the response format gives it. */
export interface ReplySchema {
  name: string;
  schema: Record<string, unknown>;
}

export interface ChatCall {
  capability: Capability;
  /** The tenant the call is made for, for token accounting. */
  tenant?: string;
  messages: ChatMessage[];
  /** The reply's schema: a JSON reply constrained to it. None: plain text. */
  schema?: ReplySchema;
  signal?: AbortSignal;
}

export interface TokenCount {
  promptTokens: number;
  completionTokens: number;
  /** True when the server reported no usage and the counts are our estimates. */
  estimated?: boolean;
}

export interface ChatReply {
  content: string;
  usage: TokenCount;
}

/** One finished call, as the observer hears it. */
export interface ChatUsage extends TokenCount {
  tenant?: string;
  capability: Capability;
  model: string;
  ms: number;
}

export interface ChatObserver {
  usage?(u: ChatUsage): void;
  /** Something an operator should know once (the server refuses json_schema). */
  warn?(message: string): void;
}

export interface ChatGateway {
  /** 'openai' when a model endpoint is configured, 'local' for the built-in engine. */
  readonly engine: 'openai' | 'local';
  readonly model: string;
  /** Undefined for the local engine: callers then use their extractive fallback. */
  complete?(call: ChatCall): Promise<ChatReply>;
  /** Tokens a call of `capability` may spend on its user message, given its system message. */
  dataTokens?(capability: Capability, system: string): number;
}

/** The model service answered with something that is not a usable reply; retryable (the next may be). */
export const MODEL_OUTPUT_INVALID = 'ModelOutputInvalid';
export const unreadable = (why: string, o: { retryable?: boolean } = {}) =>
  ApplicationFailure.create({
    type: MODEL_OUTPUT_INVALID,
    message: `the model service returned an answer that could not be read (${why})`,
    nonRetryable: o.retryable === false,
  });

/** The fields of a JSON object in a reply; anything else (absent, null, a list, a value) has none. */
export const objectFields = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** A JSON-mode reply as an object (a code fence around it is tolerated), or an unreadable failure. */
export function replyObject(content: string): Record<string, unknown> {
  let reply: unknown;
  try {
    reply = JSON.parse(content.trim().replace(/^```(?:json)?\s*|(?<!\s)\s*```$/g, ''));
  } catch {
    throw unreadable('not JSON');
  }
  if (typeof reply !== 'object' || reply === null || Array.isArray(reply)) throw unreadable('not an object');
  return reply as Record<string, unknown>;
}

/** A JSON Schema object as strict structured outputs want it: every property required, no others. */
export const strictObject = (properties: Record<string, Record<string, unknown>>) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});

/** The gateway with every call made for `tenant` (its tokens are counted as that tenant's). */
export const forTenant = (chat: ChatGateway, tenant: string): ChatGateway =>
  chat.complete ? { ...chat, complete: (call) => chat.complete!({ ...call, tenant }) } : chat;

/** The tokens a call's data may take: the gateway's budget, or the defaults' when it has none (the local engine). */
export const dataTokensFor = (chat: ChatGateway, capability: Capability, system: string) =>
  chat.dataTokens?.(capability, system) ??
  dataBudget({ contextTokens: DEFAULT_CONTEXT_TOKENS, maxTokens: DEFAULT_MAX_TOKENS[capability], system });

/** The local engine: no model, no calls. */
export const LOCAL_CHAT: ChatGateway = { engine: 'local', model: 'local-extractive' };

/** A refusal of the response format itself (400 or 422 naming it), not of the input. */
const refusesFormat = (err: unknown) =>
  err instanceof APIError &&
  (err.status === 400 || err.status === 422) &&
  /response_format|json_schema|schema/i.test(err.message);

export function createChatGateway(config: ChatSettings | undefined, observer: ChatObserver = {}): ChatGateway {
  if (!config) return LOCAL_CHAT;
  const client = new OpenAI({
    baseURL: config.baseUrl,
    apiKey: config.apiKey,
    timeout: config.timeoutMs,
    maxRetries: 0,
  });
  let jsonSchema = config.responseFormat !== 'json_object';

  /** The longest a free string of the reply may be (CHAT_BOUNDED_STRINGS), or undefined. */
  const limitOf = (call: ChatCall) =>
    config.boundedStrings && call.schema
      ? stringLimit(call.schema.schema, config.maxTokens[call.capability])
      : undefined;

  const responseFormat = (schema: ReplySchema | undefined, limit: number | undefined) => {
    if (!schema) return {};
    if (!jsonSchema) return { response_format: { type: 'json_object' as const } };
    return {
      response_format: {
        type: 'json_schema' as const,
        json_schema: {
          name: schema.name,
          strict: true,
          schema: (limit ? withStringLimit(schema.schema, limit) : schema.schema) as Record<string, unknown>,
        },
      },
    };
  };

  const sendUntraced = (call: ChatCall, limit: number | undefined) =>
    client.chat.completions
      .create(
        {
          model: config.model,
          messages: call.messages,
          temperature: 0,
          max_tokens: config.maxTokens[call.capability],
          ...(config.frequencyPenalty ? { frequency_penalty: config.frequencyPenalty } : {}),
          ...responseFormat(call.schema, limit),
        },
        { signal: call.signal },
      )
      .catch((err) => {
        // A body that is not JSON at all: the service answered, but nothing readable.
        throw err instanceof SyntaxError ? unreadable('its response is not JSON') : err;
      });
  /** Each call a span of the request's trace, when it is traced (domain/observability/tracing.ts). */
  const send = (call: ChatCall, limit: number | undefined) =>
    inSpan(
      {
        name: `chat ${config.model}`,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': config.model,
          'support_ai.capability': call.capability,
        },
      },
      () => sendUntraced(call, limit),
    );

  const completeOnce = async (call: ChatCall): Promise<ChatReply> => {
    const started = Date.now();
    const sentSchema = Boolean(call.schema) && jsonSchema;
    const limit = limitOf(call);
    let res;
    try {
      res = await send(call, limit);
    } catch (err) {
      // Only `auto` learns: a server configured for json_schema that refuses it is a configuration error to see.
      if (!(sentSchema && config.responseFormat === 'auto' && refusesFormat(err))) throw err;
      // Calls sent before the first refusal came back are refused too: one warning, each sent again.
      if (jsonSchema)
        observer.warn?.(
          'the chat model service refused a json_schema response format; JSON replies are asked for with json_object from now on (still validated)',
        );
      jsonSchema = false;
      res = await send(call, limit);
    }
    const choice = res?.choices?.[0];
    const content = choice?.message?.content;
    const usage: TokenCount =
      typeof res?.usage?.prompt_tokens === 'number'
        ? { promptTokens: res.usage.prompt_tokens, completionTokens: res.usage.completion_tokens ?? 0 }
        : {
            promptTokens: estimateTokens(call.messages.map((m) => m.content).join('\n')),
            completionTokens: estimateTokens(typeof content === 'string' ? content : ''),
            estimated: true,
          };
    observer.usage?.({
      ...usage,
      tenant: call.tenant,
      capability: call.capability,
      model: config.model,
      ms: Date.now() - started,
    });
    // The reply hit its bound: whatever it holds is cut short. The same call would be cut again.
    if (choice?.finish_reason === 'length')
      throw unreadable(`cut at ${config.maxTokens[call.capability]} tokens`, { retryable: false });
    if (typeof content !== 'string') throw unreadable('no message content');
    // Only a reply whose schema carried the limit (not one asked for with json_object) is tidied.
    return { content: limit && jsonSchema ? tidied(content, limit) : content, usage };
  };

  return {
    engine: 'openai',
    model: config.model,
    dataTokens: (capability, system) =>
      dataBudget({ contextTokens: config.contextTokens, maxTokens: config.maxTokens[capability], system }),
    async complete(call) {
      try {
        const reply = await completeOnce(call);
        modelCalls.inc({ engine: 'openai', model: config.model, outcome: 'ok' });
        modelTokens.inc({ engine: 'openai', model: config.model, kind: 'prompt' }, reply.usage.promptTokens);
        modelTokens.inc({ engine: 'openai', model: config.model, kind: 'completion' }, reply.usage.completionTokens);
        return reply;
      } catch (err) {
        const timeout = err instanceof OpenAI.APIConnectionTimeoutError || (err as Error)?.name === 'TimeoutError';
        modelCalls.inc({ engine: 'openai', model: config.model, outcome: timeout ? 'timeout' : 'error' });
        throw err;
      }
    },
  };
}

/** A JSON reply with its strings tidied (bounded-strings.ts); anything else as it came, for the engine to refuse. */
function tidied(content: string, limit: number): string {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return content;
  }
  return JSON.stringify(tidyStrings(value, limit));
}
