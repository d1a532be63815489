/**
 * The latency benchmark's baseline embedder: the embedding servers called as a plain client would,
 * each query its own /v1/embeddings call the moment it is asked for, with no scheduler, no lanes'
 * queue and no batching, so that concurrent queries are concurrent requests at the server.
 *
 * It sends what the API's embedder sends (domain/models/embeddings.ts): the same model, the query
 * cut to the same window, `input_type: query` (the server adds the "query: " prefix), floats, and
 * to the same server (the short-query server when every text fits `fastLaneTokens`, else the
 * other). So a search through it differs from the API's only by what the API adds.
 *
 * createBatchedRawEmbedder is the same client batching concurrent queries as the API's embedder
 * does: the services at their best, the baseline the latency goals are judged against.
 */
import OpenAI from 'openai';
import type { ServicesConfig } from '../../domain/config';
import type { Embedder } from '../../domain/models/embeddings';
import { tokenBound, truncateToWindow } from '../../domain/models/token-window';

/** What both baselines send as the API's embedder does: its window, its cut of queries, its choice of server. */
function asTheApiSends(config: ServicesConfig['embeddings']) {
  const maxTokens = config.maxTokens ?? 512;
  const fastLaneTokens = config.fastLaneTokens ?? 256;
  return {
    maxTokens,
    fastLaneTokens,
    client: (baseURL: string) =>
      new OpenAI({ baseURL, apiKey: config.apiKey, timeout: config.timeoutMs, maxRetries: 0 }),
    queries: (texts: string[]) => texts.map((t) => truncateToWindow(t, { maxTokens, prefix: 'query: ' })),
    /** Whether the short-query server takes these texts. */
    short: (texts: string[]) => texts.every((t) => tokenBound(t) <= fastLaneTokens),
  };
}

export function createRawEmbedder(config: ServicesConfig['embeddings']): Embedder {
  const api = asTheApiSends(config);
  const bulk = api.client(config.baseUrl);
  const fast = config.queryBaseUrl ? api.client(config.queryBaseUrl) : bulk;
  return {
    model: config.model,
    async embed({ texts, inputType, signal }) {
      const input = inputType === 'query' ? api.queries(texts) : texts;
      const server = api.short(input) ? fast : bulk;
      const res = await server.embeddings.create(
        { model: config.model, input, encoding_format: 'float', input_type: inputType } as OpenAI.EmbeddingCreateParams,
        { signal },
      );
      return [...res.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
    },
  };
}

interface Waiting {
  text: string;
  resolve(vector: number[]): void;
  reject(err: unknown): void;
}

/**
 * The baseline at its best: the same direct calls, but the queries waiting for a server go to it
 * together, as the API's embedder sends them (domain/models/embeddings.ts): at most
 * `maxInFlight` calls at a server at once (EMBEDDINGS_MAX_IN_FLIGHT, 1 by default), each holding
 * the queries waiting then, up to the server's bound of one call (`fastLaneTokens` at the
 * short-query server, `maxTokens` at the other). No tenants' turns, no lanes' priorities, no
 * deadlines: a plain batching client. Passages go as createRawEmbedder sends them.
 */
export function createBatchedRawEmbedder(config: ServicesConfig['embeddings']): Embedder {
  const api = asTheApiSends(config);
  const maxInFlight = config.maxInFlight ?? 1;
  const single = createRawEmbedder(config);
  const server = (baseURL: string, maxCost: number) => ({
    client: api.client(baseURL),
    maxCost,
    waiting: [] as Waiting[],
    inFlight: 0,
  });
  type Server = ReturnType<typeof server>;
  const bulk = server(config.baseUrl, api.maxTokens);
  const fast = config.queryBaseUrl ? server(config.queryBaseUrl, api.fastLaneTokens) : bulk;

  function pump(s: Server): void {
    while (s.inFlight < maxInFlight && s.waiting.length > 0) {
      const batch = [s.waiting.shift()!];
      let cost = tokenBound(batch[0].text);
      while (s.waiting.length > 0 && cost + tokenBound(s.waiting[0].text) <= s.maxCost) {
        cost += tokenBound(s.waiting[0].text);
        batch.push(s.waiting.shift()!);
      }
      s.inFlight += 1;
      s.client.embeddings
        .create({
          model: config.model,
          input: batch.map((w) => w.text),
          encoding_format: 'float',
          input_type: 'query',
        } as OpenAI.EmbeddingCreateParams)
        .then(
          (res) => {
            const vectors = [...res.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
            batch.forEach((w, i) => w.resolve(vectors[i]));
          },
          (err: unknown) => batch.forEach((w) => w.reject(err)),
        )
        .finally(() => {
          s.inFlight -= 1;
          pump(s);
        });
    }
  }

  return {
    model: config.model,
    async embed(o) {
      if (o.inputType !== 'query') return single.embed(o);
      const input = api.queries(o.texts);
      const s = api.short(input) ? fast : bulk;
      const vectors = input.map(
        (text) => new Promise<number[]>((resolve, reject) => s.waiting.push({ text, resolve, reject })),
      );
      pump(s);
      return Promise.all(vectors);
    },
  };
}
