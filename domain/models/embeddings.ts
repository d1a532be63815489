/**
 * The embedding gateway: an OpenAI-compatible /v1/embeddings server (by default the local
 * multilingual E5 server). E5 wants "query: " / "passage: " prefixes; the server adds them from
 * `input_type`, so callers say which kind of text they send.
 *
 * Every call goes through a scheduler (embedding-scheduler.ts): a few calls at the server at once,
 * queries first, tenants in turn. Passages are sent in small batches (at most `batchSize` texts and
 * `batchChars` characters), so a query waits for one small batch at most. A query text is cut to
 * the model's input window (token-window.ts), and a query call's time at the server is bounded by
 * `queryTimeoutMs` per `fastLaneTokens` tokens (its wait before, by the caller's signal); texts
 * beyond one call's bound go as several calls. Queries (and interactive passages) that wait for the same server are sent
 * together, tenants in turn, up to the token bound of one call of that lane (`fastLaneTokens` on
 * the fast lane, `maxTokens` on the bulk lane): one server call costs a fixed overhead that the
 * queries then share, while a query arriving meanwhile still waits for one call's worth of tokens
 * at most. The local server embeds each text of a call on its own, so a text's vector does not
 * depend on the others sent with it.
 *
 * Two lanes when `queryBaseUrl` names a second server (the launcher starts one): short queries
 * and short interactive passages (every text at most `fastLaneTokens` by the token bound:
 * searches, ask, a message to tag) go to that server, with a scheduler of their own, and never
 * wait behind a background passage call or a full-window query, which take the bulk lane
 * (`baseUrl`). The two servers share the CPU instead of taking turns.
 * Without `queryBaseUrl` both lanes are the one server, as before.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { raceAbort } from '../abort';
import OpenAI from 'openai';
import type { ServicesConfig } from '../config';
import {
  type EmbeddingLane,
  embeddingCallDuration,
  embeddingErrors,
  timed,
  watchEmbeddingQueue,
} from '../observability/metrics';
import { inSpan } from '../observability/tracing';
import { Batcher, EmbeddingScheduler } from './embedding-scheduler';
import { embeddedPart } from '../text/records';
import { tokenBound, truncateToWindow } from './token-window';

export type EmbeddingInput = 'query' | 'passage';

export interface Embedder {
  /**
   * `tenant` is whose turn the call takes in the scheduler (calls without one share a turn).
   * `onBatch` runs after each batch of passages, e.g. to heartbeat while a long list waits its turns.
   * `interactive`: a request waits for these passages (a message to tag), so they are treated as
   * queries are (one call, ahead of background passages, the fast lane when short, bounded by
   * `queryTimeoutMs`), but embedded as passages, whole. Queries are always interactive.
   */
  embed(args: {
    texts: string[];
    inputType: EmbeddingInput;
    tenant?: string;
    signal?: AbortSignal;
    onBatch?: () => void;
    interactive?: boolean;
  }): Promise<number[][]>;
  readonly model: string;
}

type EmbeddingsConfig = ServicesConfig['embeddings'];

/**
 * The longest passage sent (characters): callers cut what they embed to 2,000 (records.ts); this
 * keeps a caller that forgets from sending a text the server would read window by window for
 * minutes, long after the request that asked for it has gone.
 */
const MAX_PASSAGE_CHARS = 8000;

/** Defaults for settings a hand-built config may leave out (loadServicesConfig sets them all). */
const DEFAULTS = { maxTokens: 512, queryTimeoutMs: 4000, maxInFlight: 1, batchChars: 2000, fastLaneTokens: 256 };

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

/** The vectors of several callers' texts sent as one call, handed back per caller, in order. */
function splitBack(items: readonly string[][], vectors: number[][]): number[][][] {
  let at = 0;
  return items.map((texts) => vectors.slice(at, (at += texts.length)));
}

/** The error of a query call that ran out of time; its name makes it a DependencyTimeout. */
function queryTimeout(ms: number): Error {
  return Object.assign(new Error(`embedding the query timed out after ${ms} ms at the server`), {
    name: 'TimeoutError',
  });
}

/** One embedding server, the scheduler of the calls this process sends it, and how they share calls. */
interface Lane {
  client: OpenAI;
  scheduler: EmbeddingScheduler;
  /** Texts a request waits for, per input type: one item is one caller's texts. */
  batchers: Record<EmbeddingInput, Batcher<string[], number[][]>>;
}

/** One server call, timed into its lane's histogram; a failure other than its caller's abort counts as an error. */
const timedCall = <T>(o: { lane: EmbeddingLane; run: () => Promise<T> }) =>
  timed({
    histogram: embeddingCallDuration,
    labels: { lane: o.lane },
    errors: embeddingErrors,
    errorLabels: (err) => (err instanceof OpenAI.APIUserAbortError ? undefined : { lane: o.lane }),
    run: o.run,
  });

/** A caller's texts as one batch item: its cost is their summed token bound. */
const costOf = (texts: readonly string[]) => texts.reduce((sum, t) => sum + tokenBound(t), 0);

/** Texts in order, in shares whose summed cost fits `bound` (a text above it alone). */
export function sharesOf(texts: readonly string[], bound: number): string[][] {
  const shares: string[][] = [];
  let cost = Infinity;
  for (const text of texts) {
    const own = tokenBound(text);
    if (cost + own > bound) {
      shares.push([]);
      cost = 0;
    }
    shares[shares.length - 1].push(text);
    cost += own;
  }
  return shares;
}

/**
 * `shareCalls: false` sends every call alone: for a server whose vector of a text depends on the
 * other texts of its call (the English encoder's 8-bit model quantizes per call), where sharing
 * would let one request's text shift another's result.
 */
export function createEmbedder(
  config: EmbeddingsConfig,
  o: {
    shareCalls?: boolean;
    /** The metrics' lane of every call; by default `bulk` and `query`. */ lane?: EmbeddingLane;
  } = {},
): Embedder {
  const { maxTokens, queryTimeoutMs, maxInFlight, batchChars, fastLaneTokens } = {
    ...DEFAULTS,
    ...definedOnly(config),
  };
  const shareCalls = o.shareCalls ?? true;
  const twoLanes = Boolean(config.queryBaseUrl && config.queryBaseUrl !== config.baseUrl);
  /** A lane whose calls a request waits for share server calls up to `batchTokens`, the lane's longest single text. */
  const lane = (baseURL: string, batchTokens: number, name: EmbeddingLane): Lane => {
    const client = new OpenAI({ baseURL, apiKey: config.apiKey, timeout: config.timeoutMs, maxRetries: 0 });
    const batcher = (inputType: EmbeddingInput): Batcher<string[], number[][]> => ({
      maxCost: shareCalls ? batchTokens : 0,
      send: async (items, signal) =>
        splitBack(items, await timedCall({ lane: name, run: () => call(client, items.flat(), inputType, signal) })),
    });
    const scheduler = new EmbeddingScheduler({ maxInFlight });
    watchEmbeddingQueue(name, () => scheduler.pending.query + scheduler.pending.passage);
    return { client, scheduler, batchers: { query: batcher('query'), passage: batcher('passage') } };
  };
  const bulk = lane(config.baseUrl, maxTokens, o.lane ?? 'bulk');
  const fast = twoLanes ? lane(config.queryBaseUrl!, fastLaneTokens, o.lane ?? 'query') : bulk;

  async function call(
    client: OpenAI,
    input: string[],
    inputType: EmbeddingInput,
    signal?: AbortSignal,
  ): Promise<number[][]> {
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
    if (ordered.length !== input.length)
      throw new Error(`embedding server returned ${ordered.length} vectors for ${input.length} inputs`);
    return ordered.map((d) => d.embedding);
  }

  /**
   * Texts a request waits for, before background passages, on the fast lane when all are short: one
   * server call when they fit the lane's bound of one call, else one call per share that fits (a
   * long message's segments), each in its tenant's turn, so that another tenant's query waits for
   * one share at most.
   */
  async function embedNow(
    texts: string[],
    inputType: EmbeddingInput,
    tenant: string,
    signal?: AbortSignal,
  ): Promise<number[][]> {
    const input =
      inputType === 'query' ? texts.map((t) => truncateToWindow(t, { maxTokens, prefix: 'query: ' })) : texts;
    const chosen = input.every((t) => tokenBound(t) <= fastLaneTokens) ? fast : bulk;
    const shares = sharesOf(input, chosen === bulk ? maxTokens : fastLaneTokens);
    if (shares.length === 1) return embedCall({ lane: chosen, texts: input, inputType, tenant, signal });
    // One share failing ends the others: the caller gets nothing from them.
    const failed = new AbortController();
    const parts = await Promise.all(
      shares.map((share) =>
        embedCall({ lane: chosen, texts: share, inputType, tenant, signal, stop: failed.signal }).catch(
          (err: unknown) => {
            failed.abort(err);
            throw err;
          },
        ),
      ),
    );
    return parts.flat();
  }

  /**
   * One server call of texts a request waits for. The server's time is bounded from the moment the
   * call goes to it, by `queryTimeoutMs` per `fastLaneTokens` tokens of the call (a short query's
   * bound, twice that for a full window); its wait in this process's queue (behind other calls, the
   * same tenant's first) by the caller's signal, or by the same bound when the caller gives none.
   * A call that waited long is not the server's failure.
   */
  async function embedCall(o: {
    lane: Lane;
    texts: string[];
    inputType: EmbeddingInput;
    tenant: string;
    /** The caller's signal; without one, the call's wait is bounded like its time at the server. */
    signal?: AbortSignal;
    /** Ends the call for another reason than the caller's (a sibling share failed). */
    stop?: AbortSignal;
  }): Promise<number[][]> {
    const cost = costOf(o.texts);
    const serverMs = queryTimeoutMs * Math.max(1, Math.ceil(cost / fastLaneTokens));
    const atServer = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const startTimer = () => {
      timer ??= setTimeout(() => atServer.abort(queryTimeout(serverMs)), serverMs);
    };
    if (!o.signal) startTimer();
    const bounded = AbortSignal.any([o.signal, o.stop, atServer.signal].filter((x): x is AbortSignal => Boolean(x)));
    try {
      // The scheduler's query kind is its urgent one.
      return await o.lane.scheduler.runBatched({
        tenant: o.tenant,
        kind: 'query',
        signal: bounded,
        item: o.texts,
        cost,
        batcher: o.lane.batchers[o.inputType],
        onStart: startTimer,
      });
    } catch (err) {
      if (atServer.signal.aborted && !o.signal?.aborted && !o.stop?.aborted) throw queryTimeout(serverMs);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  return spanned({
    model: config.model,
    async embed({ texts: whole, inputType, tenant = '', signal, onBatch, interactive }) {
      const texts = inputType === 'passage' ? whole.map((t) => embeddedPart(t, MAX_PASSAGE_CHARS)) : whole;
      if (inputType === 'query' || interactive) return embedNow(texts, inputType, tenant, signal);
      const vectors: number[][] = [];
      for (const batch of passageBatches(texts, { maxTexts: config.batchSize, maxChars: batchChars })) {
        vectors.push(
          ...(await bulk.scheduler.run({ tenant, kind: 'passage', signal }, () =>
            call(bulk.client, batch, 'passage', signal),
          )),
        );
        onBatch?.();
      }
      return vectors;
    },
  });
}

/**
 * Each call of `embedder` as a span of the request's trace, when it is traced (domain/observability/tracing.ts):
 * the caller's wait for the server included, since calls of several requests may share one server call.
 */
function spanned(embedder: Embedder): Embedder {
  return {
    ...embedder,
    embed: (o) =>
      inSpan(
        {
          name: `embeddings ${embedder.model}`,
          attributes: {
            'gen_ai.operation.name': 'embeddings',
            'gen_ai.request.model': embedder.model,
            'embeddings.input_type': o.inputType,
            'embeddings.texts': o.texts.length,
          },
        },
        () => embedder.embed(o),
      ),
  };
}

/** Cosine of two vectors of the same length (0 when either is zero). */
export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/**
 * The tag model's English encoder (config.tagEmbeddings), a client of its own with the same
 * timeouts and per-tenant turns as the embedding servers; undefined when none is configured.
 * Its texts are short (a case's opening), so a call carries more of them; calls of different
 * requests never share a server call, since its vectors depend on the call's other texts.
 */
export function createEnglishEncoder(
  config: Pick<ServicesConfig, 'embeddings' | 'tagEmbeddings'>,
): Embedder | undefined {
  if (!config.tagEmbeddings) return undefined;
  const { baseUrl, model } = config.tagEmbeddings;
  const inner = createEmbedder(
    {
      ...config.embeddings,
      baseUrl,
      model,
      queryBaseUrl: undefined,
      batchSize: 32,
      batchChars: 32 * ENGLISH_ENCODER_CHARS,
    },
    { shareCalls: false, lane: 'english' },
  );
  return { model, embed: (o) => inner.embed({ ...o, texts: o.texts.map((t) => t.slice(0, ENGLISH_ENCODER_CHARS)) }) };
}

/** Characters of a text the English encoder reads: the opening, where a case says what it is about (about 250 tokens). */
export const ENGLISH_ENCODER_CHARS = 1000;

/**
 * An embedder that remembers the vectors of its last `maxEntries` texts, per tenant (a tenant never
 * learns from timing what another one sent), and embeds only the texts it has not seen. For the
 * tag trainings of the worker, which read every case of a tenant again at each training: the cases
 * unchanged since the last one cost nothing. 50,000 vectors of 384 dimensions take about 80 MB.
 */
export function withVectorCache(embedder: Embedder, o: { maxEntries: number }): Embedder {
  const cache = new LRUCache<string, Float32Array>({ max: o.maxEntries });
  const keyOf = (tenant: string | undefined, inputType: EmbeddingInput, text: string) =>
    createHash('sha256')
      .update(`${tenant ?? ''}\0${inputType}\0${text}`)
      .digest('base64');
  return {
    model: embedder.model,
    async embed(args) {
      const keys = args.texts.map((t) => keyOf(args.tenant, args.inputType, t));
      // Read before embedding: storing the new vectors may evict ones this call needs.
      const found = new Map<string, number[]>();
      for (const k of keys) {
        const v = cache.get(k);
        if (v) found.set(k, Array.from(v));
      }
      const textOf = new Map(keys.map((k, i) => [k, args.texts[i]]));
      const missing = [...textOf.keys()].filter((k) => !found.has(k));
      if (missing.length > 0) {
        const vectors = await embedder.embed({ ...args, texts: missing.map((k) => textOf.get(k)!) });
        missing.forEach((k, i) => {
          found.set(k, vectors[i]);
          cache.set(k, Float32Array.from(vectors[i]));
        });
      }
      return keys.map((k) => found.get(k)!);
    },
  };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** An embedder that can begin a query's embedding before the call that needs it (withSharedQueries). */
export interface SharingEmbedder extends Embedder {
  /** Begins embedding `text` as a query of `tenant`, for a call expected shortly; failures are that call's. */
  prefetch(o: { tenant: string; text: string }): void;
}

/**
 * An embedder whose prefetched queries are shared: a one-text query call for a tenant and text that
 * `prefetch` began, while the embedding is on its way or within `keepMs` of it, waits for that
 * embedding instead of making its own call. The API process begins an ask's question as it starts
 * the ask's execution, so the retrieval step that its own ask worker runs a moment later finds the
 * embedding under way, instead of beginning it only once Temporal has started the run and handed
 * over its first task. A prefetch that fails is forgotten, so the step's next attempt embeds anew.
 */
export function withSharedQueries(embedder: Embedder, o: { keepMs: number; maxEntries: number }): SharingEmbedder {
  const begun = new LRUCache<string, Promise<number[][]>>({ max: o.maxEntries, ttl: o.keepMs });
  const keyOf = (tenant: string, text: string) => `${tenant}\0${text}`;
  return {
    model: embedder.model,
    prefetch({ tenant, text }) {
      const key = keyOf(tenant, text);
      if (begun.has(key)) return;
      const vectors = embedder.embed({ texts: [text], inputType: 'query', tenant });
      begun.set(key, vectors);
      vectors.catch(() => begun.peek(key) === vectors && begun.delete(key));
    },
    embed(args) {
      const shared =
        args.inputType === 'query' && args.texts.length === 1 && begun.get(keyOf(args.tenant ?? '', args.texts[0]));
      if (!shared) return embedder.embed(args);
      return args.signal ? raceAbort(shared, args.signal) : shared;
    },
  };
}
