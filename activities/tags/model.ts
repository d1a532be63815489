/**
 * A tenant's tag model: a softmax regression over the case embedding (standardized) and the case's
 * words (words.ts), trained on the tenant's tagged cases. Tags seen on fewer than MIN_TAG_CASES
 * cases are left out. Scores are probabilities, calibrated by a temperature fitted on a held-out
 * part of the cases, so that a threshold means what it says (docs/api.md, "Tags").
 *
 * Each tag's name, read as words ("card_arrival" → "card arrival") and embedded like a case, is
 * one more training example of its tag: with a few cases per tag the name says a good deal about
 * what the tag means (bench/tune-tags.ts measured it), with many it weighs next to nothing.
 */
import { logits, seeded, softmax, trainSoftmax, type Features, type SoftmaxModel, type SoftmaxOptions } from './softmax';
import { buildVocabulary, termIndex, wordFeatures, type Vocabulary } from './words';

/** A tag must be on at least this many training cases to be predicted. */
export const MIN_TAG_CASES = 3;

/** Settings chosen on splits of the Banking77 training set (bench/tune-tags.ts; bench/tags.ts tunes nothing on test). */
export const TAG_TRAINING = {
  softmax: { epochs: 20, minSteps: 300, batchSize: 64, learningRate: 0.01, l2: 1e-5, seed: 7 } satisfies Partial<SoftmaxOptions>,
  /** Length of the standardized embedding relative to the word features' (unit length). */
  denseScale: 3,
  wordScale: 1,
  /** A word or word pair enters the vocabulary when this many cases use it. */
  minDocuments: 2,
  /** Share of the cases held out to fit the temperature (when there are enough). */
  holdout: 0.15,
  /** The temperature is fitted only with at least this many held-out cases. */
  minHoldout: 50,
  /** Bounds the model's size (tags × (embedding + vocabulary) weights): the vocabulary shrinks to fit. */
  maxParameters: 8_000_000,
  /** Cases read for one training at most (the first found). */
  maxCases: 50_000,
};

export interface TagExample {
  /** The case's embedding, as stored with it. */
  vector: readonly number[];
  /** The case's text (subject, description, public comments). */
  text: string;
  tags: readonly string[];
}

export interface TagModel {
  tags: string[];
  /** Training cases per tag, in `tags` order. */
  support: number[];
  vocabulary: Vocabulary;
  /** Standardization of the embedding: per-dimension mean and scale. */
  mean: Float32Array;
  scale: Float32Array;
  softmax: SoftmaxModel;
  temperature: number;
  /** Cases the model was trained on, and those left out because their tags were too rare. */
  cases: number;
  /** Accuracy of the top tag on the held-out cases, before the final training on all (null when too few). */
  holdoutAccuracy: number | null;
  trainedAt: number;
}

export interface TagScore {
  name: string;
  score: number;
}

interface Prepared {
  features: (e: TagExample | { vector: readonly number[]; text: string }) => Features;
  vocabulary: Vocabulary;
  mean: Float32Array;
  scale: Float32Array;
}

function prepare(examples: readonly TagExample[], tags: number, denseScale: number): Prepared {
  const d = examples[0].vector.length;
  const mean = new Float64Array(d);
  const sq = new Float64Array(d);
  for (const e of examples) for (let i = 0; i < d; i++) mean[i] += e.vector[i] / examples.length;
  for (const e of examples) for (let i = 0; i < d; i++) sq[i] += (e.vector[i] - mean[i]) ** 2 / examples.length;
  const scale = Float32Array.from(sq, (v) => denseScale / Math.sqrt(d) / Math.sqrt(v + 1e-12));
  const maxTerms = Math.floor(TAG_TRAINING.maxParameters / tags) - d;
  const vocabulary = buildVocabulary(examples.map((e) => e.text), { minDocuments: TAG_TRAINING.minDocuments, maxTerms });
  const m = Float32Array.from(mean);
  return { features: featurizer({ vocabulary, mean: m, scale }), vocabulary, mean: m, scale };
}

function featurizer(o: { vocabulary: Vocabulary; mean: Float32Array; scale: Float32Array }) {
  const index = termIndex(o.vocabulary);
  return (e: { vector: readonly number[]; text: string }): Features => ({
    dense: Float64Array.from(e.vector, (v, i) => (v - o.mean[i]) * o.scale[i]),
    sparse: wordFeatures({ vocabulary: o.vocabulary, index, scale: TAG_TRAINING.wordScale }, e.text),
  });
}

/** The temperature (from a grid) that minimizes the held-out negative log-likelihood. */
function fitTemperature(z: Float64Array[], truth: number[][]): number {
  let best = { t: 1, nll: Infinity };
  for (let t = 0.25; t <= 4.0001; t += 0.05) {
    let nll = 0;
    z.forEach((row, j) => {
      const p = softmax(row, t);
      nll -= Math.log(truth[j].reduce((s, y) => s + p[y], 0) + 1e-12);
    });
    if (nll < best.nll) best = { t, nll };
  }
  return Math.round(best.t * 100) / 100;
}

/** A tag's name as words: separators and camelCase boundaries become spaces. */
export function tagNameText(tag: string): string {
  return tag
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/[_\-./:#]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim() || tag;
}

export interface TagTrainingOptions {
  now: number;
  onEpoch?: () => void;
  /** Embeds texts as cases are embedded; given, each tag's name becomes one training example. */
  embedNames?: (texts: string[]) => Promise<number[][]>;
  /** TAG_TRAINING.denseScale unless given (bench/tune-tags.ts tries others). */
  denseScale?: number;
}

export async function trainTagModel(all: readonly TagExample[], o: TagTrainingOptions): Promise<TagModel | null> {
  const counts = new Map<string, number>();
  for (const e of all) for (const t of new Set(e.tags)) counts.set(t, (counts.get(t) ?? 0) + 1);
  const tags = [...counts].filter(([, n]) => n >= MIN_TAG_CASES).map(([t]) => t).sort();
  if (tags.length < 2) return null;
  const index = new Map(tags.map((t, i) => [t, i]));
  const examples = all.filter((e) => e.tags.some((t) => index.has(t)));
  const labelsOf = (e: TagExample) => [...new Set(e.tags.filter((t) => index.has(t)).map((t) => index.get(t)!))];
  const names = await nameExamples(tags, o.embedNames);
  const denseScale = o.denseScale ?? TAG_TRAINING.denseScale;

  // Fit the temperature on a held-out part, then train the model that ships on every case.
  const random = seeded(11);
  const held = examples.map(() => random() < TAG_TRAINING.holdout);
  const heldOut = examples.filter((_, i) => held[i]);
  let temperature = 1;
  let holdoutAccuracy: number | null = null;
  if (heldOut.length >= TAG_TRAINING.minHoldout) {
    const fit = [...examples.filter((_, i) => !held[i]), ...names];
    const p = prepare(fit, tags.length, denseScale);
    const model = await trainSoftmax(fit.map(p.features), fit.map(labelsOf), { classes: tags.length, sparse: p.vocabulary.terms.length }, { ...TAG_TRAINING.softmax, onEpoch: o.onEpoch });
    const z = heldOut.map((e) => logits(model, p.features(e)));
    const truth = heldOut.map(labelsOf);
    temperature = fitTemperature(z, truth);
    holdoutAccuracy = z.filter((row, j) => truth[j].includes(argmax(row))).length / z.length;
  }
  const trained = [...examples, ...names];
  const p = prepare(trained, tags.length, denseScale);
  const softmaxModel = await trainSoftmax(trained.map(p.features), trained.map(labelsOf), { classes: tags.length, sparse: p.vocabulary.terms.length }, { ...TAG_TRAINING.softmax, onEpoch: o.onEpoch });
  return {
    tags,
    support: tags.map((t) => counts.get(t)!),
    vocabulary: p.vocabulary,
    mean: p.mean,
    scale: p.scale,
    softmax: softmaxModel,
    temperature,
    cases: examples.length,
    holdoutAccuracy,
    trainedAt: o.now,
  };
}

async function nameExamples(tags: readonly string[], embed: TagTrainingOptions['embedNames']): Promise<TagExample[]> {
  if (!embed) return [];
  const texts = tags.map(tagNameText);
  const vectors = await embed(texts);
  return tags.map((tag, i) => ({ vector: vectors[i], text: texts[i], tags: [tag] }));
}

function argmax(v: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < v.length; i++) if (v[i] > v[best]) best = i;
  return best;
}

/** A predictor for one model: builds the word index once. */
export function tagPredictor(model: TagModel): (input: { vector: readonly number[]; text: string }) => TagScore[] {
  const features = featurizer(model);
  return (input) => {
    const p = softmax(logits(model.softmax, features(input)), model.temperature);
    return model.tags.map((name, i) => ({ name, score: p[i] })).sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1));
  };
}
