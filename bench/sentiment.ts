/**
 * `npm run bench:sentiment [-- options]`: the local sentiment engine against the real stack
 * (scripts/stack/bench.ts starts it; this script starts a worker and the API in-process).
 *
 * - Quality, with the shipped model (domain/sentiment/model.json) and the engine's own code
 *   (readMessages, the same cleaning, segments, embedding, classifier and lexicon as the API),
 *   every message with the language the API would detect:
 *   - TweetEval sentiment test (12,284 tweets): macro-recall over negative/neutral/positive, the
 *     official metric; validation (2,000) too, on which the lexicon weight and cut points were tuned;
 *   - Twitter US Airline (all 14,640 rows): three-class accuracy; also macro-F1, the rows with
 *     annotator confidence 1.0, and the set deduplicated on tweet_id.
 *   A score counts as negative below -20, positive above 20 (levels.ts).
 *   Ablations show what each part brings: the E5 classifier alone, the English encoder's alone
 *   (E5's for messages not read in English) and the lexicon alone, each with its own cut points
 *   tuned on validation here; and the shipped model as an API without the English encoder
 *   answers (E5 and lexicon, the model's own cut points).
 * - A diagnostic: a probe of the same kind trained on the airline tweets themselves (five folds),
 *   to read the engine's airline number against what the embedding allows in-domain. Never shipped.
 * - Latency of POST /v1/sentiment through the API, one request at a time (a fixed selection of
 *   tweets from both sets), with the embedding's share from Server-Timing; the API's scores are
 *   checked against the engine's.
 *
 * Writes bench/results/sentiment.json. docs/benchmarks.md describes the protocol and the numbers.
 */
import os from 'node:os';
import { Command } from 'commander';
import { loadServicesConfig } from '../domain/config';
import { createEmbedder, createEnglishEncoder } from '../domain/models/embeddings';
import { predict, train, TRAIN_DEFAULTS } from '../domain/sentiment/classifier';
import {
  englishEncoderFor,
  localModel,
  type Mix,
  rawValue,
  scoreReadings,
  type SegmentReading,
} from '../domain/sentiment/local-engine';
import { labelFor, polarityOf } from '../domain/sentiment/levels';
import { standardization } from '../domain/tags/model';
import { SENTIMENT_LABELS } from '../domain/contracts/sentiment';
import { parseServerTiming } from './lib/server-timing';
import { summarize, type Sample } from './lib/load';
import { DEFAULT_DATASETS, positiveInt, resolveDatasets, round, runInfo, writeResult } from './lib/run-info';
import {
  classMetrics,
  classOf,
  loadAirline,
  loadTweetEval,
  tuneCuts,
  type AirlineTweet,
  type ClassIndex,
  type ClassMetrics,
  type LabelledText,
} from './lib/sentiment';
import { freshTenant, startApp, tenantClient } from './lib/stack-app';
import { type Encoders, readAll } from './lib/sentiment-readings';

interface Options {
  datasets: string;
  latency: number;
  ceiling: boolean;
  out: string;
}

/**
 * A diagnostic, never shipped: what a probe of the same kind reaches when trained on the airline
 * tweets themselves, so the engine's number can be read against what the embedding allows. The
 * set deduplicated on tweet_id, five folds by tweet_id modulo 5 (SOURCE.md's split); each fold is
 * predicted by a classifier trained on the four others (argmax, no cut points). Two probes: on the
 * embeddings as the engine reads them, and on the same embeddings standardised per dimension (on
 * the four training folds, scaled to unit length overall), which the same number of gradient steps
 * fits far better: the first tells what the engine's kind of training reaches, the second comes
 * closer to what a linear reading of the embedding allows.
 */
function inDomainCeiling(items: readonly AirlineTweet[], readings: readonly SegmentReading[][]) {
  const seen = new Set<string>();
  const rows = items
    .map((t, i) => ({ t, vector: readings[i][0]?.vector }))
    .filter(({ t, vector }) => vector && !seen.has(t.tweetId) && seen.add(t.tweetId));
  const fold = (id: string) => Number(id.slice(-1)) % 5;
  const probe = (standardised: boolean) => {
    const gold: ClassIndex[] = [];
    const predicted: ClassIndex[] = [];
    for (let k = 0; k < 5; k++) {
      const trainRows = rows.filter((r) => fold(r.t.tweetId) !== k);
      const view = standardised ? standardiser(trainRows.map((r) => r.vector!)) : (v: readonly number[]) => v;
      const model = train(
        trainRows.map((r) => view(r.vector!)),
        trainRows.map((r) => r.t.label),
        { ...TRAIN_DEFAULTS, iterations: CEILING_ITERATIONS },
      );
      for (const r of rows.filter((x) => fold(x.t.tweetId) === k)) {
        const p = predict(model, view(r.vector!));
        gold.push(r.t.label);
        predicted.push(p.indexOf(Math.max(...p)) as ClassIndex);
      }
      console.log(`[sentiment] in-domain probe${standardised ? ' (standardised)' : ''}: fold ${k + 1}/5 done`);
    }
    const m = classMetrics(gold, predicted);
    return { accuracy: round(m.accuracy), macro_f1: round(m.macro_f1) };
  };
  return { rows: rows.length, folds: 5, iterations: CEILING_ITERATIONS, ...probe(false), standardised: probe(true) };
}

/** Per-dimension standardisation fitted on `vectors`, scaled so that a vector's length is about 1. */
function standardiser(vectors: readonly (readonly number[])[]): (v: readonly number[]) => number[] {
  const { mean, scale } = standardization(vectors, [{ size: vectors[0].length, scale: 1 }]);
  return (v) => v.map((x, i) => (x - mean[i]) * scale[i]);
}

const CEILING_ITERATIONS = 1000;

const CLASS_INDEX = { negative: 0, neutral: 1, positive: 2 } as const;

const rounded = (m: ClassMetrics) => ({
  n: m.n,
  accuracy: round(m.accuracy),
  macro_recall: round(m.macro_recall),
  macro_f1: round(m.macro_f1),
  recall: { negative: round(m.recall.negative), neutral: round(m.recall.neutral), positive: round(m.recall.positive) },
  confusion: m.confusion,
});

/** Messages per level, in the order of the levels. */
function levelCounts(scores: readonly number[]) {
  const counts = Object.fromEntries(SENTIMENT_LABELS.map((l) => [l, 0])) as Record<string, number>;
  for (const s of scores) counts[labelFor(s)] += 1;
  return counts;
}

async function main(): Promise<void> {
  const o = new Command('bench:sentiment')
    .description(
      'Sentiment benchmark of the local engine: TweetEval sentiment (test, validation), Twitter US Airline, and POST /v1/sentiment latency.',
    )
    .option(
      '--datasets <dir>',
      'folder holding tweeteval_sentiment/ and twitter_airline_sentiment/ (relative to the repository root)',
      DEFAULT_DATASETS,
    )
    .option('--latency <n>', 'requests for the latency measurement', positiveInt, 300)
    .option('--no-ceiling', 'skip the in-domain probe on the airline set (a diagnostic, a few minutes)')
    .option('--out <file>', 'result file (relative to the repository root)', 'bench/results/sentiment.json')
    .parse()
    .opts<Options>();
  const info = runInfo();
  const root = resolveDatasets(o.datasets);
  const model = localModel();
  const config = loadServicesConfig();
  const encoders: Encoders = { embedder: createEmbedder(config.embeddings), english: createEnglishEncoder(config) };
  if (model.english && !englishEncoderFor(encoders.english, model))
    throw new Error(
      `the model reads English messages with ${model.english.encoder}; configure it (TAG_EMBEDDINGS_URL, TAG_EMBEDDINGS_MODEL) to measure what the API answers`,
    );

  const sets = { validation: loadTweetEval(root, 'val'), test: loadTweetEval(root, 'test') };
  const airline = loadAirline(root);
  const started = Date.now();
  const readings: Record<'validation' | 'test' | 'airline', SegmentReading[][]> = {
    validation: await readAll(encoders, model, sets.validation, '[sentiment] TweetEval validation'),
    test: await readAll(encoders, model, sets.test, '[sentiment] TweetEval test'),
    airline: await readAll(encoders, model, airline, '[sentiment] airline', { keepVectors: o.ceiling }),
  };
  const qualitySeconds = (Date.now() - started) / 1000;

  const gold = (items: readonly LabelledText[]) => items.map((t) => t.label);
  const scores = (r: SegmentReading[][]) => r.map((m) => scoreReadings(m, model).sentiment);
  const classes = (s: readonly number[]) => s.map((x) => CLASS_INDEX[polarityOf(x)] as ClassIndex);
  const shipped = {
    validation: scores(readings.validation),
    test: scores(readings.test),
    airline: scores(readings.airline),
  };

  // Ablations: one part alone, with cut points tuned on validation for it.
  const ablation = (mix: Omit<Mix, 'cuts'>) => {
    const raw = (r: SegmentReading[][]) => r.map((m) => rawValue(m, mix));
    const cuts = tuneCuts(raw(readings.validation), gold(sets.validation));
    const on = (r: SegmentReading[][], items: readonly LabelledText[]) =>
      classMetrics(
        gold(items),
        raw(r).map((x) => classOf(x, cuts)),
      );
    return {
      cuts: { negative: cuts.negative, positive: cuts.positive },
      validation_macro_recall: round(cuts.macro_recall),
      tweeteval_test_macro_recall: round(on(readings.test, sets.test).macro_recall),
      airline_accuracy: round(on(readings.airline, airline).accuracy),
    };
  };
  // The shipped model as an API without the English encoder answers: E5 and lexicon, the model's cut points.
  const withoutEnglish = (r: SegmentReading[][]) =>
    classes(
      r.map(
        (m) =>
          scoreReadings(
            m.map(({ english, ...rest }) => rest),
            model,
          ).sentiment,
      ),
    );
  const withoutEncoder = {
    tweeteval_test_macro_recall: round(classMetrics(gold(sets.test), withoutEnglish(readings.test)).macro_recall),
    airline_accuracy: round(classMetrics(gold(airline), withoutEnglish(readings.airline)).accuracy),
  };

  const airlineClasses = classes(shipped.airline);
  const confident = airline.map((t, i) => ({ t, i })).filter(({ t }) => t.confidence === 1);
  const seen = new Set<string>();
  const unique = airline.map((t, i) => ({ t, i })).filter(({ t }) => !seen.has(t.tweetId) && seen.add(t.tweetId));
  const majority = airline.filter((t) => t.label === 0).length / airline.length;

  // Latency through the API: a fixed selection, every k-th tweet of the test and airline sets.
  const app = await startApp();
  let latency;
  try {
    const client = await tenantClient(app, freshTenant('bench-sentiment'), ['sentiment']);
    const half = Math.ceil(o.latency / 2);
    const pick = <T>(items: readonly T[], n: number) =>
      Array.from({ length: n }, (_, i) => ({
        item: items[Math.floor((i * items.length) / n)],
        index: Math.floor((i * items.length) / n),
      }));
    const messages = [
      ...pick(sets.test, half).map(({ item, index }) => ({ text: item.text, expected: shipped.test[index] })),
      ...pick(airline, o.latency - half).map(({ item, index }) => ({
        text: item.text,
        expected: shipped.airline[index],
      })),
    ];
    for (const m of messages.slice(0, 10)) await client.raw('POST', '/v1/sentiment', { message: m.text }); // warm-up
    const loadAtStart = os.loadavg()[0];
    const samples: Sample[] = [];
    const embedMs: number[] = [];
    let matches = 0;
    for (const m of messages) {
      const t0 = performance.now();
      const res = await client.raw('POST', '/v1/sentiment', { message: m.text });
      samples.push({ ms: performance.now() - t0, status: res.status });
      const embed = parseServerTiming(res.headers.get('server-timing')).find((e) => e.name === 'embed')?.dur;
      if (embed !== undefined) embedMs.push(embed);
      if (res.status === 200 && res.body.sentiment === m.expected && res.body.label === labelFor(m.expected))
        matches += 1;
    }
    const summary = summarize(samples);
    latency = {
      requests: summary.requests,
      concurrency: 1,
      // How busy the machine was when the measurement began: other stacks compete for the same cores.
      loadAverage1mAtStart: round(loadAtStart, 2),
      ok: summary.ok,
      errors: summary.errors,
      p50_ms: summary.p50_ms,
      p95_ms: summary.p95_ms,
      max_ms: summary.max_ms,
      embed_mean_ms: embedMs.length ? round(embedMs.reduce((a, b) => a + b, 0) / embedMs.length, 1) : null,
      answers_equal_to_engine: round(matches / messages.length),
    };
  } finally {
    await app.close();
  }

  const test = rounded(classMetrics(gold(sets.test), classes(shipped.test)));
  const validation = rounded(classMetrics(gold(sets.validation), classes(shipped.validation)));
  const airlineAll = rounded(classMetrics(gold(airline), airlineClasses));
  writeResult(o.out, {
    ...info,
    engine: 'local',
    model: {
      embeddingModel: model.embeddingModel,
      lexiconWeight: model.lexiconWeight,
      cuts: model.cuts,
      english: model.english
        ? {
            encoder: model.english.encoder,
            englishWeight: model.english.englishWeight,
            lexiconWeight: model.english.lexiconWeight,
            cuts: model.english.cuts,
          }
        : null,
      training: model.training,
    },
    tweeteval_test: { ...test, levels: levelCounts(shipped.test) },
    tweeteval_validation: { ...validation, tuned_on: true },
    airline: {
      ...airlineAll,
      majority_class_accuracy: round(majority),
      confidence_1_accuracy: round(
        classMetrics(
          confident.map(({ t }) => t.label),
          confident.map(({ i }) => airlineClasses[i]),
        ).accuracy,
      ),
      confidence_1_rows: confident.length,
      deduplicated_accuracy: round(
        classMetrics(
          unique.map(({ t }) => t.label),
          unique.map(({ i }) => airlineClasses[i]),
        ).accuracy,
      ),
      deduplicated_rows: unique.length,
      levels: levelCounts(shipped.airline),
    },
    ablations: {
      embedding_only: ablation({ lexiconWeight: 0, englishWeight: 0 }),
      english_encoder_only: model.english ? ablation({ lexiconWeight: 0, englishWeight: 1 }) : null,
      lexicon_only: ablation({ lexiconWeight: 1, englishWeight: 0 }),
      without_english_encoder: model.english ? withoutEncoder : null,
    },
    airline_in_domain_probe: o.ceiling
      ? {
          ...inDomainCeiling(airline, readings.airline),
          note: 'diagnostic only: trained on the airline set itself, never shipped',
        }
      : null,
    latency,
    quality_seconds: round(qualitySeconds, 1),
  });
  console.log(
    `[sentiment] TweetEval test macro-recall ${test.macro_recall} (validation ${validation.macro_recall}); airline accuracy ${airlineAll.accuracy}; ` +
      `latency p50 ${latency.p50_ms} ms, p95 ${latency.p95_ms} ms`,
  );
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`[sentiment] ${err.stack ?? err}`);
    process.exit(1);
  },
);
