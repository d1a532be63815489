/**
 * Ranking metrics of the benchmarks. Pure functions, unit-tested in test/unit/bench-metrics.test.ts.
 * Ranks are 1-based; a rank of 0 means "not in the returned list".
 */

/** 1-based rank of the first item of `ranked` that is in `relevant`, looking at the top `k` only; 0 when none. */
export function firstRelevantRank(
  ranked: readonly string[],
  relevant: ReadonlySet<string> | string,
  k = ranked.length,
): number {
  const isRelevant = typeof relevant === 'string' ? (id: string) => id === relevant : (id: string) => relevant.has(id);
  const top = Math.min(k, ranked.length);
  for (let i = 0; i < top; i++) if (isRelevant(ranked[i])) return i + 1;
  return 0;
}

/** Reciprocal rank cut at k: 1/rank of the first relevant item within the top k, else 0. */
export function reciprocalRankAt(rank: number, k: number): number {
  return rank >= 1 && rank <= k ? 1 / rank : 0;
}

/** Whether the first relevant item is within the top k (recall@k when each query has one gold item). */
export function hitAt(rank: number, k: number): number {
  return rank >= 1 && rank <= k ? 1 : 0;
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) throw new Error('mean of an empty list');
  return values.reduce((a, b) => a + b, 0) / values.length;
}

export interface SingleGoldMetrics {
  queries: number;
  mrr10: number;
  recall1: number;
  recall5: number;
  recall10: number;
}

/**
 * MRR@10 and Recall@1/@5/@10 over queries that each have exactly one gold item, from the rank of
 * that item in each query's result list (0 = not returned). Rates are fractions in 0..1.
 */
export function singleGoldMetrics(ranks: readonly number[]): SingleGoldMetrics {
  return {
    queries: ranks.length,
    mrr10: mean(ranks.map((r) => reciprocalRankAt(r, 10))),
    recall1: mean(ranks.map((r) => hitAt(r, 1))),
    recall5: mean(ranks.map((r) => hitAt(r, 5))),
    recall10: mean(ranks.map((r) => hitAt(r, 10))),
  };
}

/**
 * Orders candidates the way the official SemEval-2016 Task 3 scorer does: by predicted score,
 * highest first, with a stable sort, so ties keep the input order (the gold file's order).
 */
export function rankLikeScorer<T>(candidates: readonly T[], score: (c: T) => number): T[] {
  return candidates
    .map((c, i) => ({ c, i, s: score(c) }))
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .map((x) => x.c);
}

/**
 * Average precision as the official SemEval-2016 Task 3 scorer computes it (metrics.map in its
 * ev.py): over the top `k` labels of a ranked list, the mean of the precision at each relevant
 * position. It divides by the relevant items found in the top k (not by all relevant items), and a
 * list without a relevant item scores 0.
 */
export function semevalAveragePrecision(relevantInRankOrder: readonly boolean[], k = 10): number {
  const precisions: number[] = [];
  let correct = 0;
  const top = Math.min(k, relevantInRankOrder.length);
  for (let i = 0; i < top; i++) {
    if (relevantInRankOrder[i]) {
      correct += 1;
      precisions.push(correct / (i + 1));
    }
  }
  return precisions.length ? mean(precisions) : 0;
}

/**
 * MAP as the official scorer reports it: the mean of semevalAveragePrecision over every query,
 * including queries that have no relevant candidate (they count as 0; the scorer's
 * --ignore_noanswer is off by default and was off for the official results).
 */
export function semevalMap(rankedLabelsPerQuery: readonly (readonly boolean[])[], k = 10): number {
  return mean(rankedLabelsPerQuery.map((labels) => semevalAveragePrecision(labels, k)));
}

/** Reciprocal rank of the first relevant label within the top k, for MRR over labelled lists. */
export function labelReciprocalRank(relevantInRankOrder: readonly boolean[], k = 10): number {
  const i = relevantInRankOrder.slice(0, k).indexOf(true);
  return i < 0 ? 0 : 1 / (i + 1);
}
