/**
 * Settings shared by the worker and the API, read once from the environment and validated.
 * The launcher (scripts/stack), docker-compose.yml and the README use the same variable names.
 */

export interface ServicesConfig {
  temporal: { address: string; namespace: string; taskQueue: string };
  /** `apiKey`: Weaviate's API key (sent as a bearer token over HTTP and gRPC); none for anonymous access. */
  weaviate: {
    host: string;
    httpPort: number;
    grpcPort: number;
    apiKey?: string;
    /** Copies of each object across Weaviate's nodes, set when a collection is created (1: one node). */
    replicationFactor: number;
    /** How many copies a read or write waits for; one level for every operation (domain/weaviate/client.ts says why). */
    consistency: 'ONE' | 'QUORUM' | 'ALL';
  };
  embeddings: {
    /** The server of passages and long queries (the bulk lane). */
    baseUrl: string;
    /** A second server for short queries (the fast lane, embeddings.ts); none: baseUrl serves all. */
    queryBaseUrl?: string;
    /** A query goes to the fast lane when its token bound is at most this. */
    fastLaneTokens?: number;
    apiKey: string;
    model: string;
    timeoutMs: number;
    /** Passages per call, at most; a query waits for one such call at most. */
    batchSize: number;
    /** Characters per call of passages, at most (a longer text goes alone). */
    batchChars?: number;
    /** The model's input window in tokens; query texts are cut to fit it. */
    maxTokens?: number;
    /** One query embedding, waiting in the worker included. */
    queryTimeoutMs?: number;
    /** Calls at the embedding server at once, per worker. */
    maxInFlight?: number;
  };
  /** The tag model's English sentence encoder (an OpenAI-compatible server); none: tags read the case embedding and words only. */
  tagEmbeddings?: { baseUrl: string; model: string };
  /** The chat model; undefined means the built-in local engine answers. */
  chat?: ChatSettings;
}

/** What a model call is for: each has its own reply bound (CHAT_MAX_TOKENS_*). */
export const CHAT_CAPABILITIES = ['ask', 'followUp', 'summary', 'sentiment', 'tags', 'judge'] as const;
export type ChatCapability = (typeof CHAT_CAPABILITIES)[number];

/** Each capability's reply bound, in tokens: room for its longest valid reply, no more. */
export const DEFAULT_MAX_TOKENS: Record<ChatCapability, number> = {
  ask: 512,
  followUp: 100,
  summary: 300,
  sentiment: 30,
  tags: 200,
  judge: 1200,
};

/** The context window assumed when CHAT_CONTEXT_TOKENS is not set: that of most current models, and more. */
export const DEFAULT_CONTEXT_TOKENS = 8192;

export interface ChatSettings {
  baseUrl?: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
  /** The model's context window in tokens: prompts are cut to fit it with the reply's bound (CHAT_CONTEXT_TOKENS). */
  contextTokens: number;
  /** `max_tokens` per capability (CHAT_MAX_TOKENS_ASK, _FOLLOW_UP, _SUMMARY, _SENTIMENT, _TAGS, _JUDGE). */
  maxTokens: Record<ChatCapability, number>;
  /** What answers when the model cannot (down, rate-limited past the retries, unreadable): the built-in engine, or nobody (503/504). */
  fallback: 'local' | 'none';
  /** `auto`: a strict json_schema, json_object once the server refuses it; or one of them always. */
  responseFormat: 'auto' | 'json_schema' | 'json_object';
  /**
   * `frequency_penalty` of every call (CHAT_FREQUENCY_PENALTY, -2 to 2; 0: not sent). At
   * temperature 0 a small model repeats a sentence until its token bound; a mild penalty stops it.
   */
  frequencyPenalty: number;
  /**
   * A `maxLength` on each free-text string of a reply's schema, from the call's `max_tokens`
   * (CHAT_BOUNDED_STRINGS; domain/models/bounded-strings.ts): for servers whose constrained
   * decoding honours it (llama.cpp). OpenAI's strict mode refuses it.
   */
  boundedStrings: boolean;
}

/** The default `frequency_penalty`: enough to stop a small model's loops (docs/benchmarks.md, bench:models). */
export const DEFAULT_FREQUENCY_PENALTY = 0.5;

/** A number from `min` to `max` from the environment, or the fallback. */
function rangeEnv(env: NodeJS.ProcessEnv, name: string, o: { min: number; max: number; fallback: number }): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return o.fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < o.min || value > o.max)
    throw new Error(`${name} must be a number from ${o.min} to ${o.max}, got "${raw}"`);
  return value;
}

/** One of `choices` from the environment, or the fallback. */
function choiceEnv<T extends string>(env: NodeJS.ProcessEnv, name: string, choices: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(choices as readonly string[]).includes(raw))
    throw new Error(`${name} must be one of ${choices.join(', ')}, got "${raw}"`);
  return raw as T;
}

/** CHAT_MAX_TOKENS_FOLLOW_UP for followUp, and so on. */
const maxTokensVar = (c: ChatCapability) => `CHAT_MAX_TOKENS_${c.replace(/[A-Z]/g, (l) => `_${l}`).toUpperCase()}`;

function loadChatSettings(env: NodeJS.ProcessEnv): ChatSettings | undefined {
  const apiKey = env.CHAT_API_KEY ?? env.OPENAI_API_KEY;
  if (!env.CHAT_BASE_URL && !apiKey) return undefined;
  return {
    baseUrl: env.CHAT_BASE_URL || undefined,
    apiKey: apiKey ?? 'local',
    model: env.CHAT_MODEL ?? 'gpt-4o-mini',
    timeoutMs: int(env, 'CHAT_TIMEOUT_MS', 30_000),
    contextTokens: int(env, 'CHAT_CONTEXT_TOKENS', DEFAULT_CONTEXT_TOKENS),
    maxTokens: Object.fromEntries(
      CHAT_CAPABILITIES.map((c) => [c, int(env, maxTokensVar(c), DEFAULT_MAX_TOKENS[c])]),
    ) as Record<ChatCapability, number>,
    fallback: choiceEnv(env, 'CHAT_FALLBACK', ['local', 'none'], 'local'),
    responseFormat: choiceEnv(env, 'CHAT_RESPONSE_FORMAT', ['auto', 'json_schema', 'json_object'], 'auto'),
    frequencyPenalty: rangeEnv(env, 'CHAT_FREQUENCY_PENALTY', { min: -2, max: 2, fallback: DEFAULT_FREQUENCY_PENALTY }),
    boundedStrings: choiceEnv(env, 'CHAT_BOUNDED_STRINGS', ['true', 'false'], 'false') === 'true',
  };
}

/** A positive number from the environment (an integer unless `fractional`), or the fallback. */
export function positiveEnv(env: NodeJS.ProcessEnv, name: string, fallback: number, fractional = false): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!(value > 0) || !Number.isFinite(value) || (!fractional && !Number.isInteger(value))) {
    throw new Error(`${name} must be a positive ${fractional ? 'number' : 'integer'}, got "${raw}"`);
  }
  return value;
}

const int = (env: NodeJS.ProcessEnv, name: string, fallback: number) => positiveEnv(env, name, fallback);

export function loadServicesConfig(env: NodeJS.ProcessEnv = process.env): ServicesConfig {
  return {
    temporal: {
      address: env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
      namespace: env.TEMPORAL_NAMESPACE ?? 'default',
      taskQueue: env.TASK_QUEUE ?? 'support-ai',
    },
    weaviate: {
      host: env.WEAVIATE_HOST ?? '127.0.0.1',
      httpPort: int(env, 'WEAVIATE_HTTP_PORT', 8080),
      grpcPort: int(env, 'WEAVIATE_GRPC_PORT', 50051),
      apiKey: env.WEAVIATE_API_KEY || undefined,
      replicationFactor: int(env, 'WEAVIATE_REPLICATION_FACTOR', 1),
      consistency: choiceEnv(env, 'WEAVIATE_CONSISTENCY', ['ONE', 'QUORUM', 'ALL'], 'QUORUM'),
    },
    embeddings: {
      baseUrl: env.EMBEDDINGS_URL ?? 'http://127.0.0.1:8000/v1',
      queryBaseUrl: env.EMBEDDINGS_QUERY_URL || undefined,
      fastLaneTokens: int(env, 'EMBEDDINGS_FAST_LANE_TOKENS', 256),
      apiKey: env.EMBEDDINGS_API_KEY ?? 'local',
      model: env.EMBEDDINGS_MODEL ?? 'multilingual-e5-small',
      timeoutMs: int(env, 'EMBEDDINGS_TIMEOUT_MS', 60_000),
      batchSize: int(env, 'EMBEDDINGS_BATCH_SIZE', 4),
      batchChars: int(env, 'EMBEDDINGS_BATCH_CHARS', 2000),
      maxTokens: int(env, 'EMBEDDINGS_MAX_TOKENS', 512),
      queryTimeoutMs: int(env, 'EMBEDDINGS_QUERY_TIMEOUT_MS', 4000),
      maxInFlight: int(env, 'EMBEDDINGS_MAX_IN_FLIGHT', 1),
    },
    tagEmbeddings: env.TAG_EMBEDDINGS_URL
      ? { baseUrl: env.TAG_EMBEDDINGS_URL, model: env.TAG_EMBEDDINGS_MODEL ?? 'bge-small-en-v1.5' }
      : undefined,
    chat: loadChatSettings(env),
  };
}
