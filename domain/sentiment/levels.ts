/**
 * The sentiment scale both engines answer on: a score from -100 (very negative) to 100 (very
 * positive), and its level among the five labels. The level boundaries are fixed points of the
 * scale, the same for both engines; each engine maps what it measures onto the scale (the model
 * is told the boundaries, the local engine maps its classifier's output with the cut points tuned
 * on TweetEval validation, see local-engine.ts).
 */
import { SENTIMENT_LABELS } from '../contracts/sentiment';

export type SentimentLabel = (typeof SENTIMENT_LABELS)[number];

/**
 * Scores below -60 are Negative, from -60 to below -20 Moderately Negative, from -20 to 20
 * Neutral, above 20 to 60 Moderately Positive, above 60 Positive.
 */
export const LEVEL_BOUNDS = { strong: 60, neutral: 20 } as const;

export function labelFor(score: number): SentimentLabel {
  const { strong, neutral } = LEVEL_BOUNDS;
  if (score < -strong) return 'Negative';
  if (score < -neutral) return 'Moderately Negative';
  if (score <= neutral) return 'Neutral';
  if (score <= strong) return 'Moderately Positive';
  return 'Positive';
}

/** The three-way polarity of a score, as the benchmarks count it. */
export const polarityOf = (score: number): 'negative' | 'neutral' | 'positive' =>
  score < -LEVEL_BOUNDS.neutral ? 'negative' : score > LEVEL_BOUNDS.neutral ? 'positive' : 'neutral';

/** A score as the API returns it: finite, within -100..100, one decimal. */
export function clampScore(score: number): number {
  if (!Number.isFinite(score)) throw new RangeError(`not a finite score: ${score}`);
  const rounded = Math.round(Math.min(100, Math.max(-100, score)) * 10) / 10;
  return rounded === 0 ? 0 : rounded;
}

/** Cut points of a raw classifier value in -1..1: below `negative` is negative, above `positive` positive. */
export interface CutPoints {
  negative: number;
  positive: number;
}

/**
 * Maps a raw value in -1..1 onto the scale, piecewise linearly: -1 → -100, the negative cut
 * point → -20, their midpoint → 0, the positive cut point → 20, 1 → 100. So the raw value's
 * three-way decision (tuned on validation) is exactly the score's (a polar value never rounds into
 * the neutral range), and the strong levels are the upper part of each polar range.
 */
export function scoreFromRaw(raw: number, cut: CutPoints): number {
  const r = Math.min(1, Math.max(-1, raw));
  const mid = (cut.negative + cut.positive) / 2;
  const n = LEVEL_BOUNDS.neutral;
  const lerp = (x: number, x0: number, x1: number, y0: number, y1: number) =>
    x1 === x0 ? y1 : y0 + ((x - x0) / (x1 - x0)) * (y1 - y0);
  // A polar value stays outside the neutral range once rounded to one decimal.
  if (r < cut.negative) return Math.min(-n - 0.1, clampScore(lerp(r, -1, cut.negative, -100, -n)));
  if (r > cut.positive) return Math.max(n + 0.1, clampScore(lerp(r, cut.positive, 1, n, 100)));
  return clampScore(r < mid ? lerp(r, cut.negative, mid, -n, 0) : lerp(r, mid, cut.positive, 0, n));
}
