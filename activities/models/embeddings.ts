/**
 * The embedding gateway: an OpenAI-compatible /v1/embeddings server (by default the local
 * multilingual E5 server). E5 wants "query: " / "passage: " prefixes; the server adds them from
 * `input_type`, so callers say which kind of text they send.
 *
 * Every call goes through one scheduler per gateway (embedding-scheduler.ts): a few calls at the
 * server at once, queries first, tenants in turn. Passages are sent in small batches (at most
 * `batchSize` texts and `batchChars` characters), so a query waits for one small batch at most.
 * A query text is cut to the model's input window (token-window.ts), and a query call, waiting
 * included, is bounded by `queryTimeoutMs`.
 */
import OpenAI from 'openai';
import type { ServicesConfig } from '../config';
import { EmbeddingScheduler } from './embedding-scheduler';
import { truncateToWindow } from './token-window';

export type EmbeddingInput = 'query' | 'passage';

export interface Embedder {
  /**
   * `tenant` is whose turn the call takes in the scheduler (calls without one share a turn).
   * `onBatch` runs after each batch of passages, e.g. to heartbeat while a long list waits its turns.
   */
  embed(args: { texts: string[]; inputType: EmbeddingInput; tenant?: string; signal?: AbortSignal; onBatch?: () => void }): Promise<number[][]>;
  readonly model: string;
}

type EmbeddingsConfig = ServicesConfig['embeddings'];

/** Defaults for settings a hand-built config may leave out (loadServicesConfig sets them all). */
const DEFAULTS = { maxTokens: 512, queryTimeoutMs: 4000, maxInFlight: 1, batchChars: 2000 };

/**
 * Consecutive batches of at most `maxTexts` texts and `maxChars` characters (a text longer than
 * that goes alone): the work of one call, which is what a query may have to wait for, stays near
 * one model window of prose.
 */
export function passageBatches(texts: readonly string[], o: { maxTexts: number; maxChars: number }): string[][] {
  const batches: string[][] = [];
  let batch: string[] = [];
  let chars = 0;
  for (const text of texts) {
    if (batch.length > 0 && (batch.length >= o.maxTexts || chars + text.length > o.maxChars)) {
      batches.push(batch);
      batch = [];
      chars = 0;
    }
    batch.push(text);
    chars += text.length;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/** The error of a query call that ran out of time; its name makes it a DependencyTimeout. */
function queryTimeout(ms: number): Error {
  return Object.assign(new Error(`embedding the query timed out after ${ms} ms (waiting included)`), { name: 'TimeoutError' });
}

export function createEmbedder(config: EmbeddingsConfig): Embedder {
  const { maxTokens, queryTimeoutMs, maxInFlight, batchChars } = { ...DEFAULTS, ...definedOnly(config) };
  const client = new OpenAI({ baseURL: config.baseUrl, apiKey: config.apiKey, timeout: config.timeoutMs, maxRetries: 0 });
  const scheduler = new EmbeddingScheduler({ maxInFlight });

  async function call(input: string[], inputType: EmbeddingInput, signal?: AbortSignal): Promise<number[][]> {
    // A signal of its own per call, unlinked afterwards: an activity makes many calls with one
    // signal, and the HTTP client never removes the listener it adds.
    const own = new AbortController();
    const forward = () => own.abort(signal?.reason);
    if (signal?.aborted) forward();
    signal?.addEventListener('abort', forward, { once: true });
    let res;
    try {
      res = await client.embeddings.create(
        // input_type is the E5 server's extension; other servers ignore it.
        { model: config.model, input, encoding_format: 'float', input_type: inputType } as OpenAI.EmbeddingCreateParams,
        { signal: own.signal },
      );
    } finally {
      signal?.removeEventListener('abort', forward);
    }
    const ordered = [...res.data].sort((a, b) => a.index - b.index);
    if (ordered.length !== input.length) throw new Error(`embedding server returned ${ordered.length} vectors for ${input.length} inputs`);
    return ordered.map((d) => d.embedding);
  }

  async function embedQueries(texts: string[], tenant: string, signal?: AbortSignal): Promise<number[][]> {
    const input = texts.map((t) => truncateToWindow(t, { maxTokens, prefix: 'query: ' }));
    const timer = AbortSignal.timeout(queryTimeoutMs);
    const bounded = signal ? AbortSignal.any([signal, timer]) : timer;
    try {
      return await scheduler.run({ tenant, kind: 'query', signal: bounded }, () => call(input, 'query', bounded));
    } catch (err) {
      if (timer.aborted && !signal?.aborted) throw queryTimeout(queryTimeoutMs);
      throw err;
    }
  }

  return {
    model: config.model,
    async embed({ texts, inputType, tenant = '', signal, onBatch }) {
      if (inputType === 'query') return embedQueries(texts, tenant, signal);
      const vectors: number[][] = [];
      for (const batch of passageBatches(texts, { maxTexts: config.batchSize, maxChars: batchChars })) {
        vectors.push(...(await scheduler.run({ tenant, kind: 'passage', signal }, () => call(batch, 'passage', signal))));
        onBatch?.();
      }
      return vectors;
    },
  };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
