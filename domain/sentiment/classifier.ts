/**
 * A three-class logistic regression (softmax) over embeddings: negative, neutral, positive.
 * Training is plain full-batch gradient descent from zero weights, so the same examples and
 * embeddings always give the same weights. scripts/train-sentiment.ts trains it on the examples
 * (examples.ts); the local engine only predicts.
 */

export const CLASSES = ['negative', 'neutral', 'positive'] as const;
export type SentimentClass = (typeof CLASSES)[number];

export interface LinearModel {
  /** One row of weights per class, each as long as the embedding. */
  weights: number[][];
  bias: number[];
}

export interface TrainOptions {
  /** L2 penalty on the weights (not the bias). */
  l2: number;
  iterations: number;
  learningRate: number;
}

export const TRAIN_DEFAULTS: TrainOptions = { l2: 1e-4, iterations: 3000, learningRate: 1 };

function softmax(z: number[]): number[] {
  const max = Math.max(...z);
  const e = z.map((v) => Math.exp(v - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / sum);
}

/** Class probabilities of one embedding, in CLASSES order. */
export function predict(model: LinearModel, x: readonly number[]): number[] {
  if (x.length !== model.weights[0].length)
    throw new Error(`embedding has ${x.length} dimensions, the sentiment model expects ${model.weights[0].length}`);
  return softmax(model.weights.map((w, k) => w.reduce((s, wi, i) => s + wi * x[i], model.bias[k])));
}

/** Trains the model on embeddings `xs` with class indexes `ys` (0 negative, 1 neutral, 2 positive). */
export function train(
  xs: readonly (readonly number[])[],
  ys: readonly number[],
  options: Partial<TrainOptions> = {},
): LinearModel {
  const o = { ...TRAIN_DEFAULTS, ...options };
  const n = xs.length;
  if (n === 0 || n !== ys.length) throw new Error('training needs as many labels as embeddings, and at least one');
  const d = xs[0].length;
  const k = CLASSES.length;
  const weights = Array.from({ length: k }, () => new Float64Array(d));
  const bias = new Float64Array(k);
  const gradW = Array.from({ length: k }, () => new Float64Array(d));
  const gradB = new Float64Array(k);
  for (let it = 0; it < o.iterations; it++) {
    for (const g of gradW) g.fill(0);
    gradB.fill(0);
    for (let j = 0; j < n; j++) {
      const x = xs[j];
      const z = new Array<number>(k);
      for (let c = 0; c < k; c++) {
        const w = weights[c];
        let s = bias[c];
        for (let i = 0; i < d; i++) s += w[i] * x[i];
        z[c] = s;
      }
      const p = softmax(z);
      for (let c = 0; c < k; c++) {
        const err = (p[c] - (ys[j] === c ? 1 : 0)) / n;
        gradB[c] += err;
        const g = gradW[c];
        for (let i = 0; i < d; i++) g[i] += err * x[i];
      }
    }
    for (let c = 0; c < k; c++) {
      const w = weights[c];
      const g = gradW[c];
      for (let i = 0; i < d; i++) w[i] -= o.learningRate * (g[i] + o.l2 * w[i]);
      bias[c] -= o.learningRate * gradB[c];
    }
  }
  return { weights: weights.map((w) => Array.from(w)), bias: Array.from(bias) };
}
