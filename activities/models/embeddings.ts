/**
 * The embedding gateway: an OpenAI-compatible /v1/embeddings server (by default the local
 * multilingual E5 server). E5 wants "query: " / "passage: " prefixes; the server adds them from
 * `input_type`, so callers say which kind of text they send.
 */
import OpenAI from 'openai';
import type { ServicesConfig } from '../config';

export type EmbeddingInput = 'query' | 'passage';

export interface Embedder {
  embed(args: { texts: string[]; inputType: EmbeddingInput; signal?: AbortSignal }): Promise<number[][]>;
  readonly model: string;
}

export function createEmbedder(config: ServicesConfig['embeddings']): Embedder {
  const client = new OpenAI({ baseURL: config.baseUrl, apiKey: config.apiKey, timeout: config.timeoutMs, maxRetries: 0 });
  return {
    model: config.model,
    async embed({ texts, inputType, signal }) {
      const vectors: number[][] = [];
      for (let i = 0; i < texts.length; i += config.batchSize) {
        const batch = texts.slice(i, i + config.batchSize);
        const res = await client.embeddings.create(
          // input_type is the E5 server's extension; other servers ignore it.
          { model: config.model, input: batch, encoding_format: 'float', input_type: inputType } as OpenAI.EmbeddingCreateParams,
          { signal },
        );
        const ordered = [...res.data].sort((a, b) => a.index - b.index);
        if (ordered.length !== batch.length) throw new Error(`embedding server returned ${ordered.length} vectors for ${batch.length} inputs`);
        vectors.push(...ordered.map((d) => d.embedding));
      }
      return vectors;
    },
  };
}
