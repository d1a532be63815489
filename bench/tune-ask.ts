/**
 * `npm run bench:ask -- --tune`: calibrates ask's source choice on tuning data only, so the
 * benchmark's scores stay held out. Positives are StackFAQ group A paraphrases (ask should answer,
 * and its first source should be the gold thread); negatives are BANKING77 *train* questions asked
 * against the same StackFAQ knowledge base (ask should abstain). StackFAQ group B and BANKING77
 * test are never read here.
 *
 * It calls retrieveAskSources directly, in this process, on the articles the benchmark uploaded
 * through the API, once per article `alpha` (query embeddings are computed once and reused). The
 * support of a candidate is similarity + lexicalWeight × coverage (domain/ask/compose.ts), and
 * coverage does not depend on the knobs, so the grid over minSupport × lexicalWeight is scored on
 * the stored candidates; the chosen point is then checked with the real chooseSources and
 * composeLocal.
 *
 * Rule. Both rates of the goals get a margin: a point must answer ≥ 0.96 of group A (goal 0.95
 * answered on group B) and abstain on ≥ 0.93 of the negatives (goal 0.90 on BANKING77 test).
 * Among those, the one with the best group A first-link correctness (the goal that is hardest to
 * reach) wins; ties go to more abstentions, then to the alpha nearest the current one, then to the
 * lower threshold. Only alphas ≥ 0.5 are eligible: the low ones are scored, for the record, but
 * they rank candidates mostly by shared words, and a question sharing no word with the right
 * article (another language, another wording) would then lose it from the candidates. From 0.5
 * on, a passage that only shares words never outranks the passage most similar in meaning.
 */
import { loadServicesConfig } from '../domain/config';
import { ANSWER_THRESHOLD, chooseSources, coverage, SOURCE_RANKING } from '../domain/ask/compose';
import { composeLocal } from '../domain/ask/local-engine';
import { createEmbedder, Embedder } from '../domain/models/embeddings';
import { ASK_RETRIEVAL, retrieveAskSources, type Source } from '../domain/weaviate/ask-retrieve';
import { connectWeaviate } from '../domain/weaviate/client';
import { RETRIEVAL, searchArticles } from '../domain/weaviate/retrieve';
import { mapPool } from './lib/api-client';
import type { StackFaqQuery } from './lib/datasets';
import { percentile } from './lib/load';
import { progress } from './lib/progress';
import { round, writeResult } from './lib/run-info';

/** Article alphas tried (0 = BM25 only, 1 = vector only): they decide which passages are candidates. */
const ALPHAS = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.75, 0.9, 1];
const LEXICAL_WEIGHTS = [0, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3];
/** minSupport from 0.70 to 1.00 in steps of 0.0025. */
const MIN_SUPPORTS = Array.from({ length: 121 }, (_, i) => round(0.7 + i * 0.0025, 4));
export const MIN_ANSWERED_A = 0.96;
export const MIN_NO_ANSWER_TRAIN = 0.93;
const MIN_ALPHA = 0.5;
/** The ranking knobs (SOURCE_RANKING), tried at the chosen threshold. */
const TITLE_WEIGHTS = [0, 0.25, 0.5, 0.75, 1, 1.5, 2];
const RANK_WEIGHTS = [0, 0.005, 0.01, 0.02, 0.03, 0.05];

/** An embedder that remembers query vectors, so every configuration sees the same vectors. */
function memoized(embedder: Embedder): Embedder {
  const cache = new Map<string, number[]>();
  return {
    model: embedder.model,
    async embed(args) {
      const key = (t: string) => `${args.inputType}\u0000${t}`;
      const missing = [...new Set(args.texts.filter((t) => !cache.has(key(t))))];
      if (missing.length) {
        const vectors = await embedder.embed({ ...args, texts: missing });
        missing.forEach((t, i) => cache.set(key(t), vectors[i]));
      }
      return args.texts.map((t) => cache.get(key(t))!);
    },
  };
}

/** A candidate reduced to what the grid needs. */
interface Scored {
  id: string;
  url: string;
  similarity: number;
  coverage: number;
}

interface Asked {
  text: string;
  /** The gold url for a positive; undefined for a negative. */
  gold?: string;
  candidates: Source[];
  scored: Scored[];
}

export interface TunePoint {
  alpha: number;
  minSupport: number;
  lexicalWeight: number;
  groupA_answered: number;
  groupA_first_link_correct: number;
  banking77_train_no_answer: number;
}

/** The best candidate by support, ties by id (as chooseSources sorts). */
function best(scored: Scored[], lexicalWeight: number): { s: Scored; support: number } | undefined {
  let top: { s: Scored; support: number } | undefined;
  for (const s of scored) {
    const support = s.similarity + lexicalWeight * s.coverage;
    if (!top || support > top.support || (support === top.support && s.id.localeCompare(top.s.id) < 0))
      top = { s, support };
  }
  return top;
}

function score(
  positives: Asked[],
  negatives: Asked[],
  alpha: number,
  lexicalWeight: number,
  minSupport: number,
): TunePoint {
  let answered = 0;
  let correct = 0;
  for (const q of positives) {
    const b = best(q.scored, lexicalWeight);
    if (b && b.support >= minSupport) {
      answered += 1;
      if (b.s.url === q.gold) correct += 1;
    }
  }
  let abstained = 0;
  for (const q of negatives) {
    const b = best(q.scored, lexicalWeight);
    if (!b || b.support < minSupport) abstained += 1;
  }
  return {
    alpha,
    minSupport,
    lexicalWeight,
    groupA_answered: round(answered / positives.length),
    groupA_first_link_correct: round(correct / positives.length),
    banking77_train_no_answer: round(abstained / negatives.length),
  };
}

type Ranking = typeof SOURCE_RANKING;
const BY_SUPPORT: Ranking = { titleWeight: 0, retrievalRankWeight: 0 };

/** The same point scored with the code the API runs: chooseSources, then composeLocal. */
function scoreWithComposer(positives: Asked[], negatives: Asked[], p: TunePoint, ranking: Ranking) {
  const t = { ...ANSWER_THRESHOLD, minSupport: p.minSupport, lexicalWeight: p.lexicalWeight };
  const answer = (q: Asked) =>
    composeLocal({ question: q.text, sources: chooseSources(q.text, q.candidates, t, ranking), language: 'en' });
  let answered = 0;
  let correct = 0;
  for (const q of positives) {
    const a = answer(q);
    if (a.responseType !== 'no-answer') answered += 1;
    if (a.used[0]?.url === q.gold) correct += 1;
  }
  const abstained = negatives.filter((q) => answer(q).responseType === 'no-answer').length;
  return {
    groupA_answered: round(answered / positives.length),
    groupA_first_link_correct: round(correct / positives.length),
    banking77_train_no_answer: round(abstained / negatives.length),
  };
}

/**
 * Second stage: the ranking of the relevant sources at the chosen threshold (which answers the
 * same questions whatever the ranking). The best group A first link wins; ties go to the smaller
 * weights (the grid's order).
 */
function tuneRanking(positives: Asked[], p: TunePoint) {
  const t = { ...ANSWER_THRESHOLD, minSupport: p.minSupport, lexicalWeight: p.lexicalWeight };
  const grid = TITLE_WEIGHTS.flatMap((titleWeight) =>
    RANK_WEIGHTS.map((retrievalRankWeight) => {
      const ranking = { titleWeight, retrievalRankWeight };
      const correct = positives.filter(
        (q) => chooseSources(q.text, q.candidates, t, ranking)[0]?.url === q.gold,
      ).length;
      return { ...ranking, groupA_first_link_correct: round(correct / positives.length) };
    }),
  );
  const chosen = grid.reduce((a, b) => (b.groupA_first_link_correct > a.groupA_first_link_correct ? b : a));
  return { grid, chosen };
}

const quantiles = (values: number[]) => ({
  p05: round(percentile(values, 0.05)),
  p25: round(percentile(values, 0.25)),
  p50: round(percentile(values, 0.5)),
  p75: round(percentile(values, 0.75)),
  p95: round(percentile(values, 0.95)),
});

export async function tuneAsk(o: {
  tenant: string;
  positives: StackFaqQuery[];
  goldUrl: (threadId: string) => string;
  negatives: string[];
  concurrency: number;
}) {
  if (o.positives.some((q) => q.group !== 'A')) throw new Error('tuning uses StackFAQ group A queries only');
  const config = loadServicesConfig();
  const deps = {
    weaviate: () => connectWeaviate(config.weaviate),
    embedder: memoized(createEmbedder(config.embeddings)),
  };
  const originalAlpha = ASK_RETRIEVAL.articles.alpha;
  const current = {
    alpha: originalAlpha,
    minSupport: ANSWER_THRESHOLD.minSupport,
    lexicalWeight: ANSWER_THRESHOLD.lexicalWeight,
  };
  const now = Date.now();

  const retrieve = async (alpha: number) => {
    ASK_RETRIEVAL.articles.alpha = alpha;
    const all = [
      ...o.positives.map((q) => ({ text: q.text.trim(), gold: o.goldUrl(q.thread_id) })),
      ...o.negatives.map((text) => ({ text: text.trim(), gold: undefined })),
    ];
    const bar = progress(`[tune] retrieval, article alpha ${alpha}`, all.length, { every: 500 });
    const asked = await mapPool(all, o.concurrency, async (q): Promise<Asked> => {
      const candidates = q.text
        ? await retrieveAskSources(deps, { tenant: o.tenant, text: q.text, productIds: [], includeCases: false, now })
        : [];
      bar.tick();
      return {
        ...q,
        candidates,
        scored: candidates.map((s) => ({
          id: s.id,
          url: s.url,
          similarity: s.similarity,
          coverage: coverage(q.text, s),
        })),
      };
    });
    bar.stop();
    return {
      positives: asked.filter((q) => q.gold !== undefined),
      negatives: asked.filter((q) => q.gold === undefined),
    };
  };

  const points: TunePoint[] = [];
  const byAlpha = new Map<number, Awaited<ReturnType<typeof retrieve>>>();
  const started = Date.now();
  try {
    for (const alpha of [...new Set([originalAlpha, ...ALPHAS])]) {
      const sets = await retrieve(alpha);
      byAlpha.set(alpha, sets);
      for (const lexicalWeight of LEXICAL_WEIGHTS)
        for (const minSupport of MIN_SUPPORTS)
          points.push(score(sets.positives, sets.negatives, alpha, lexicalWeight, minSupport));
    }
  } finally {
    ASK_RETRIEVAL.articles.alpha = originalAlpha;
  }
  const retrievalSeconds = (Date.now() - started) / 1000;

  const meetsMargins = (p: TunePoint) =>
    p.groupA_answered >= MIN_ANSWERED_A && p.banking77_train_no_answer >= MIN_NO_ANSWER_TRAIN;
  const better = (a: TunePoint, b: TunePoint) => {
    if (b.groupA_first_link_correct !== a.groupA_first_link_correct)
      return b.groupA_first_link_correct > a.groupA_first_link_correct ? b : a;
    if (b.banking77_train_no_answer !== a.banking77_train_no_answer)
      return b.banking77_train_no_answer > a.banking77_train_no_answer ? b : a;
    const da = Math.abs(a.alpha - current.alpha);
    const db = Math.abs(b.alpha - current.alpha);
    if (da !== db) return db < da ? b : a;
    return b.minSupport < a.minSupport ? b : a;
  };
  const eligible = points.filter((p) => meetsMargins(p) && p.alpha >= MIN_ALPHA);
  if (eligible.length === 0)
    throw new Error(
      `no point with alpha ≥ ${MIN_ALPHA} answers ≥ ${MIN_ANSWERED_A} of group A and abstains on ≥ ${MIN_NO_ANSWER_TRAIN} of the negatives`,
    );
  const chosen = eligible.reduce(better);
  // The rule's best point at each alpha (the low ones included, though not eligible).
  const perAlpha = [...new Set(points.map((p) => p.alpha))].map((alpha) => {
    const rows = points.filter((p) => p.alpha === alpha && meetsMargins(p));
    return { alpha, eligible: alpha >= MIN_ALPHA, best: rows.length ? rows.reduce(better) : null };
  });
  const feasible = points.filter((p) => p.groupA_answered >= MIN_ANSWERED_A);
  // Every point, for analysis; *.tmp.json is not committed.
  writeResult('bench/results/tune-ask-points.tmp.json', points);

  // Checks: the chosen point and the current values, scored again by the code the API runs.
  const sets = byAlpha.get(chosen.alpha)!;
  const check = scoreWithComposer(sets.positives, sets.negatives, chosen, BY_SUPPORT);
  const agrees =
    check.groupA_answered === chosen.groupA_answered &&
    check.groupA_first_link_correct === chosen.groupA_first_link_correct &&
    check.banking77_train_no_answer === chosen.banking77_train_no_answer;
  if (!agrees)
    console.warn(
      `[tune] the grid's score of the chosen point differs from chooseSources + composeLocal: ${JSON.stringify({ chosen, check })}`,
    );
  const currentSets = byAlpha.get(current.alpha)!;
  const currentPoint = score(
    currentSets.positives,
    currentSets.negatives,
    current.alpha,
    current.lexicalWeight,
    current.minSupport,
  );

  // Per alpha and lexical weight: the point with the highest threshold that still answers ≥ 0.96 of group A.
  const frontier = [...byAlpha.keys()].flatMap((alpha) =>
    LEXICAL_WEIGHTS.map((lexicalWeight) => {
      const rows = feasible.filter((p) => p.alpha === alpha && p.lexicalWeight === lexicalWeight);
      return rows.length ? rows.reduce((a, b) => (b.minSupport > a.minSupport ? b : a)) : undefined;
    }).filter((p): p is TunePoint => p !== undefined),
  );
  // The trade-off around the chosen point, at its alpha and lexical weight.
  const sweep = points.filter(
    (p) =>
      p.alpha === chosen.alpha &&
      p.lexicalWeight === chosen.lexicalWeight &&
      Math.abs(p.minSupport - chosen.minSupport) <= 0.0201,
  );
  // The chosen threshold and weight at every alpha: how much the article alpha matters.
  const alphas = points.filter((p) => p.lexicalWeight === chosen.lexicalWeight && p.minSupport === chosen.minSupport);

  // Diagnostic, not a knob: the first link if the answer's first source were article search's top
  // hit (hybrid relative-score fusion, RETRIEVAL.articles) instead of the most similar candidate,
  // answered or not by the same chosen threshold.
  const answeredAtChosen = new Set(
    sets.positives
      .filter((q) => (best(q.scored, chosen.lexicalWeight)?.support ?? 0) >= chosen.minSupport)
      .map((q) => q.text),
  );
  let hybridTop = 0;
  let hybridTopAnswered = 0;
  await mapPool(sets.positives, o.concurrency, async (q) => {
    const [top] = q.text ? await searchArticles(deps, { tenant: o.tenant, text: q.text, offset: 0, limit: 1 }) : [];
    if (top && top.url === q.gold) {
      hybridTop += 1;
      if (answeredAtChosen.has(q.text)) hybridTopAnswered += 1;
    }
  });
  const mostSimilarTop = sets.positives.filter((q) => best(q.scored, chosen.lexicalWeight)?.s.url === q.gold).length;
  const diagnostic = {
    what: 'group A: share whose top source is the gold thread, by the most similar candidate (ask today) and by article search top hit (hybrid fusion, RETRIEVAL.articles); "answered" applies the chosen threshold',
    article_search: { alpha: RETRIEVAL.articles.alpha, queryProperties: RETRIEVAL.articles.queryProperties },
    most_similar_top1: round(mostSimilarTop / sets.positives.length),
    hybrid_top1: round(hybridTop / sets.positives.length),
    most_similar_top1_answered: chosen.groupA_first_link_correct,
    hybrid_top1_answered: round(hybridTopAnswered / sets.positives.length),
  };

  // How far apart the two sets are: the best candidate's support (and similarity alone), at the chosen alpha and weight.
  const bestOf = (qs: Asked[], lexicalWeight: number) =>
    quantiles(qs.map((q) => best(q.scored, lexicalWeight)?.support ?? 0));
  const distributions = {
    groupA_best_support: bestOf(sets.positives, chosen.lexicalWeight),
    banking77_train_best_support: bestOf(sets.negatives, chosen.lexicalWeight),
    groupA_best_similarity: bestOf(sets.positives, 0),
    banking77_train_best_similarity: bestOf(sets.negatives, 0),
  };

  console.log(
    `\nStackFAQ group A (${o.positives.length} positives), BANKING77 train sample (${o.negatives.length} negatives)`,
  );
  console.log(`current: ${JSON.stringify(currentPoint)}`);
  console.log(
    `chosen (alpha ≥ ${MIN_ALPHA}, answered A ≥ ${MIN_ANSWERED_A}, BANKING77 train no-answer ≥ ${MIN_NO_ANSWER_TRAIN}, best first link A): ${JSON.stringify(chosen)}`,
  );
  console.table(
    perAlpha.map((r) => ({
      alpha: r.alpha,
      eligible: r.eligible,
      lexicalWeight: r.best?.lexicalWeight,
      minSupport: r.best?.minSupport,
      'answered A': r.best?.groupA_answered,
      'first link A': r.best?.groupA_first_link_correct,
      'B77 train no-answer': r.best?.banking77_train_no_answer,
    })),
  );
  console.table(
    frontier.map((p) => ({
      alpha: p.alpha,
      lexicalWeight: p.lexicalWeight,
      minSupport: p.minSupport,
      'answered A': p.groupA_answered,
      'first link A': p.groupA_first_link_correct,
      'B77 train no-answer': p.banking77_train_no_answer,
    })),
  );
  console.table(
    sweep.map((p) => ({
      minSupport: p.minSupport,
      'answered A': p.groupA_answered,
      'first link A': p.groupA_first_link_correct,
      'B77 train no-answer': p.banking77_train_no_answer,
    })),
  );
  console.log(distributions);
  console.table(
    alphas.map((p) => ({
      alpha: p.alpha,
      'answered A': p.groupA_answered,
      'first link A': p.groupA_first_link_correct,
      'B77 train no-answer': p.banking77_train_no_answer,
    })),
  );
  console.log(diagnostic);
  const ranking = tuneRanking(sets.positives, chosen);
  const { groupA_first_link_correct: _, ...chosenRanking } = ranking.chosen;
  const rankingCheck = scoreWithComposer(sets.positives, sets.negatives, chosen, chosenRanking);
  const currentRanking = ranking.grid.find(
    (g) => g.titleWeight === SOURCE_RANKING.titleWeight && g.retrievalRankWeight === SOURCE_RANKING.retrievalRankWeight,
  );
  console.log(
    `ranking at the chosen threshold: ${JSON.stringify(ranking.chosen)} (by support alone: ${chosen.groupA_first_link_correct}; current SOURCE_RANKING: ${currentRanking?.groupA_first_link_correct})`,
  );

  return {
    grid: {
      alphas: [...byAlpha.keys()],
      lexical_weights: LEXICAL_WEIGHTS,
      min_supports: { from: MIN_SUPPORTS[0], to: MIN_SUPPORTS[MIN_SUPPORTS.length - 1], step: 0.0025 },
      points: points.length,
    },
    rule: `article alpha ≥ ${MIN_ALPHA}, answered (group A) ≥ ${MIN_ANSWERED_A} and BANKING77 train no-answer ≥ ${MIN_NO_ANSWER_TRAIN}; then the best first-link correctness (group A); ties: more abstentions, the alpha nearest the current one, the lower minSupport`,
    best_per_alpha: perAlpha,
    current: currentPoint,
    chosen,
    chosen_checked_with_chooseSources_and_composeLocal: { ...check, agrees },
    ranking: {
      what: 'second stage, at the chosen threshold: SOURCE_RANKING weights (title similarity, 1/(1 + hybrid place)); group A first link correct; the threshold stage above ranks by support alone',
      title_weights: TITLE_WEIGHTS,
      retrieval_rank_weights: RANK_WEIGHTS,
      chosen: ranking.chosen,
      chosen_checked_with_chooseSources_and_composeLocal: rankingCheck,
      current: currentRanking,
      grid: ranking.grid,
    },
    distributions,
    alphas_at_chosen_threshold: alphas,
    first_source_diagnostic: diagnostic,
    frontier,
    sweep,
    retrieval_seconds: round(retrievalSeconds, 1),
  };
}
