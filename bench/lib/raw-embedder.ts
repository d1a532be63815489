/**
 * The latency benchmark's baseline embedder: the embedding servers called as a plain client would,
 * each query its own /v1/embeddings call the moment it is asked for, with no scheduler, no lanes'
 * queue and no batching, so that concurrent queries are concurrent requests at the server.
 *
 * It sends what the API's embedder sends (domain/models/embeddings.ts): the same model, the query
 * cut to the same window, `input_type: query` (the server adds the "query: " prefix), floats, and
 * to the same server (the short-query server when every text fits `fastLaneTokens`, else the
 * other). So a search through it differs from the API's only by what the API adds.
 */
import OpenAI from 'openai';
import type { ServicesConfig } from '../../domain/config';
import type { Embedder } from '../../domain/models/embeddings';
import { tokenBound, truncateToWindow } from '../../domain/models/token-window';

export function createRawEmbedder(config: ServicesConfig['embeddings']): Embedder {
  const maxTokens = config.maxTokens ?? 512;
  const fastLaneTokens = config.fastLaneTokens ?? 256;
  const client = (baseURL: string) =>
    new OpenAI({ baseURL, apiKey: config.apiKey, timeout: config.timeoutMs, maxRetries: 0 });
  const bulk = client(config.baseUrl);
  const fast = config.queryBaseUrl ? client(config.queryBaseUrl) : bulk;
  return {
    model: config.model,
    async embed({ texts, inputType, signal }) {
      const input =
        inputType === 'query' ? texts.map((t) => truncateToWindow(t, { maxTokens, prefix: 'query: ' })) : texts;
      const server = input.every((t) => tokenBound(t) <= fastLaneTokens) ? fast : bulk;
      const res = await server.embeddings.create(
        { model: config.model, input, encoding_format: 'float', input_type: inputType } as OpenAI.EmbeddingCreateParams,
        { signal },
      );
      return [...res.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
    },
  };
}
