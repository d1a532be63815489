/**
 * A tenant's tag model: a softmax regression over the case embedding (standardized) and the case's
 * words (words.ts), trained on the tenant's tagged cases. Tags seen on fewer than MIN_TAG_CASES
 * cases are left out. Scores are probabilities, calibrated by a temperature fitted on a held-out
 * part of the cases, so that a threshold means what it says (docs/api.md, "Tags").
 *
 * Each tag's name, read as words ("card_arrival" → "card arrival") and embedded like a case, is
 * one more training example of its tag: with a few cases per tag the name says a good deal about
 * what the tag means (bench/tune-tags.ts measured it), with many it weighs next to nothing.
 *
 * With an English sentence encoder configured (TAG_EMBEDDINGS_URL; the launcher runs
 * bge-small-en-v1.5), each text is also read by it, and its standardized vector joins the case
 * embedding: on BANKING77's training set it lifts 10-shot accuracy by about five points
 * (bench/tune-tags.ts). The multilingual case embedding stays in the model, so a tenant writing in
 * another language keeps what it had.
 *
 * Training has two parts: reading (readTagTrainingInputs: the tag names and the English vectors
 * come from the embedding servers) and fitting (fitTagModel: pure CPU work, minutes for a large
 * tenant). The worker runs the fit on a CPU thread (domain/cpu); trainTagModel composes both
 * in one process (benches, tests). Either way the same inputs give the same model.
 */
import {
  logits,
  seeded,
  softmax,
  trainSoftmax,
  type Features,
  type SoftmaxModel,
  type SoftmaxOptions,
} from './softmax';
import { buildVocabulary, termIndex, wordFeatures, type Vocabulary } from './words';

/** A tag must be on at least this many training cases to be predicted. */
export const MIN_TAG_CASES = 3;

/** Settings chosen on splits of the Banking77 training set (bench/tune-tags.ts; bench/tags.ts tunes nothing on test). */
export const TAG_TRAINING = {
  softmax: {
    epochs: 20,
    minSteps: 300,
    batchSize: 64,
    learningRate: 0.01,
    l2: 1e-5,
    seed: 7,
  } satisfies Partial<SoftmaxOptions>,
  /** Length of the standardized embedding relative to the word features' (unit length). */
  denseScale: 3,
  /** With the English encoder: the case embedding's length, and the English vector's. */
  withEnglish: { denseScale: 1, englishScale: 3 },
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

/** What the model reads of a text: the case embedding, its words, and the English encoder's vector when the model uses one. */
export interface TagInput {
  vector: readonly number[];
  text: string;
  english?: readonly number[];
}

export interface TagExample extends TagInput {
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
  /** The English encoder the model reads beside the case embedding (its model name), if any. */
  english?: string;
  /** Standardization of the embedding (followed by the English vector's, when used): per-dimension mean and scale. */
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

/** A vector as the model reads it: an embedding's numbers, or a row of a packed Float32Array. */
type Vector = ArrayLike<number> & Iterable<number>;

/** What the featurizer reads of a training row or an input to tag. */
interface Readable {
  vector: Vector;
  text: string;
  english?: Vector;
}

interface Prepared {
  features: (e: Readable) => Features;
  vocabulary: Vocabulary;
  mean: Float32Array;
  scale: Float32Array;
}

/** The dense part a model reads: the case embedding, then the English vector when the model uses one. */
function denseInput(e: Readable, english: string | undefined): Vector {
  if (!english) return e.vector;
  if (!e.english) throw new Error(`the tag model reads texts with ${english} as well, and no vector of it was given`);
  return [...e.vector, ...e.english];
}

/** Per-dimension mean and scale: each block's dimensions standardized, then the block scaled to its length. */
export function standardization(rows: readonly ArrayLike<number>[], blocks: { size: number; scale: number }[]) {
  const d = rows[0].length;
  const mean = new Float64Array(d);
  const sq = new Float64Array(d);
  for (const r of rows) for (let i = 0; i < d; i++) mean[i] += r[i] / rows.length;
  for (const r of rows) for (let i = 0; i < d; i++) sq[i] += (r[i] - mean[i]) ** 2 / rows.length;
  const length = new Float64Array(d);
  let at = 0;
  for (const b of blocks) length.fill(b.scale / Math.sqrt(b.size), at, (at += b.size));
  return { mean: Float32Array.from(mean), scale: Float32Array.from(sq, (v, i) => length[i] / Math.sqrt(v + 1e-12)) };
}

function prepare(
  examples: readonly Readable[],
  o: { tags: number; denseScale: number; english?: string; englishScale: number },
): Prepared {
  const rows = examples.map((e) => denseInput(e, o.english));
  const d = examples[0].vector.length;
  const blocks = [
    { size: d, scale: o.denseScale },
    ...(o.english ? [{ size: rows[0].length - d, scale: o.englishScale }] : []),
  ];
  const { mean, scale } = standardization(rows, blocks);
  const maxTerms = Math.floor(TAG_TRAINING.maxParameters / o.tags) - rows[0].length;
  const vocabulary = buildVocabulary(
    examples.map((e) => e.text),
    { minDocuments: TAG_TRAINING.minDocuments, maxTerms },
  );
  return { features: featurizer({ vocabulary, mean, scale, english: o.english }), vocabulary, mean, scale };
}

function featurizer(o: { vocabulary: Vocabulary; mean: Float32Array; scale: Float32Array; english?: string }) {
  const index = termIndex(o.vocabulary);
  return (e: Readable): Features => ({
    dense: Float64Array.from(denseInput(e, o.english), (v, i) => (v - o.mean[i]) * o.scale[i]),
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
  return (
    tag
      .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
      .replace(/[_\-./:#]+/g, ' ')
      .replace(/\s+/g, ' ')
      .trim() || tag
  );
}

export interface TagTrainingOptions {
  now: number;
  onEpoch?: () => void;
  /** Embeds texts as cases are embedded; given, each tag's name becomes one training example. */
  embedNames?: (texts: string[]) => Promise<number[][]>;
  /** The case embedding's weight: TAG_TRAINING's unless given (bench/tune-tags.ts tries others). */
  denseScale?: number;
  /** The English encoder: given, every text (cases and tag names) is read by it too; `scale` as denseScale. */
  english?: { model: string; embed: (texts: string[]) => Promise<number[][]>; scale?: number };
}

/** Vectors of one encoder, one row after another (rows × dim); float32, as every embedder of the stack and Weaviate give them. */
export interface PackedVectors {
  dim: number;
  data: Float32Array;
}

/**
 * Everything the fit reads, packed to cross to a CPU thread: rows are the cases that carry a kept
 * tag, then one row per tag name (when names were embedded). Large parts are typed arrays, which
 * can be moved to the thread instead of copied (tagTrainingBuffers).
 */
export interface TagTrainingInputs {
  /** Tags the model predicts (sorted), and the cases carrying each. */
  tags: string[];
  support: number[];
  /** Rows that are cases; the rows after them are tag names. */
  cases: number;
  texts: string[];
  /** Indexes into `tags`, per row. */
  labels: number[][];
  vectors: PackedVectors;
  english?: PackedVectors & { model: string };
  denseScale: number;
  englishScale: number;
  trainedAt: number;
}

/** The buffers of `inputs` that can be moved to a thread (detached here once moved). */
export const tagTrainingBuffers = (inputs: TagTrainingInputs): ArrayBuffer[] =>
  [inputs.vectors.data, inputs.english?.data].filter((a) => a !== undefined).map((a) => a.buffer as ArrayBuffer);

function packVectors(rows: readonly (readonly number[])[], what: string): PackedVectors {
  const dim = rows[0]?.length ?? 0;
  const data = new Float32Array(rows.length * dim);
  rows.forEach((r, i) => {
    if (r.length !== dim) throw new Error(`${what}: a vector has ${r.length} dimensions, the first has ${dim}`);
    data.set(r, i * dim);
  });
  return { dim, data };
}

const rowOf = (p: PackedVectors, i: number) => p.data.subarray(i * p.dim, (i + 1) * p.dim);

/**
 * The reading part of a training: which tags the model predicts, the tag names' vectors and every
 * text's English vector (calls to the embedding servers), packed for fitTagModel. Null when fewer
 * than two tags have MIN_TAG_CASES cases.
 */
export async function readTagTrainingInputs(
  all: readonly TagExample[],
  o: Omit<TagTrainingOptions, 'onEpoch'>,
): Promise<TagTrainingInputs | null> {
  const counts = new Map<string, number>();
  for (const e of all) for (const t of new Set(e.tags)) counts.set(t, (counts.get(t) ?? 0) + 1);
  const tags = [...counts]
    .filter(([, n]) => n >= MIN_TAG_CASES)
    .map(([t]) => t)
    .sort();
  if (tags.length < 2) return null;
  const index = new Map(tags.map((t, i) => [t, i]));
  const labelsOf = (e: TagExample) => [...new Set(e.tags.filter((t) => index.has(t)).map((t) => index.get(t)!))];
  const cases = all.filter((e) => e.tags.some((t) => index.has(t)));
  const rows = [...cases, ...(await nameExamples(tags, o.embedNames))];
  const texts = rows.map((e) => e.text);
  const englishVectors = o.english && (await o.english.embed(texts));
  if (englishVectors && englishVectors.length !== rows.length)
    throw new Error(`${o.english!.model} gave ${englishVectors.length} vectors for ${rows.length} texts`);
  const english = englishVectors && {
    model: o.english!.model,
    ...packVectors(englishVectors, `the vectors of ${o.english!.model}`),
  };
  return {
    tags,
    support: tags.map((t) => counts.get(t)!),
    cases: cases.length,
    texts,
    labels: rows.map(labelsOf),
    vectors: packVectors(
      rows.map((e) => e.vector),
      'the case vectors',
    ),
    ...(english ? { english } : {}),
    denseScale: o.denseScale ?? (o.english ? TAG_TRAINING.withEnglish.denseScale : TAG_TRAINING.denseScale),
    englishScale: o.english?.scale ?? TAG_TRAINING.withEnglish.englishScale,
    trainedAt: o.now,
  };
}

/**
 * The fitting part of a training, pure CPU work: the temperature on a held-out part of the cases,
 * then the model that ships, trained on every case and tag name. Deterministic.
 */
export async function fitTagModel(inputs: TagTrainingInputs, o: { onEpoch?: () => void } = {}): Promise<TagModel> {
  const { tags, english } = inputs;
  const rows = inputs.texts.map((text, i) => ({
    vector: rowOf(inputs.vectors, i),
    text,
    ...(english ? { english: rowOf(english, i) } : {}),
    labels: inputs.labels[i],
  }));
  const examples = rows.slice(0, inputs.cases);
  const names = rows.slice(inputs.cases);
  const setting = {
    tags: tags.length,
    denseScale: inputs.denseScale,
    english: english?.model,
    englishScale: inputs.englishScale,
  };
  const labelsOf = (e: (typeof rows)[number]) => e.labels;

  // Fit the temperature on a held-out part, then train the model that ships on every case.
  const random = seeded(11);
  const held = examples.map(() => random() < TAG_TRAINING.holdout);
  const heldOut = examples.filter((_, i) => held[i]);
  let temperature = 1;
  let holdoutAccuracy: number | null = null;
  if (heldOut.length >= TAG_TRAINING.minHoldout) {
    const fit = [...examples.filter((_, i) => !held[i]), ...names];
    const p = prepare(fit, setting);
    const model = await trainSoftmax(
      fit.map(p.features),
      fit.map(labelsOf),
      { classes: tags.length, sparse: p.vocabulary.terms.length },
      { ...TAG_TRAINING.softmax, onEpoch: o.onEpoch },
    );
    const z = heldOut.map((e) => logits(model, p.features(e)));
    const truth = heldOut.map(labelsOf);
    temperature = fitTemperature(z, truth);
    holdoutAccuracy = z.filter((row, j) => truth[j].includes(argmax(row))).length / z.length;
  }
  const p = prepare(rows, setting);
  const softmaxModel = await trainSoftmax(
    rows.map(p.features),
    rows.map(labelsOf),
    { classes: tags.length, sparse: p.vocabulary.terms.length },
    { ...TAG_TRAINING.softmax, onEpoch: o.onEpoch },
  );
  return {
    tags,
    support: inputs.support,
    vocabulary: p.vocabulary,
    ...(english ? { english: english.model } : {}),
    mean: p.mean,
    scale: p.scale,
    softmax: softmaxModel,
    temperature,
    cases: examples.length,
    holdoutAccuracy,
    trainedAt: inputs.trainedAt,
  };
}

/** Reads and fits in this process (benches, tests); the worker fits on a CPU thread instead (tags/train.ts). */
export async function trainTagModel(all: readonly TagExample[], o: TagTrainingOptions): Promise<TagModel | null> {
  const { onEpoch, ...reading } = o;
  const inputs = await readTagTrainingInputs(all, reading);
  return inputs && fitTagModel(inputs, { onEpoch });
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
export function tagPredictor(model: TagModel): (input: TagInput) => TagScore[] {
  const features = featurizer(model);
  return (input) => {
    const p = softmax(logits(model.softmax, features(input)), model.temperature);
    return model.tags
      .map((name, i) => ({ name, score: p[i] }))
      .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1));
  };
}
