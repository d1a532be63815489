/**
 * `npm run sentiment:train [-- options]`: produces activities/sentiment/model.json, the local
 * sentiment engine's weights, against the real embedding server (scripts/stack/bench.ts starts a
 * stack for it).
 *
 * 1. Trains the three-class logistic regression on the E5 query embeddings of the examples
 *    written for this project (activities/sentiment/examples.ts), and only on them.
 * 2. Tunes, on TweetEval's validation split only, the lexicon's weight (a small grid) and the two
 *    cut points between the classes, for macro-recall (TweetEval's metric). The test split and
 *    the airline set are never read here; bench/sentiment.ts measures on them.
 *
 * Deterministic: the same examples, embeddings and validation set give the same file.
 */
import { createHash } from 'node:crypto';
import { Command } from 'commander';
import { loadServicesConfig } from '../activities/config';
import { createEmbedder, type Embedder } from '../activities/models/embeddings';
import { messageLanguage } from '../activities/sentiment/analyze';
import { CLASSES, train, TRAIN_DEFAULTS, type LinearModel } from '../activities/sentiment/classifier';
import { EXAMPLES } from '../activities/sentiment/examples';
import { cleanMessage, rawValue, readMessages, type SegmentReading, type SentimentModel } from '../activities/sentiment/local-engine';
import { chunks } from './lib/api-client';
import { progress } from './lib/progress';
import { DEFAULT_DATASETS, resolveDatasets, round } from './lib/run-info';
import { classMetrics, classOf, loadTweetEval, tuneCuts, type ClassIndex, type LabelledText } from './lib/sentiment';
import { writeResult } from './lib/run-info';

/** Lexicon weights tried on validation. */
export const LEXICON_WEIGHTS = [0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6];
const BATCH = 16;

/** Weights as stored: 6 significant digits (the file stays small; predictions move by far less than a cut point's width). */
const sig = (x: number) => Number(x.toPrecision(6));

export function exampleRows() {
  return EXAMPLES.flatMap((set) => CLASSES.flatMap((polarity, label) => set[polarity].map((text) => ({ text, label, language: set.language }))));
}

/** Segment readings of labelled texts under `model`, in batches, with the request language the API would pick. */
export async function readAll(embedder: Embedder, model: SentimentModel, items: readonly LabelledText[], label: string, o: { keepVectors?: boolean } = {}): Promise<SegmentReading[][]> {
  const bar = progress(label, items.length, { every: 1000 });
  const out: SegmentReading[][] = [];
  for (const batch of chunks(items, BATCH)) {
    out.push(...(await readMessages({ embedder }, batch.map((t) => ({ message: t.text, language: messageLanguage(undefined, t.text) })), model, o)));
    bar.tick(batch.length);
  }
  bar.stop();
  return out;
}

async function main(): Promise<void> {
  const o = new Command('sentiment:train')
    .description('Trains the local sentiment engine on the written examples and tunes its lexicon weight and cut points on TweetEval validation.')
    .option('--datasets <dir>', 'folder holding tweeteval_sentiment/ (relative to the repository root)', DEFAULT_DATASETS)
    .option('--out <file>', 'model file (relative to the repository root)', 'activities/sentiment/model.json')
    .parse()
    .opts<{ datasets: string; out: string }>();
  const config = loadServicesConfig();
  const embedder = createEmbedder(config.embeddings);

  const rows = exampleRows();
  const started = Date.now();
  const vectors: number[][] = [];
  for (const batch of chunks(rows, BATCH)) vectors.push(...(await embedder.embed({ texts: batch.map((r) => cleanMessage(r.text)), inputType: 'query' })));
  console.log(`[train] ${rows.length} examples embedded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const trained: LinearModel = train(vectors, rows.map((r) => r.label), TRAIN_DEFAULTS);
  const linear = { weights: trained.weights.map((w) => w.map(sig)), bias: trained.bias.map(sig) };

  const validation = loadTweetEval(resolveDatasets(o.datasets), 'val');
  const gold = validation.map((v) => v.label);
  const provisional: SentimentModel = { format: 1, embeddingModel: config.embeddings.model, ...linear, lexiconWeight: 0, cuts: { negative: 0, positive: 0 }, training: {}, tuning: {} };
  const readings = await readAll(embedder, provisional, validation, '[train] TweetEval validation');
  const grid = LEXICON_WEIGHTS.map((w) => ({ lexiconWeight: w, ...tuneCuts(readings.map((r) => rawValue(r, w)), gold) }));
  for (const g of grid) console.log(`[train] lexicon weight ${g.lexiconWeight.toFixed(2)}: validation macro-recall ${g.macro_recall.toFixed(4)} (cuts ${g.negative}, ${g.positive})`);
  // The best; a tie goes to the smaller lexicon weight (the grid's order).
  const best = grid.reduce((a, b) => (b.macro_recall > a.macro_recall + 1e-12 ? b : a));
  const cuts = { negative: best.negative, positive: best.positive };
  const predicted = readings.map((r) => classOf(rawValue(r, best.lexiconWeight), cuts) as ClassIndex);
  const m = classMetrics(gold, predicted);

  const perLanguage = Object.fromEntries(EXAMPLES.map((s) => [s.language, { negative: s.negative.length, neutral: s.neutral.length, positive: s.positive.length }]));
  const model: SentimentModel = {
    format: 1,
    embeddingModel: config.embeddings.model,
    ...linear,
    lexiconWeight: best.lexiconWeight,
    cuts,
    training: {
      source: 'activities/sentiment/examples.ts (written for this project)',
      examples: rows.length,
      examplesSha256: createHash('sha256').update(JSON.stringify(rows)).digest('hex'),
      perLanguage,
      ...TRAIN_DEFAULTS,
    },
    tuning: {
      set: 'TweetEval sentiment, validation split',
      messages: validation.length,
      objective: 'macro-recall',
      lexiconWeights: LEXICON_WEIGHTS,
      macro_recall: round(m.macro_recall),
      accuracy: round(m.accuracy),
      embedding_only_macro_recall: round(grid[0].macro_recall),
    },
  };
  writeResult(o.out, model);
  console.log(`[train] lexicon weight ${best.lexiconWeight}, cuts ${cuts.negative} / ${cuts.positive}, validation macro-recall ${m.macro_recall.toFixed(4)}`);
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
