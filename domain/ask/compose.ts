/**
 * What every answer engine shares: which retrieved sources are relevant enough to answer from
 * (the no-answer threshold), and the answer's structure before it is rendered.
 */
import type { Source, SourceKind } from '../weaviate/ask-retrieve';
import { contentTokens } from './sentences';

/**
 * minSupport and lexicalWeight were tuned on StackFAQ group A (should answer, gold thread first)
 * and BANKING77 train (should abstain) only, with ASK_RETRIEVAL.articles.alpha: answered ≥ 0.96
 * and abstained ≥ 0.93 there, then the best first link (`npm run bench:ask -- --tune`,
 * bench/results/tune-ask.json, docs/benchmarks.md). The E5 cosines are compressed: a right
 * answer's best passage sits near 0.89, an unrelated question's near 0.84, so small steps matter.
 */
export const ANSWER_THRESHOLD = {
  /** A source must reach this support (similarity + lexicalWeight × query-word coverage). */
  minSupport: 0.865,
  lexicalWeight: 0.025,
  /** Further sources are used when their support is within this of the best one's. */
  secondaryMargin: 0.01,
  maxSources: 2,
};

/**
 * How the relevant sources are ordered, which decides the first link. Besides its support (and an
 * incident's boost), a source gains `titleWeight` × its title similarity (an article title is
 * usually the question it answers, said briefly) and `retrievalRankWeight` / (1 + its place in its
 * hybrid list), which brings in the words the question shares with it. Ranking only: neither makes
 * a source relevant. Tuned on StackFAQ group A at the chosen threshold (bench:ask --tune).
 */
export const SOURCE_RANKING = {
  titleWeight: 1,
  retrievalRankWeight: 0.02,
};

export const RESPONSE_TYPE_BY_KIND: Record<
  SourceKind,
  'ai-answer-with-kb-links' | 'ai-answer-from-tickets' | 'ai-answer-from-incidents'
> = {
  article: 'ai-answer-with-kb-links',
  case: 'ai-answer-from-tickets',
  incident: 'ai-answer-from-incidents',
};

/** A source with how well it supports an answer to the question. */
export interface RankedSource extends Source {
  support: number;
}

/** Share of the question's content words that the source's title and texts contain. */
export function coverage(question: string, source: Source): number {
  const wanted = new Set(contentTokens(question));
  if (wanted.size === 0) return 0;
  const have = new Set(contentTokens([source.title, ...source.passages].join(' ')));
  let hit = 0;
  for (const t of wanted) if (have.has(t)) hit += 1;
  return hit / wanted.size;
}

/**
 * The sources to answer from, best first: those that reach the threshold, ranked (SOURCE_RANKING,
 * and an ongoing incident's boost first), the best one and those within the margin of it. Empty
 * means no answer. Ranking never lifts a source over the threshold.
 */
export function chooseSources(
  question: string,
  candidates: Source[],
  t = ANSWER_THRESHOLD,
  r = SOURCE_RANKING,
): RankedSource[] {
  const rank = (s: RankedSource) =>
    s.support + s.boost + r.titleWeight * s.titleSimilarity + r.retrievalRankWeight / (1 + s.retrievalRank);
  const relevant = candidates
    .map((s) => ({ ...s, support: s.similarity + t.lexicalWeight * coverage(question, s) }))
    .filter((s) => s.support >= t.minSupport)
    .sort((a, b) => rank(b) - rank(a) || a.id.localeCompare(b.id));
  const best = relevant[0];
  if (!best) return [];
  return relevant.filter((s) => rank(s) >= rank(best) - t.secondaryMargin).slice(0, t.maxSources);
}

/** One paragraph of an answer: its lead-in and text, and the source it came from (if any). */
export interface AnswerPart {
  lead?: string;
  text: string;
  source?: Source;
}

/** An answer before rendering: what the engines produce. */
export interface ComposedAnswer {
  responseType: 'ai-answer-with-kb-links' | 'ai-answer-from-tickets' | 'ai-answer-from-incidents' | 'no-answer';
  parts: AnswerPart[];
  /** The sources the answer used, in the order they are linked. */
  used: Source[];
}
