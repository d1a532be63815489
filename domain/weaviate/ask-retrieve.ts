/**
 * Retrieval for ask: one query embedding, then one hybrid query per kind of content the asker may
 * see (article passages; incidents; cases for agents only), run together. Hybrid scores are
 * relative to each result list, so they rank within a kind but say nothing about how relevant the
 * best hit is. Each hit therefore also carries `similarity`, the cosine between the query's
 * embedding and the hit's own, which is comparable across kinds and questions: the answer
 * composer abstains below a calibrated threshold of it. To rank the relevant sources it also uses
 * an article's title similarity (a nearest-title query on ArticleTitle, run beside the hybrid one)
 * and each source's place in its own hybrid list.
 */
import { Filters, FilterValue, type FilterByProperty } from 'weaviate-client';
import { COLLECTIONS, vectorOf } from './collections';
import { Deps, embedQuery, hybrid, tenantOf, timed } from './retrieve';
import { cosine } from '../models/embeddings';
import { ASK_BOUNDS, boundedPassage, opening } from '../ask/bounds';

/**
 * Knobs of ask's retrieval. The article `alpha` was tuned with the no-answer threshold
 * (ANSWER_THRESHOLD) on StackFAQ group A and BANKING77 train only (`npm run bench:ask -- --tune`,
 * docs/benchmarks.md): 0.5 is the lowest alpha the tuner allows, at which a passage that only
 * shares words with the question never outranks the one closest in meaning (cross-language
 * questions need that); lower alphas abstain more on the tuning data but rank by words.
 */
export const ASK_RETRIEVAL = {
  articles: { alpha: 0.5, queryProperties: ['title^3', 'heading^2', 'text'], limit: 24 },
  /** Nearest titles read per question: an article beyond them counts the last one's similarity. */
  titles: { limit: 50 },
  cases: { alpha: 0.75, queryProperties: ['subject^5', 'description^2', 'comments'], limit: 5 },
  incidents: { alpha: 0.6, queryProperties: ['name^3', 'text'], limit: 5 },
  /** Similarity added to an incident still going on, and to one updated within `recentDays`. */
  ongoingBoost: 0.04,
  recentBoost: 0.02,
  recentDays: 3,
};

export type SourceKind = 'article' | 'case' | 'incident';

export interface Source {
  kind: SourceKind;
  id: string;
  title: string;
  url: string;
  /** Cosine of the query's embedding and the best passage's: how relevant the source is. */
  similarity: number;
  /**
   * An article's: cosine of the query's embedding and its title's alone. Cases and incidents have
   * one embedding, so theirs is `similarity`.
   */
  titleSimilarity: number;
  /** Place of the source's best hit in its kind's hybrid list (relative-score fusion), from 0. */
  retrievalRank: number;
  /**
   * Added to rank an incident that is still going on or was updated lately before other sources
   * that are relevant too; it never makes an irrelevant source relevant.
   */
  boost: number;
  /** Texts of the source that matched, best first: article passages, or a case's or incident's text. */
  passages: string[];
  language?: string;
  incident?: {
    status: string;
    startedAt: string;
    updatedAt: string;
    components: string[];
    ongoing: boolean;
    latestUpdate?: string;
  };
}

export interface AskRetrievalInput {
  tenant: string;
  /** The text searched for: the question, made standalone for a follow-up. */
  text: string;
  /** Empty: every product. */
  productIds: string[];
  /** Agents may also be answered from cases; customers never. */
  includeCases: boolean;
  /** Epoch ms that "recent" is measured from. */
  now: number;
}

/** Statuses after which an incident is over (Statuspage and common helpdesk words). */
const CLOSED_STATUSES = new Set(['resolved', 'completed', 'postmortem', 'closed', 'fixed']);

/** A filter on a collection's `productId` (`f`) for a product list, or none. */
function productFilter(f: FilterByProperty<string>, productIds: string[]): FilterValue[] {
  if (productIds.length === 0) return [];
  return [productIds.length === 1 ? f.equal(productIds[0]) : f.containsAny(productIds)];
}

async function articleSources(deps: Deps, input: AskRetrievalInput, vector: number[]): Promise<Source[]> {
  const collection = await tenantOf(deps, COLLECTIONS.articlePassage, input.tenant);
  if (!collection) return [];
  const filters = productFilter(collection.filter.byProperty('productId'), input.productIds);
  const [found, titles] = await timed(deps, 'hybrid', () =>
    Promise.all([
      hybrid(collection, {
        text: input.text,
        vector,
        ...ASK_RETRIEVAL.articles,
        filters: filters.length ? Filters.and(...filters) : undefined,
        returnProperties: { text: ['articleId', 'title', 'url', 'text', 'language'], integers: [] },
        includeVector: true,
      }),
      titleSimilarities(deps, input, vector),
    ]),
  );
  const byArticle = new Map<string, Source>();
  for (const o of found) {
    const p = o.properties;
    const v = vectorOf(o);
    const similarity = v ? cosine(vector, v) : 0;
    const source = byArticle.get(p.articleId);
    if (!source) {
      byArticle.set(p.articleId, {
        kind: 'article',
        id: p.articleId,
        title: p.title,
        url: p.url,
        similarity,
        titleSimilarity: titles.byArticle.get(p.articleId) ?? titles.floor,
        retrievalRank: byArticle.size,
        boost: 0,
        passages: [boundedPassage(p.text)],
        language: p.language || undefined,
      });
    } else {
      source.passages.push(boundedPassage(p.text));
      source.similarity = Math.max(source.similarity, similarity);
    }
  }
  return [...byArticle.values()];
}

/**
 * Cosines of the query and the nearest article titles, and the lowest of them, which stands for any
 * title further away. A tenant whose articles have no title objects (stored before they existed)
 * gets 0 for every article, which leaves the ranking to the passages; an article without one
 * beside articles with one counts the floor.
 */
async function titleSimilarities(
  deps: Deps,
  input: AskRetrievalInput,
  vector: number[],
): Promise<{ byArticle: Map<string, number>; floor: number }> {
  const collection = await tenantOf(deps, COLLECTIONS.articleTitle, input.tenant);
  if (!collection) return { byArticle: new Map(), floor: 0 };
  const filters = productFilter(collection.filter.byProperty('productId'), input.productIds);
  const res = await collection.query.nearVector(vector, {
    limit: ASK_RETRIEVAL.titles.limit,
    filters: filters.length ? Filters.and(...filters) : undefined,
    returnMetadata: ['distance'],
    returnProperties: ['articleId'],
  });
  // Cosine distance: 1 - cosine.
  const byArticle = new Map(res.objects.map((o) => [String(o.properties.articleId), 1 - (o.metadata?.distance ?? 1)]));
  return { byArticle, floor: byArticle.size ? Math.min(...byArticle.values()) : 0 };
}

async function caseSources(deps: Deps, input: AskRetrievalInput, vector: number[]): Promise<Source[]> {
  const collection = await tenantOf(deps, COLLECTIONS.supportCase, input.tenant);
  if (!collection) return [];
  const filters = [
    collection.filter.byProperty('spam').equal(false),
    ...productFilter(collection.filter.byProperty('productId'), input.productIds),
  ];
  const found = await timed(deps, 'hybrid', () =>
    hybrid(collection, {
      text: input.text,
      vector,
      ...ASK_RETRIEVAL.cases,
      filters: Filters.and(...filters),
      // Public comments only: private ones are stored apart and never read here.
      returnProperties: { text: ['caseId', 'subject', 'description', 'comments', 'url'], integers: [] },
      includeVector: true,
    }),
  );
  return found.map((o, retrievalRank) => {
    const p = o.properties;
    const v = vectorOf(o);
    const similarity = v ? cosine(vector, v) : 0;
    return {
      kind: 'case' as const,
      id: p.caseId,
      title: p.subject || p.caseId,
      url: p.url ?? '',
      similarity,
      titleSimilarity: similarity,
      retrievalRank,
      boost: 0,
      // The answer is in the public comments (what was replied); the description only restates the problem.
      // Their opening only (ASK_BOUNDS): a case's comments may hold 1.5 MB.
      passages: [p.comments?.trim() ? p.comments : p.description]
        .filter((t: string | undefined) => t?.trim())
        .map(boundedPassage),
    };
  });
}

/**
 * The last update of an incident's stored text: its lines after the header are the timeline, oldest
 * first. Read from the end, line by line, and told in at most ASK_BOUNDS.updateChars.
 */
export function latestUpdate(text: string): string | undefined {
  for (let end = text.length; ;) {
    const start = end === 0 ? 0 : text.lastIndexOf('\n', end - 1) + 1;
    const line = text.slice(start, end);
    const at = line.lastIndexOf(' — ');
    if (at >= 0) return opening(line.slice(at + 3), ASK_BOUNDS.updateChars);
    if (start === 0) return undefined;
    end = start - 1;
  }
}

async function incidentSources(deps: Deps, input: AskRetrievalInput, vector: number[]): Promise<Source[]> {
  const collection = await tenantOf(deps, COLLECTIONS.incident, input.tenant);
  if (!collection) return [];
  const found = await timed(deps, 'hybrid', () =>
    hybrid(collection, {
      text: input.text,
      vector,
      ...ASK_RETRIEVAL.incidents,
      returnProperties: {
        text: ['incidentId', 'name', 'status', 'shortlink', 'text', 'components', 'startedAt', 'updatedAt'],
        integers: [],
      },
      includeVector: true,
    }),
  );
  return found.map((o, retrievalRank) => {
    const p = o.properties;
    const v = vectorOf(o);
    const similarity = v ? cosine(vector, v) : 0;
    const status = String(p.status ?? '').toLowerCase();
    const ongoing = status !== '' && !CLOSED_STATUSES.has(status);
    const updated = Date.parse(p.updatedAt || p.startedAt || '');
    const recent = Number.isFinite(updated) && input.now - updated < ASK_RETRIEVAL.recentDays * 86_400_000;
    const boost = (ongoing ? ASK_RETRIEVAL.ongoingBoost : 0) + (recent ? ASK_RETRIEVAL.recentBoost : 0);
    return {
      kind: 'incident' as const,
      id: p.incidentId,
      title: p.name || p.incidentId,
      url: p.shortlink ?? '',
      similarity,
      titleSimilarity: similarity,
      retrievalRank,
      boost,
      passages: [boundedPassage(p.text ?? '')],
      incident: {
        status: p.status ?? '',
        startedAt: p.startedAt ?? '',
        updatedAt: p.updatedAt ?? '',
        components: p.components ?? [],
        ongoing,
        latestUpdate: latestUpdate(p.text ?? ''),
      },
    };
  });
}

/** Every candidate source of an answer, most similar (boost included) first. */
export async function retrieveAskSources(deps: Deps, input: AskRetrievalInput): Promise<Source[]> {
  const vector = await embedQuery(deps, input.tenant, input.text);
  const lists = await Promise.all([
    articleSources(deps, input, vector),
    incidentSources(deps, input, vector),
    input.includeCases ? caseSources(deps, input, vector) : Promise.resolve([]),
  ]);
  return lists.flat().sort((a, b) => b.similarity + b.boost - (a.similarity + a.boost) || a.id.localeCompare(b.id));
}
