/**
 * `npm run bench:search -- --tune`: a small grid over RETRIEVAL.cases (alpha, BM25 field boosts),
 * scored on StackFAQ group A only, so group B stays a held-out test. The API reads RETRIEVAL when
 * it searches, in the worker; to try settings without restarting anything, this calls the
 * searchCases activity function directly, in this process, with RETRIEVAL.cases overridden, on the
 * cases the benchmark uploaded through the API. Query embeddings are computed once and reused.
 */
import { loadServicesConfig } from '../domain/config';
import { createEmbedder, Embedder } from '../domain/models/embeddings';
import { connectWeaviate } from '../domain/weaviate/client';
import { RETRIEVAL, searchCases } from '../domain/weaviate/retrieve';
import { mapPool } from './lib/api-client';
import type { StackFaqQuery } from './lib/datasets';
import { firstRelevantRank, singleGoldMetrics } from './lib/metrics';
import { progress } from './lib/progress';
import { round } from './lib/run-info';

type CaseKnobs = { alpha: number; queryProperties: string[] };

/** Stage 1: alpha (0 = BM25 only, 1 = vector only) with the current boosts. */
const ALPHAS = [0, 0.4, 0.6, 0.75, 0.9, 1];
/** Stage 2: other BM25 field boosts at the best alpha of stage 1. */
const PROPERTY_VARIANTS = [
  ['subject^5', 'description^2', 'comments'],
  ['subject', 'description', 'comments'],
];

/** An embedder that remembers query vectors, so every configuration sees the same vectors. */
function memoized(embedder: Embedder): Embedder {
  const cache = new Map<string, number[]>();
  return {
    model: embedder.model,
    async embed(args) {
      const key = (t: string) => `${args.inputType}\u0000${t}`;
      const missing = args.texts.filter((t) => !cache.has(key(t)));
      if (missing.length) {
        const vectors = await embedder.embed({ ...args, texts: missing });
        missing.forEach((t, i) => cache.set(key(t), vectors[i]));
      }
      return args.texts.map((t) => cache.get(key(t))!);
    },
  };
}

export interface TunedConfiguration extends CaseKnobs {
  mrr10: number;
  recall1: number;
  recall5: number;
  best?: boolean;
}

export async function tuneCases(o: {
  tenant: string;
  queries: StackFaqQuery[];
  concurrency: number;
}): Promise<TunedConfiguration[]> {
  if (o.queries.some((q) => q.group !== 'A')) throw new Error('tuning uses group A queries only');
  const config = loadServicesConfig();
  const deps = {
    weaviate: () => connectWeaviate(config.weaviate),
    embedder: memoized(createEmbedder(config.embeddings)),
  };
  const original: CaseKnobs = { ...RETRIEVAL.cases, queryProperties: [...RETRIEVAL.cases.queryProperties] };
  const results: TunedConfiguration[] = [];

  const evaluate = async (knobs: CaseKnobs) => {
    const seen = results.find(
      (r) => r.alpha === knobs.alpha && r.queryProperties.join() === knobs.queryProperties.join(),
    );
    if (seen) return seen;
    Object.assign(RETRIEVAL.cases, knobs);
    const bar = progress(`[tune] alpha ${knobs.alpha} ${knobs.queryProperties.join(',')}`, o.queries.length, {
      every: 625,
    });
    const ranks = await mapPool(o.queries, o.concurrency, async (q) => {
      const hits = q.text.trim()
        ? await searchCases(deps, {
            tenant: o.tenant,
            query: q.text,
            productIds: [],
            filterUrls: [],
            offset: 0,
            limit: 10,
          })
        : [];
      bar.tick();
      return firstRelevantRank(
        hits.map((h) => h.id),
        q.thread_id,
        10,
      );
    });
    bar.stop();
    const m = singleGoldMetrics(ranks);
    const row = {
      ...knobs,
      queryProperties: [...knobs.queryProperties],
      mrr10: round(m.mrr10),
      recall1: round(m.recall1),
      recall5: round(m.recall5),
    };
    results.push(row);
    return row;
  };
  const better = (a: TunedConfiguration, b: TunedConfiguration) =>
    a.mrr10 > b.mrr10 || (a.mrr10 === b.mrr10 && a.recall1 > b.recall1);

  try {
    await evaluate(original);
    for (const alpha of ALPHAS) await evaluate({ alpha, queryProperties: original.queryProperties });
    const bestAlpha = results.reduce((a, b) => (better(b, a) ? b : a)).alpha;
    for (const queryProperties of PROPERTY_VARIANTS) await evaluate({ alpha: bestAlpha, queryProperties });
  } finally {
    Object.assign(RETRIEVAL.cases, original);
  }

  const best = results.reduce((a, b) => (better(b, a) ? b : a));
  best.best = true;
  console.log(
    `\nStackFAQ group A (${o.queries.length} queries), RETRIEVAL.cases grid (current: alpha ${original.alpha}, ${original.queryProperties.join(', ')})`,
  );
  console.table(
    results.map((r) => ({
      alpha: r.alpha,
      queryProperties: r.queryProperties.join(', '),
      'MRR@10': r.mrr10,
      'R@1': r.recall1,
      'R@5': r.recall5,
      best: r.best ? '*' : '',
    })),
  );
  return results;
}
