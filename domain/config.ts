/**
 * Settings shared by the worker and the API, read once from the environment and validated.
 * The launcher (scripts/stack), docker-compose.yml and the README use the same variable names.
 */
import { flag, int, ms, num, oneOf, parseSettings, port, type SettingValues, text, url } from './settings';

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

/** A process's metrics endpoints (domain/observability/): a port of 0 is no endpoint. */
export interface MetricsConfig {
  host: string;
  /** The process's own metrics (prom-client). */
  port: number;
  /** The Temporal runtime's metrics, served by its core. */
  sdkPort: number;
  /** Tenants named in labels before `other` (domain/observability/metrics.ts, tenantLabel). */
  tenantLabels: number;
}

/** Log levels of the processes' own logs (pino) and of the Temporal runtime inside them. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const TEMPORAL_LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'] as const;

/** The samplers OpenTelemetry's trace SDK builds from OTEL_TRACES_SAMPLER (any other it ignores with a warning). */
export const TRACE_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

/**
 * OpenTelemetry's own variables that the API and the worker use (README, "Tracing"). The SDK reads
 * them itself (domain/observability/tracing.ts); they are here so that a bad value stops the process
 * at start, as any other setting's does, instead of the SDK falling back with a warning.
 */
const TRACING_SETTINGS = {
  OTEL_EXPORTER_OTLP_ENDPOINT: url({ doc: 'Base URL of an OTLP/HTTP receiver; none: tracing off' }),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url({ doc: 'The full URL for spans, instead of the base URL' }),
  OTEL_TRACES_SAMPLER: oneOf(TRACE_SAMPLERS, { default: 'parentbased_always_on', doc: 'Which requests are traced' }),
  OTEL_TRACES_SAMPLER_ARG: num({ min: 0, max: 1, doc: "The ratio samplers' share of requests traced" }),
};

/**
 * The settings both the worker and the API read (README, "Ports" and the settings tables; "A real
 * chat model"; "Tracing"). Each process parses them with its own (api/config.ts, worker/config.ts) at start.
 */
export const SERVICE_SETTINGS = {
  ...TRACING_SETTINGS,
  TEMPORAL_ADDRESS: text({ default: '127.0.0.1:7233', doc: "Temporal frontend's gRPC address, host:port" }),
  TEMPORAL_NAMESPACE: text({ default: 'default', doc: 'Temporal namespace' }),
  TASK_QUEUE: text({ default: 'support-ai', doc: 'Temporal task queue of the worker and the API' }),
  WEAVIATE_HOST: text({ default: '127.0.0.1', doc: "Weaviate's host" }),
  WEAVIATE_HTTP_PORT: port({ default: 8080, doc: "Weaviate's HTTP port" }),
  WEAVIATE_GRPC_PORT: port({ default: 50051, doc: "Weaviate's gRPC port" }),
  WEAVIATE_API_KEY: text({ doc: "Weaviate's API key; none: anonymous access" }),
  WEAVIATE_REPLICATION_FACTOR: int({ default: 1, doc: 'Copies of each object in the collections created' }),
  WEAVIATE_CONSISTENCY: oneOf(['ONE', 'QUORUM', 'ALL'], { default: 'QUORUM', doc: 'Consistency of reads and writes' }),
  EMBEDDINGS_URL: url({
    default: 'http://127.0.0.1:8000/v1',
    doc: 'The embedding server of passages and long queries',
  }),
  EMBEDDINGS_QUERY_URL: url({ doc: 'A second embedding server for short queries; none: EMBEDDINGS_URL serves all' }),
  EMBEDDINGS_FAST_LANE_TOKENS: int({ default: 256, doc: 'Token bound of a query sent to EMBEDDINGS_QUERY_URL' }),
  EMBEDDINGS_API_KEY: text({ default: 'local', doc: "The embedding servers' key" }),
  EMBEDDINGS_MODEL: text({ default: 'multilingual-e5-small', doc: 'The embedding model' }),
  EMBEDDINGS_TIMEOUT_MS: ms({ default: 60_000, doc: 'Timeout of one embedding call' }),
  EMBEDDINGS_BATCH_SIZE: int({ default: 4, doc: 'Passages per embedding call' }),
  EMBEDDINGS_BATCH_CHARS: int({ default: 2000, doc: 'Characters of passages per embedding call' }),
  EMBEDDINGS_MAX_TOKENS: int({ default: 512, doc: "The embedding model's input window in tokens" }),
  EMBEDDINGS_QUERY_TIMEOUT_MS: ms({ default: 4000, doc: "Time a query's embedding may take at the server" }),
  EMBEDDINGS_MAX_IN_FLIGHT: int({ default: 1, doc: 'Calls one process has at each embedding server at once' }),
  TAG_EMBEDDINGS_URL: url({ doc: "The tag model's English encoder; none: tags read the case embedding and words" }),
  TAG_EMBEDDINGS_MODEL: text({ default: 'bge-small-en-v1.5', doc: "The English encoder's model" }),
  CHAT_BASE_URL: url({ doc: 'The chat completions API; with it or a key, the model answers' }),
  CHAT_API_KEY: text({ doc: "The chat model's key" }),
  OPENAI_API_KEY: text({ doc: "The chat model's key, when CHAT_API_KEY is not set" }),
  CHAT_MODEL: text({ default: 'gpt-4o-mini', doc: 'The chat model' }),
  CHAT_TIMEOUT_MS: ms({ default: 30_000, doc: 'Timeout of one model call' }),
  CHAT_CONTEXT_TOKENS: int({ default: DEFAULT_CONTEXT_TOKENS, doc: "The model's context window in tokens" }),
  CHAT_MAX_TOKENS_ASK: int({ default: DEFAULT_MAX_TOKENS.ask, doc: '`max_tokens` of ask' }),
  CHAT_MAX_TOKENS_FOLLOW_UP: int({ default: DEFAULT_MAX_TOKENS.followUp, doc: '`max_tokens` of follow-ups' }),
  CHAT_MAX_TOKENS_SUMMARY: int({ default: DEFAULT_MAX_TOKENS.summary, doc: '`max_tokens` of summary' }),
  CHAT_MAX_TOKENS_SENTIMENT: int({ default: DEFAULT_MAX_TOKENS.sentiment, doc: '`max_tokens` of sentiment' }),
  CHAT_MAX_TOKENS_TAGS: int({ default: DEFAULT_MAX_TOKENS.tags, doc: '`max_tokens` of tags' }),
  CHAT_MAX_TOKENS_JUDGE: int({ default: DEFAULT_MAX_TOKENS.judge, doc: "`max_tokens` of evaluate's judge" }),
  CHAT_RESPONSE_FORMAT: oneOf(['auto', 'json_schema', 'json_object'], { default: 'auto', doc: 'Response format' }),
  CHAT_FALLBACK: oneOf(['local', 'none'], { default: 'local', doc: 'What answers when the model fails' }),
  CHAT_FREQUENCY_PENALTY: num({ min: -2, max: 2, default: DEFAULT_FREQUENCY_PENALTY, doc: '`frequency_penalty`' }),
  CHAT_BOUNDED_STRINGS: flag({ default: false, doc: "A `maxLength` on a reply schema's free-text strings" }),
  TOKEN_SYNC_MS: ms({ default: 1000, doc: "How often a process stores its count of the model's tokens" }),
  USE_CASES_DIR: text({ doc: 'Folder of the evaluation use cases; none: use-cases/ of the repository' }),
  LOG_LEVEL: oneOf(LOG_LEVELS, { default: 'info', doc: "Level of the process's log" }),
  METRICS_HOST: text({ default: '127.0.0.1', doc: 'Address the metrics endpoints listen on' }),
  METRICS_TENANT_LABELS: int({ min: 0, default: 20, doc: 'Tenants a process names in metric labels; then `other`' }),
  WORKER_LOG_LEVEL: oneOf(TEMPORAL_LOG_LEVELS, { default: 'WARN', doc: "Level of the Temporal runtime's log" }),
};

export type ServiceSettings = SettingValues<typeof SERVICE_SETTINGS>;

/** The chat model's settings, or undefined (the built-in engine) when neither its URL nor a key is set. */
function chatSettingsFrom(s: ServiceSettings): ChatSettings | undefined {
  const apiKey = s.CHAT_API_KEY ?? s.OPENAI_API_KEY;
  if (!s.CHAT_BASE_URL && !apiKey) return undefined;
  return {
    baseUrl: s.CHAT_BASE_URL,
    apiKey: apiKey ?? 'local',
    model: s.CHAT_MODEL,
    timeoutMs: s.CHAT_TIMEOUT_MS,
    contextTokens: s.CHAT_CONTEXT_TOKENS,
    maxTokens: {
      ask: s.CHAT_MAX_TOKENS_ASK,
      followUp: s.CHAT_MAX_TOKENS_FOLLOW_UP,
      summary: s.CHAT_MAX_TOKENS_SUMMARY,
      sentiment: s.CHAT_MAX_TOKENS_SENTIMENT,
      tags: s.CHAT_MAX_TOKENS_TAGS,
      judge: s.CHAT_MAX_TOKENS_JUDGE,
    },
    fallback: s.CHAT_FALLBACK,
    responseFormat: s.CHAT_RESPONSE_FORMAT,
    frequencyPenalty: s.CHAT_FREQUENCY_PENALTY,
    boundedStrings: s.CHAT_BOUNDED_STRINGS,
  };
}

/** The services' addresses and clients' settings, from parsed settings (a process's own table includes them). */
export function servicesConfigFrom(s: ServiceSettings): ServicesConfig {
  return {
    temporal: { address: s.TEMPORAL_ADDRESS, namespace: s.TEMPORAL_NAMESPACE, taskQueue: s.TASK_QUEUE },
    weaviate: {
      host: s.WEAVIATE_HOST,
      httpPort: s.WEAVIATE_HTTP_PORT,
      grpcPort: s.WEAVIATE_GRPC_PORT,
      apiKey: s.WEAVIATE_API_KEY,
      replicationFactor: s.WEAVIATE_REPLICATION_FACTOR,
      consistency: s.WEAVIATE_CONSISTENCY,
    },
    embeddings: {
      baseUrl: s.EMBEDDINGS_URL,
      queryBaseUrl: s.EMBEDDINGS_QUERY_URL,
      fastLaneTokens: s.EMBEDDINGS_FAST_LANE_TOKENS,
      apiKey: s.EMBEDDINGS_API_KEY,
      model: s.EMBEDDINGS_MODEL,
      timeoutMs: s.EMBEDDINGS_TIMEOUT_MS,
      batchSize: s.EMBEDDINGS_BATCH_SIZE,
      batchChars: s.EMBEDDINGS_BATCH_CHARS,
      maxTokens: s.EMBEDDINGS_MAX_TOKENS,
      queryTimeoutMs: s.EMBEDDINGS_QUERY_TIMEOUT_MS,
      maxInFlight: s.EMBEDDINGS_MAX_IN_FLIGHT,
    },
    tagEmbeddings: s.TAG_EMBEDDINGS_URL ? { baseUrl: s.TAG_EMBEDDINGS_URL, model: s.TAG_EMBEDDINGS_MODEL } : undefined,
    chat: chatSettingsFrom(s),
  };
}

/**
 * The services' configuration alone, for tools and tests that only connect to them (scripts/, bench/).
 * Throws a SettingsError naming each variable that breaks its rule.
 */
export function loadServicesConfig(env: NodeJS.ProcessEnv = process.env): ServicesConfig {
  return servicesConfigFrom(parseSettings(SERVICE_SETTINGS, env));
}
