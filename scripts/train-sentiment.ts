/**
 * `npm run sentiment:train [-- options]`: produces domain/sentiment/model.json, the local
 * sentiment engine's weights, against the real embedding server (scripts/stack/bench.ts starts a
 * stack for it).
 *
 * 1. Trains the three-class logistic regression on the E5 query embeddings of the examples
 *    written for this project (domain/sentiment/examples.ts), and only on them; and, when the
 *    English encoder is configured (TAG_EMBEDDINGS_URL, as the bench stack has it), a second one
 *    on the encoder's vectors of the same examples, for English messages.
 * 2. Tunes, on TweetEval's validation split only, for macro-recall (TweetEval's metric): the
 *    lexicon's weight (a small grid) and the two cut points between the classes of E5's reading
 *    alone, on every message; then the English encoder's weight, the lexicon's and the cut points of
 *    the English reading, on the messages the API would read in English. The test split and the
 *    airline set are never read here; bench/sentiment.ts measures on them.
 *
 * Deterministic: the same examples, embeddings and validation set give the same file.
 */
import { createHash } from 'node:crypto';
import { Command } from 'commander';
import { loadServicesConfig } from '../domain/config';
import { createEmbedder, createEnglishEncoder, type Embedder } from '../domain/models/embeddings';
import { CLASSES, train, TRAIN_DEFAULTS, type LinearModel } from '../domain/sentiment/classifier';
import { EXAMPLES } from '../domain/sentiment/examples';
import {
  cleanMessage,
  mixOf,
  rawValue,
  type SegmentReading,
  type SentimentModel,
} from '../domain/sentiment/local-engine';
import { chunks } from '../bench/lib/api-client';
import { DEFAULT_DATASETS, resolveDatasets, round } from '../bench/lib/run-info';
import { classMetrics, classOf, loadTweetEval, tuneCuts, type ClassIndex } from '../bench/lib/sentiment';
import { type Encoders, readAll } from '../bench/lib/sentiment-readings';
import { writeResult } from '../bench/lib/run-info';

/** Lexicon weights tried on validation. */
export const LEXICON_WEIGHTS = [0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6];
/** Weights of the English encoder's reading tried on validation (0: E5 alone). */
export const ENGLISH_WEIGHTS = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7];
const BATCH = 16;

/** Weights as stored: 6 significant digits (the file stays small; predictions move by far less than a cut point's width). */
const sig = (x: number) => Number(x.toPrecision(6));

export function exampleRows() {
  return EXAMPLES.flatMap((set) =>
    CLASSES.flatMap((polarity, label) => set[polarity].map((text) => ({ text, label, language: set.language }))),
  );
}

/** The examples' classifier over one encoder's vectors, weights rounded as stored. */
async function trainOn(embedder: Embedder, rows: ReturnType<typeof exampleRows>): Promise<LinearModel> {
  const started = Date.now();
  const vectors: number[][] = [];
  for (const batch of chunks(rows, BATCH))
    vectors.push(...(await embedder.embed({ texts: batch.map((r) => cleanMessage(r.text)), inputType: 'query' })));
  console.log(
    `[train] ${rows.length} examples embedded by ${embedder.model} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  const trained = train(
    vectors,
    rows.map((r) => r.label),
    TRAIN_DEFAULTS,
  );
  return { weights: trained.weights.map((w) => w.map(sig)), bias: trained.bias.map(sig) };
}

/** The best of a grid by macro-recall; a tie goes to the earlier entry (the smaller weights). */
const bestOf = <T extends { macro_recall: number }>(grid: readonly T[]): T =>
  grid.reduce((a, b) => (b.macro_recall > a.macro_recall + 1e-12 ? b : a));

/** Every mix of a grid on validation readings, each with its cut points tuned for macro-recall, and the best. */
function tuneMix(
  readings: readonly SegmentReading[][],
  gold: readonly ClassIndex[],
  englishWeights: readonly number[],
) {
  const grid = englishWeights.flatMap((englishWeight) =>
    LEXICON_WEIGHTS.map((lexiconWeight) => {
      const tuned = tuneCuts(
        readings.map((r) => rawValue(r, { lexiconWeight, englishWeight })),
        gold,
      );
      return {
        lexiconWeight,
        englishWeight,
        cuts: { negative: tuned.negative, positive: tuned.positive },
        macro_recall: tuned.macro_recall,
      };
    }),
  );
  for (const g of grid)
    console.log(
      `[train] English weight ${g.englishWeight.toFixed(2)}, lexicon weight ${g.lexiconWeight.toFixed(2)}: validation macro-recall ${g.macro_recall.toFixed(4)} (cuts ${g.cuts.negative}, ${g.cuts.positive})`,
    );
  return { best: bestOf(grid), grid };
}

async function main(): Promise<void> {
  const o = new Command('sentiment:train')
    .description(
      'Trains the local sentiment engine on the written examples and tunes its weights and cut points on TweetEval validation.',
    )
    .option(
      '--datasets <dir>',
      'folder holding tweeteval_sentiment/ (relative to the repository root)',
      DEFAULT_DATASETS,
    )
    .option('--out <file>', 'model file (relative to the repository root)', 'domain/sentiment/model.json')
    .parse()
    .opts<{ datasets: string; out: string }>();
  const config = loadServicesConfig();
  const encoders: Encoders = { embedder: createEmbedder(config.embeddings), english: createEnglishEncoder(config) };
  if (!encoders.english)
    console.log(
      '[train] no English encoder is configured (TAG_EMBEDDINGS_URL): the model reads every message with E5 alone',
    );

  const rows = exampleRows();
  const linear = await trainOn(encoders.embedder, rows);
  const englishLinear = encoders.english && (await trainOn(encoders.english, rows));

  const validation = loadTweetEval(resolveDatasets(o.datasets), 'val');
  const gold = validation.map((v) => v.label);
  const unset = { lexiconWeight: 0, cuts: { negative: 0, positive: 0 } };
  const provisional: SentimentModel = {
    format: 1,
    embeddingModel: config.embeddings.model,
    ...linear,
    ...unset,
    ...(englishLinear && {
      english: { encoder: encoders.english!.model, ...englishLinear, ...unset, englishWeight: 0 },
    }),
    training: {},
    tuning: {},
  };
  const readings = await readAll(encoders, provisional, validation, '[train] TweetEval validation');
  const base = tuneMix(readings, gold, [0]);
  // The English reading: tuned on the messages read in English, where the API would use it.
  const inEnglish = readings
    .map((r, i) => ({ r, gold: gold[i] }))
    .filter(({ r }) => r.length > 0 && r.every((x) => x.english !== undefined));
  const english =
    englishLinear &&
    tuneMix(
      inEnglish.map((x) => x.r),
      inEnglish.map((x) => x.gold),
      ENGLISH_WEIGHTS,
    );
  const useEnglish = english && english.best.englishWeight > 0;

  const perLanguage = Object.fromEntries(
    EXAMPLES.map((s) => [
      s.language,
      { negative: s.negative.length, neutral: s.neutral.length, positive: s.positive.length },
    ]),
  );
  const model: SentimentModel = {
    format: 1,
    embeddingModel: config.embeddings.model,
    ...linear,
    lexiconWeight: base.best.lexiconWeight,
    cuts: base.best.cuts,
    ...(useEnglish && {
      english: {
        encoder: encoders.english!.model,
        ...englishLinear,
        lexiconWeight: english.best.lexiconWeight,
        englishWeight: english.best.englishWeight,
        cuts: english.best.cuts,
      },
    }),
    training: {
      source: 'domain/sentiment/examples.ts (written for this project)',
      examples: rows.length,
      examplesSha256: createHash('sha256').update(JSON.stringify(rows)).digest('hex'),
      perLanguage,
      ...TRAIN_DEFAULTS,
    },
    tuning: {},
  };
  const predicted = readings.map((r) => {
    const mix = mixOf(r, model);
    return classOf(rawValue(r, mix), mix.cuts) as ClassIndex;
  });
  const m = classMetrics(gold, predicted);
  model.tuning = {
    set: 'TweetEval sentiment, validation split',
    messages: validation.length,
    objective: 'macro-recall',
    lexiconWeights: LEXICON_WEIGHTS,
    macro_recall: round(m.macro_recall),
    accuracy: round(m.accuracy),
    embedding_only_macro_recall: round(base.grid[0].macro_recall),
    e5_only_macro_recall: round(base.best.macro_recall),
    english: english
      ? {
          messages: inEnglish.length,
          englishWeights: ENGLISH_WEIGHTS,
          macro_recall: round(english.best.macro_recall),
          e5_only_macro_recall: round(bestOf(english.grid.filter((g) => g.englishWeight === 0)).macro_recall),
          used: !!useEnglish,
        }
      : null,
  };
  writeResult(o.out, model);
  console.log(
    `[train] E5 alone: lexicon weight ${base.best.lexiconWeight}, cuts ${base.best.cuts.negative} / ${base.best.cuts.positive}` +
      (useEnglish
        ? `; English: encoder weight ${english.best.englishWeight}, lexicon weight ${english.best.lexiconWeight}, cuts ${english.best.cuts.negative} / ${english.best.cuts.positive}`
        : '') +
      `; validation macro-recall ${m.macro_recall.toFixed(4)}`,
  );
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(`[train] ${err.stack ?? err}`);
      process.exit(1);
    },
  );
}
