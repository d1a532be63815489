/**
 * Hybrid retrieval (BM25 + the query's embedding, relative-score fusion) over one tenant's
 * cases and article passages. Scores are in 0..1, higher is better.
 */
import { ApplicationFailure } from '@temporalio/common';
import {
  Collection,
  Filters,
  FilterValue,
  WeaviateClient,
  type PrimitiveKeys,
  type Properties,
  type QueryProperty,
} from 'weaviate-client';
import type { Embedder } from '../models/embeddings';
import { snippet } from '../text/article-text';
import type { SearchPhase } from '../timings';
import { COLLECTIONS, tenantCollection, type CollectionName } from './collections';
import type { ArticlePassageProperties, SupportCaseProperties } from './properties';
import { objectId } from './ingest';
import { timedWeaviate } from '../observability/metrics';

/** Retrieval knobs, tuned on the dev data named in docs/benchmarks.md. */
export const RETRIEVAL = {
  cases: { alpha: 0.75, queryProperties: ['subject^5', 'description^2', 'comments'] },
  articles: { alpha: 0.6, queryProperties: ['title^3', 'heading^2', 'text'], passagesPerResult: 4 },
};

export interface Deps {
  weaviate: () => Promise<WeaviateClient>;
  embedder: Embedder;
  signal?: AbortSignal;
  /** Receives the milliseconds each phase took, added up over its calls. */
  timings?: Partial<Record<SearchPhase, number>>;
}

export async function timed<T>(deps: Deps, phase: SearchPhase, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await fn();
  } finally {
    if (deps.timings) deps.timings[phase] = (deps.timings[phase] ?? 0) + performance.now() - started;
  }
}

/** The query's embedding; computed once per search, whatever the number of hybrid queries. */
export async function embedQuery(deps: Deps, tenant: string, text: string): Promise<number[]> {
  const [vector] = await timed(deps, 'embed', () =>
    deps.embedder.embed({ texts: [text], inputType: 'query', tenant, signal: deps.signal }),
  );
  return vector;
}

export const tenantOf = <N extends CollectionName>(deps: Deps, name: N, tenant: string) =>
  timed(deps, 'tenant', async () => tenantCollection(await deps.weaviate(), name, tenant));

/** The properties a search result shows; integers are listed apart (see `hybrid`). */
const RESULT_PROPERTIES = {
  cases: { text: ['caseId', 'subject', 'url', 'productId'], integers: ['timeOfCreation'] },
  articles: { text: ['articleId', 'title', 'url', 'text'], integers: [] },
} satisfies {
  cases: HybridOptions<SupportCaseProperties>['returnProperties'];
  articles: HybridOptions<ArticlePassageProperties>['returnProperties'];
};

/** The gRPC client refuses to decode an int64 above 2^53 - 1 and fails the whole query. */
const isUnsafeInteger = (err: unknown) => err instanceof Error && err.message.includes('MAX_SAFE_INTEGER');

export interface HybridOptions<P extends Properties> {
  text: string;
  vector: number[];
  alpha: number;
  /** BM25's fields, each `name` or `name^boost` (RETRIEVAL). */
  queryProperties: readonly string[];
  filters?: FilterValue;
  limit: number;
  returnProperties: { text: QueryProperty<P>[]; integers: QueryProperty<P>[] };
  /** Return each object's vector too (ask compares it with the query's). */
  includeVector?: boolean;
}

/**
 * BM25's fields of a query on a collection of properties `P`. A boosted field (`subject^5`) is no property name,
 * which is all the client's type allows, yet it is what the client sends for `{ name, weight }` too.
 */
const bm25Fields = <P extends Properties>(fields: readonly string[]) => fields as PrimitiveKeys<P>[];

/**
 * One hybrid query. Uploads refuse integers above 2^53 - 1, but an object stored before that rule
 * may still hold one: then the query is repeated without the integer properties, so those results
 * leave them out instead of failing every search that meets the object.
 */
export async function hybrid<P extends Properties, N extends string>(
  collection: Collection<P, N>,
  opts: HybridOptions<P>,
) {
  const run = (returnProperties: QueryProperty<P>[]) =>
    collection.query.hybrid(opts.text, {
      vector: opts.vector,
      alpha: opts.alpha,
      fusionType: 'RelativeScore',
      queryProperties: bm25Fields<P>(opts.queryProperties),
      filters: opts.filters,
      limit: opts.limit,
      returnMetadata: ['score'],
      returnProperties,
      includeVector: opts.includeVector,
    });
  const { text, integers } = opts.returnProperties;
  const res = await timedWeaviate('search', () => run([...text, ...integers])).catch((err) => {
    if (integers.length === 0 || !isUnsafeInteger(err)) throw err;
    return run(text);
  });
  return res.objects;
}

export interface SearchCasesInput {
  tenant: string;
  query?: string;
  conversationId?: string;
  /** Empty: all products. */
  productIds: string[];
  formId?: string;
  sourceBrandId?: string;
  filterUrls: string[];
  offset: number;
  limit: number;
}

export interface CaseHit {
  id: string;
  subject: string;
  url: string;
  /** Absent when the case has none, or holds one beyond 2^53 - 1 from before uploads refused it. */
  timeOfCreation?: number;
  productId: string;
  score: number;
}

export async function searchCases(deps: Deps, input: SearchCasesInput): Promise<CaseHit[]> {
  const collection = await tenantOf(deps, COLLECTIONS.supportCase, input.tenant);
  let text = input.query ?? '';
  if (input.conversationId) {
    const own =
      collection &&
      (await collection.query.fetchObjectById(objectId(input.tenant, 'case', input.conversationId), {
        returnProperties: ['subject', 'description', 'comments'],
      }));
    if (!own) throw ApplicationFailure.nonRetryable(`no case with conversationId ${input.conversationId}`, 'NotFound');
    const p = own.properties;
    const caseContent = [p.subject, p.description, p.comments].filter(Boolean).join('\n');
    text = [input.query, caseContent].filter(Boolean).join('\n');
  }
  if (!collection) return [];
  const f = collection.filter;
  const common: FilterValue[] = [f.byProperty('spam').equal(false)];
  if (input.conversationId) common.push(f.byProperty('caseId').notEqual(input.conversationId));
  if (input.formId) common.push(f.byProperty('formId').equal(input.formId));
  if (input.sourceBrandId) common.push(f.byProperty('brandId').equal(input.sourceBrandId));
  if (input.filterUrls.length) common.push(f.byProperty('url').containsNone(input.filterUrls));
  const perProduct = input.productIds.length ? input.productIds : [undefined];
  const want = input.offset + input.limit;
  const vector = await embedQuery(deps, input.tenant, text);
  const merged = new Map<string, CaseHit>();
  for (const productId of perProduct) {
    const filters = Filters.and(...common, ...(productId ? [f.byProperty('productId').equal(productId)] : []));
    const found = await timed(deps, 'hybrid', () =>
      hybrid(collection, {
        text,
        vector,
        ...RETRIEVAL.cases,
        filters,
        limit: want,
        returnProperties: RESULT_PROPERTIES.cases,
      }),
    );
    for (const o of found) {
      const p = o.properties;
      const hit = {
        id: p.caseId,
        subject: p.subject,
        url: p.url,
        timeOfCreation: p.timeOfCreation === undefined ? undefined : Number(p.timeOfCreation),
        productId: p.productId,
        score: o.metadata?.score ?? 0,
      };
      if ((merged.get(hit.id)?.score ?? -1) < hit.score) merged.set(hit.id, hit);
    }
  }
  return [...merged.values()].sort(byScoreThenId).slice(input.offset, want);
}

const byScoreThenId = (a: { score: number; id: string }, b: { score: number; id: string }) =>
  b.score - a.score || a.id.localeCompare(b.id);

export interface ArticleHit {
  id: string;
  title: string;
  url: string;
  snippet: string;
  score: number;
}

/** One result per article: its best-matching passage gives the snippet. */
export async function searchArticles(
  deps: Deps,
  input: { tenant: string; text: string; offset: number; limit: number },
): Promise<ArticleHit[]> {
  const collection = await tenantOf(deps, COLLECTIONS.articlePassage, input.tenant);
  if (!collection) return [];
  const want = input.offset + input.limit;
  const vector = await embedQuery(deps, input.tenant, input.text);
  const passages = await timed(deps, 'hybrid', () =>
    hybrid(collection, {
      text: input.text,
      vector,
      ...RETRIEVAL.articles,
      limit: Math.min(1000, want * RETRIEVAL.articles.passagesPerResult),
      returnProperties: RESULT_PROPERTIES.articles,
    }),
  );
  const best = new Map<string, ArticleHit>();
  for (const o of passages) {
    const p = o.properties;
    if (best.has(p.articleId)) continue; // passages arrive best first
    best.set(p.articleId, {
      id: p.articleId,
      title: p.title,
      url: p.url,
      snippet: snippet(p.text),
      score: o.metadata?.score ?? 0,
    });
  }
  return [...best.values()].sort(byScoreThenId).slice(input.offset, want);
}
