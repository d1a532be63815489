/**
 * A softmax (multinomial logistic) regression over a dense vector (an embedding) and optional
 * sparse features (weighted words), trained with mini-batch Adam. Sparse weights are updated only
 * where a batch has the feature ("lazy" Adam), so a large vocabulary costs nothing per step.
 * Deterministic: the same examples in the same order always give the same weights (batches are
 * shuffled by a seeded generator). An example may carry several labels; its target is then split
 * evenly between them.
 */

export interface SparseVector {
  index: ArrayLike<number>;
  value: ArrayLike<number>;
}

export interface Features {
  dense: ArrayLike<number>;
  sparse?: SparseVector;
}

export interface SoftmaxModel {
  classes: number;
  /** Length of the dense vector. */
  dense: number;
  /** Size of the sparse vocabulary. */
  sparse: number;
  /** Row-major, classes × dense. */
  denseWeights: Float32Array;
  /** Row-major, sparse × classes: one row per sparse feature. */
  sparseWeights: Float32Array;
  bias: Float32Array;
}

export interface SoftmaxOptions {
  epochs: number;
  /** Optimizer steps at least: a small training set gets more epochs. */
  minSteps: number;
  batchSize: number;
  learningRate: number;
  /** L2 penalty on the weights (not the bias). */
  l2: number;
  seed: number;
  /** Called after each epoch, e.g. to heartbeat. */
  onEpoch?: (epoch: number) => void;
  /** Batches between two pauses that let the process's other work run (timers, heartbeats). */
  yieldEvery: number;
}

export const SOFTMAX_DEFAULTS: SoftmaxOptions = {
  epochs: 20,
  minSteps: 300,
  batchSize: 64,
  learningRate: 0.01,
  l2: 1e-5,
  seed: 7,
  yieldEvery: 16,
};

/** A small seeded generator (mulberry32). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Shuffles `items` in place (Fisher–Yates) with `random`, e.g. a `seeded` generator; returns them. */
export function shuffleInPlace<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

interface Weights {
  classes: number;
  dense: number;
  denseWeights: ArrayLike<number>;
  sparseWeights: ArrayLike<number>;
  bias: ArrayLike<number>;
}

/** Raw scores (logits) of one example, one per class. */
export function logits(model: Weights, x: Features): Float64Array {
  const { classes, dense: d, denseWeights, sparseWeights, bias } = model;
  if (x.dense.length !== d) throw new Error(`the vector has ${x.dense.length} dimensions, the model expects ${d}`);
  const z = new Float64Array(classes);
  for (let c = 0; c < classes; c++) {
    let s = bias[c];
    const row = c * d;
    for (let i = 0; i < d; i++) s += denseWeights[row + i] * x.dense[i];
    z[c] = s;
  }
  const sp = x.sparse;
  if (sp) {
    for (let j = 0; j < sp.index.length; j++) {
      const row = sp.index[j] * classes;
      const v = sp.value[j];
      for (let c = 0; c < classes; c++) z[c] += sparseWeights[row + c] * v;
    }
  }
  return z;
}

/** Probabilities from logits, softened (temperature > 1) or sharpened (< 1). */
export function softmax(z: ArrayLike<number>, temperature = 1): Float64Array {
  let max = -Infinity;
  for (let i = 0; i < z.length; i++) max = Math.max(max, z[i]);
  const p = new Float64Array(z.length);
  let sum = 0;
  for (let i = 0; i < z.length; i++) {
    p[i] = Math.exp((z[i] - max) / temperature);
    sum += p[i];
  }
  for (let i = 0; i < p.length; i++) p[i] /= sum;
  return p;
}

/** Adam's state for one block of parameters. */
class Adam {
  private readonly m: Float64Array;
  private readonly v: Float64Array;
  constructor(
    readonly w: Float64Array,
    private readonly l2: number,
  ) {
    this.m = new Float64Array(w.length);
    this.v = new Float64Array(w.length);
  }
  /** Updates parameters [from, to) with gradient g (same indexes), at step size lr. */
  update(g: Float64Array, from: number, to: number, lr: number): void {
    const { w, m, v, l2 } = this;
    for (let i = from; i < to; i++) {
      const gi = g[i] + l2 * w[i];
      m[i] = 0.9 * m[i] + 0.1 * gi;
      v[i] = 0.999 * v[i] + 0.001 * gi * gi;
      w[i] -= (lr * m[i]) / (Math.sqrt(v[i]) + 1e-8);
    }
  }
}

const pause = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function trainSoftmax(
  examples: readonly Features[],
  labels: readonly (readonly number[])[],
  shape: { classes: number; sparse: number },
  options: Partial<SoftmaxOptions> = {},
): Promise<SoftmaxModel> {
  const o = { ...SOFTMAX_DEFAULTS, ...options };
  const n = examples.length;
  if (n === 0 || n !== labels.length)
    throw new Error('training needs as many label lists as examples, and at least one');
  const { classes, sparse } = shape;
  const d = examples[0].dense.length;
  const model = {
    classes,
    dense: d,
    denseWeights: new Float64Array(classes * d),
    sparseWeights: new Float64Array(sparse * classes),
    bias: new Float64Array(classes),
  };
  const denseAdam = new Adam(model.denseWeights, o.l2);
  const sparseAdam = new Adam(model.sparseWeights, o.l2);
  const biasAdam = new Adam(model.bias, 0);
  const gDense = new Float64Array(classes * d);
  const gSparse = new Float64Array(sparse * classes);
  const gBias = new Float64Array(classes);
  const touched = new Set<number>();
  const order = Array.from({ length: n }, (_, i) => i);
  const random = seeded(o.seed);
  let step = 0;
  const epochs = Math.max(o.epochs, Math.ceil(o.minSteps / Math.ceil(n / o.batchSize)));
  for (let epoch = 0; epoch < epochs; epoch++) {
    shuffleInPlace(order, random);
    for (let start = 0; start < n; start += o.batchSize) {
      const batch = order.slice(start, start + o.batchSize);
      gDense.fill(0);
      gBias.fill(0);
      for (const f of touched) gSparse.fill(0, f * classes, (f + 1) * classes);
      touched.clear();
      for (const j of batch) {
        const x = examples[j];
        const err = softmax(logits(model, x));
        const share = 1 / labels[j].length;
        for (const y of labels[j]) err[y] -= share;
        for (let c = 0; c < classes; c++) {
          const e = err[c] / batch.length;
          gBias[c] += e;
          const row = c * d;
          for (let i = 0; i < d; i++) gDense[row + i] += e * x.dense[i];
        }
        const sp = x.sparse;
        if (!sp) continue;
        for (let k = 0; k < sp.index.length; k++) {
          const f = sp.index[k];
          touched.add(f);
          const row = f * classes;
          for (let c = 0; c < classes; c++) gSparse[row + c] += (err[c] / batch.length) * sp.value[k];
        }
      }
      step++;
      const lr = (o.learningRate * Math.sqrt(1 - 0.999 ** step)) / (1 - 0.9 ** step);
      denseAdam.update(gDense, 0, gDense.length, lr);
      biasAdam.update(gBias, 0, classes, lr);
      for (const f of touched) sparseAdam.update(gSparse, f * classes, (f + 1) * classes, lr);
      if (step % o.yieldEvery === 0) await pause();
    }
    o.onEpoch?.(epoch);
  }
  return {
    classes,
    dense: d,
    sparse,
    denseWeights: Float32Array.from(model.denseWeights),
    sparseWeights: Float32Array.from(model.sparseWeights),
    bias: Float32Array.from(model.bias),
  };
}
