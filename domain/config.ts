/**
 * Settings shared by the worker and the API, read once from the environment and validated.
 * The launcher (scripts/stack), docker-compose.yml and the README use the same variable names.
 */

export interface ServicesConfig {
  temporal: { address: string; namespace: string; taskQueue: string };
  /** `apiKey`: Weaviate's API key (sent as a bearer token over HTTP and gRPC); none for anonymous access. */
  weaviate: { host: string; httpPort: number; grpcPort: number; apiKey?: string };
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
  chat?: { baseUrl?: string; apiKey: string; model: string; timeoutMs: number };
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
  const chatKey = env.CHAT_API_KEY ?? env.OPENAI_API_KEY;
  const chatConfigured = Boolean(env.CHAT_BASE_URL || chatKey);
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
    chat: chatConfigured
      ? {
          baseUrl: env.CHAT_BASE_URL || undefined,
          apiKey: chatKey ?? 'local',
          model: env.CHAT_MODEL ?? 'gpt-4o-mini',
          timeoutMs: int(env, 'CHAT_TIMEOUT_MS', 30_000),
        }
      : undefined,
  };
}
