/**
 * The sentiment benchmark's datasets and metrics (bench/sentiment.ts, scripts/train-sentiment.ts):
 * TweetEval sentiment (validation and test) and the Twitter US Airline set, read in place (each
 * folder's SOURCE.md), three-class metrics, and the search for the cut points between the classes.
 * Pure functions apart from the file reading, unit-tested in test/unit/sentiment.test.ts.
 */
import fs from 'node:fs';
import { datasetFile, parseCsv } from './datasets';

/** Class indexes: 0 negative, 1 neutral, 2 positive (TweetEval's own numbering). */
export type ClassIndex = 0 | 1 | 2;
export const CLASS_NAMES = ['negative', 'neutral', 'positive'] as const;

export interface LabelledText {
  text: string;
  label: ClassIndex;
}

const lines = (file: string) => fs.readFileSync(file, 'utf8').replace(/\n$/, '').split('\n');

/** A TweetEval sentiment split: `val_text.txt` and `val_labels.txt` (or test_), aligned by line. */
export function loadTweetEval(root: string, split: 'val' | 'test'): LabelledText[] {
  const texts = lines(datasetFile(root, 'tweeteval_sentiment', `${split}_text.txt`));
  const labels = lines(datasetFile(root, 'tweeteval_sentiment', `${split}_labels.txt`));
  if (texts.length !== labels.length)
    throw new Error(`tweeteval_sentiment/${split}: ${texts.length} texts but ${labels.length} labels`);
  return texts.map((text, i) => {
    const label = Number(labels[i]);
    if (label !== 0 && label !== 1 && label !== 2)
      throw new Error(`tweeteval_sentiment/${split}_labels.txt line ${i + 1}: ${JSON.stringify(labels[i])}`);
    return { text, label };
  });
}

export interface AirlineTweet extends LabelledText {
  tweetId: string;
  /** Annotator agreement, 0..1. */
  confidence: number;
}

/** Every row of `twitter_airline_sentiment/Tweets.csv`, in file order. */
export function loadAirline(root: string): AirlineTweet[] {
  const [header, ...rows] = parseCsv(
    fs.readFileSync(datasetFile(root, 'twitter_airline_sentiment', 'Tweets.csv'), 'utf8'),
  );
  const col = (name: string) => {
    const i = header.indexOf(name);
    if (i < 0) throw new Error(`twitter_airline_sentiment/Tweets.csv has no column ${name}`);
    return i;
  };
  const [id, sentiment, confidence, text] = [
    'tweet_id',
    'airline_sentiment',
    'airline_sentiment_confidence',
    'text',
  ].map(col);
  return rows.map((r, i) => {
    const label = CLASS_NAMES.indexOf(r[sentiment] as (typeof CLASS_NAMES)[number]);
    if (label < 0)
      throw new Error(`twitter_airline_sentiment/Tweets.csv row ${i + 2}: sentiment ${JSON.stringify(r[sentiment])}`);
    return { tweetId: r[id], text: r[text], label: label as ClassIndex, confidence: Number(r[confidence]) };
  });
}

/** Rows of the confusion matrix are the gold classes, columns the predicted ones. */
export function confusion(gold: readonly ClassIndex[], predicted: readonly ClassIndex[]): number[][] {
  const m = [0, 1, 2].map(() => [0, 0, 0]);
  gold.forEach((g, i) => (m[g][predicted[i]] += 1));
  return m;
}

export interface ClassMetrics {
  n: number;
  accuracy: number;
  /** Mean of the three classes' recalls: TweetEval's official metric. */
  macro_recall: number;
  macro_f1: number;
  recall: Record<(typeof CLASS_NAMES)[number], number>;
  /** Gold class by row, predicted class by column: negative, neutral, positive. */
  confusion: number[][];
}

export function classMetrics(gold: readonly ClassIndex[], predicted: readonly ClassIndex[]): ClassMetrics {
  const m = confusion(gold, predicted);
  const n = gold.length;
  const recall = m.map((row, c) => (row[c] === 0 ? 0 : row[c] / row.reduce((a, b) => a + b, 0)));
  const precision = [0, 1, 2].map((c) => {
    const col = m[0][c] + m[1][c] + m[2][c];
    return col === 0 ? 0 : m[c][c] / col;
  });
  const f1 = recall.map((r, c) => (r + precision[c] === 0 ? 0 : (2 * r * precision[c]) / (r + precision[c])));
  return {
    n,
    accuracy: n === 0 ? 0 : (m[0][0] + m[1][1] + m[2][2]) / n,
    macro_recall: (recall[0] + recall[1] + recall[2]) / 3,
    macro_f1: (f1[0] + f1[1] + f1[2]) / 3,
    recall: { negative: recall[0], neutral: recall[1], positive: recall[2] },
    confusion: m,
  };
}

/** The class of a raw value under cut points: below `negative` negative, above `positive` positive. */
export const classOf = (raw: number, cut: { negative: number; positive: number }): ClassIndex =>
  raw < cut.negative ? 0 : raw > cut.positive ? 2 : 1;

/**
 * The cut points that maximise macro-recall of `raw` against `gold`, among `steps + 1` candidate
 * values (quantiles of `raw`, rounded to 4 decimals). Ties go to the first pair found (lowest
 * negative cut, then lowest positive cut), so the search is deterministic.
 */
export function tuneCuts(
  raw: readonly number[],
  gold: readonly ClassIndex[],
  steps = 400,
): { negative: number; positive: number; macro_recall: number } {
  const sorted = [...raw].sort((a, b) => a - b);
  const candidates = [
    ...new Set(
      Array.from(
        { length: steps + 1 },
        (_, i) =>
          Math.round(sorted[Math.min(sorted.length - 1, Math.round((i / steps) * (sorted.length - 1)))] * 1e4) / 1e4,
      ),
    ),
  ].sort((a, b) => a - b);
  const perClass = [0, 1, 2].map((c) => raw.filter((_, i) => gold[i] === c).sort((a, b) => a - b));
  const total = perClass.map((v) => v.length);
  // Values of a class below t (strictly) and at most t, by binary search.
  const below = (v: number[], t: number) => {
    let lo = 0;
    let hi = v.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (v[mid] < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const atMost = (v: number[], t: number) => {
    let lo = 0;
    let hi = v.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (v[mid] <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const rate = (k: number, c: number) => (total[c] === 0 ? 0 : k / total[c]);
  let best = { negative: candidates[0], positive: candidates[0], macro_recall: -1 };
  for (let a = 0; a < candidates.length; a++) {
    const tn = candidates[a];
    const negRecall = rate(below(perClass[0], tn), 0);
    const neutralBelow = below(perClass[1], tn);
    for (let b = a; b < candidates.length; b++) {
      const tp = candidates[b];
      const m =
        (negRecall + rate(atMost(perClass[1], tp) - neutralBelow, 1) + rate(total[2] - atMost(perClass[2], tp), 2)) / 3;
      if (m > best.macro_recall + 1e-12) best = { negative: tn, positive: tp, macro_recall: m };
    }
  }
  return best;
}
