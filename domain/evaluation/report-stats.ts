/**
 * The statistics of evaluation reports: the interval of a pass rate and the test of whether two
 * models' pass rates on a rule differ by more than chance.
 *
 * The test is the two-sided two-proportion z-test with the pooled proportion (the calls of the two
 * models are different calls, so the test is for independent samples). Its normal approximation
 * needs at least 5 expected passes and 5 expected fails in each model; below that no p-value is
 * given. The p-values of one pair of models (one per rule) are adjusted with Holm's step-down
 * method, so that "better on some rule" keeps a 5 % family-wise error rate however many rules a
 * use case has.
 */
import { errorFunction } from 'simple-statistics';

/** The 95 % Wilson score interval of `successes` out of `n`. */
export function wilson(successes: number, n: number, z = 1.96): [number, number] | null {
  if (n === 0) return null;
  const p = successes / n;
  const denominator = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / denominator;
  const margin = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / denominator;
  return [Math.max(0, centre - margin), Math.min(1, centre + margin)];
}

export interface Proportion {
  pass: number;
  n: number;
}

/** Expected passes and fails each sample needs for the normal approximation. */
export const MIN_EXPECTED = 5;

/**
 * The two-sided p-value of the two-proportion z-test (pooled), or null when a sample is too small
 * for it (an expected count under MIN_EXPECTED).
 */
export function twoProportionTest(a: Proportion, b: Proportion): { z: number; p: number } | null {
  if (a.n === 0 || b.n === 0) return null;
  const pooled = (a.pass + b.pass) / (a.n + b.n);
  const expected = Math.min(pooled, 1 - pooled) * Math.min(a.n, b.n);
  if (expected < MIN_EXPECTED) return null;
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / a.n + 1 / b.n));
  const z = (a.pass / a.n - b.pass / b.n) / se;
  // P(|Z| >= |z|) = 1 - erf(|z| / sqrt 2)
  return { z, p: Math.min(1, Math.max(0, 1 - errorFunction(Math.abs(z) / Math.SQRT2))) };
}

/** Holm's step-down adjustment of p-values (nulls stay null), in the order given. */
export function holm(pValues: readonly (number | null)[]): (number | null)[] {
  const ranked = pValues
    .map((p, i) => ({ p, i }))
    .filter((x): x is { p: number; i: number } => x.p !== null)
    .sort((x, y) => x.p - y.p);
  const adjusted: (number | null)[] = pValues.map(() => null);
  let running = 0;
  ranked.forEach(({ p, i }, k) => {
    running = Math.max(running, Math.min(1, (ranked.length - k) * p));
    adjusted[i] = running;
  });
  return adjusted;
}
