/**
 * The local sentiment engine: no model service beyond the embedding server.
 *
 * 1. The message is cleaned of links and @handles (a handle such as @united says nothing about
 *    the mood but moves the embedding), and a long one is cut into segments the embedding model
 *    reads whole (at most MAX_SEGMENTS, spread over the text, so the end of a long conversation
 *    counts as much as its start).
 * 2. Each segment gets its E5 query embedding and a three-class logistic regression over it gives
 *    P(negative), P(neutral), P(positive); the embedding's reading is P(positive) - P(negative).
 * 3. The lexicon (lexicon.ts) reads the same segment word by word, -1..1.
 * 4. raw = (1 - w) · embedding reading + w · lexicon reading, averaged over the segments by
 *    length, and mapped onto the -100..100 scale with the cut points (levels.ts).
 *
 * The weights, `w` and the cut points are in model.json, which bench/train-sentiment.ts writes:
 * the classifier is trained on the examples written for this project (examples.ts), `w` and the
 * cut points are tuned on TweetEval's validation split only. Everything is deterministic.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Embedder } from '../models/embeddings';
import type { SearchPhase } from '../weaviate/retrieve';
import { type LinearModel, predict } from './classifier';
import { lexicalCue } from './lexicon';
import { type CutPoints, labelFor, scoreFromRaw, type SentimentLabel } from './levels';

/** What bench/train-sentiment.ts writes to model.json. */
export interface SentimentModel extends LinearModel {
  format: 1;
  /** The embedding model the weights were trained on (EMBEDDINGS_MODEL). */
  embeddingModel: string;
  /** Weight of the lexicon's reading in the raw value, 0..1. */
  lexiconWeight: number;
  cuts: CutPoints;
  training: Record<string, unknown>;
  tuning: Record<string, unknown>;
}

export const MODEL_FILE = path.join(__dirname, 'model.json');

let loaded: SentimentModel | undefined;

/** The shipped model (model.json), read and checked once per process. */
export function localModel(): SentimentModel {
  if (loaded) return loaded;
  let model: SentimentModel;
  try {
    model = JSON.parse(fs.readFileSync(MODEL_FILE, 'utf8'));
  } catch (err) {
    throw new Error(`the local sentiment model ${MODEL_FILE} cannot be read (npm run sentiment:train writes it): ${(err as Error).message}`);
  }
  const d = model.weights?.[0]?.length;
  const valid =
    model.format === 1 &&
    model.weights.length === 3 &&
    d > 0 &&
    model.weights.every((w) => w.length === d && w.every(Number.isFinite)) &&
    model.bias?.length === 3 &&
    model.lexiconWeight >= 0 &&
    model.lexiconWeight <= 1 &&
    model.cuts?.negative <= model.cuts?.positive;
  if (!valid) throw new Error(`the local sentiment model ${MODEL_FILE} is not a format-1 model file; run npm run sentiment:train`);
  return (loaded = model);
}

/** Characters per segment: about 300 to 400 tokens of European text, inside E5's 512. */
export const SEGMENT_CHARS = 1500;
/** Segments embedded per message, at most; a longer message is sampled evenly, first and last included. */
export const MAX_SEGMENTS = 4;

/** The text as the engine reads it: no links, @handles as `@user`, whitespace collapsed. */
export function cleanMessage(text: string): string {
  const clean = text
    .replace(/https?:\/\/\S+/g, ' ')
    .replace(/(^|[^\w@])@\w+/g, '$1@user')
    .replace(/\s+/g, ' ')
    .trim();
  return clean || text.replace(/\s+/g, ' ').trim();
}

/** Cuts `text` into pieces of at most `maxChars`, at a sentence end or a space when there is one. */
function pieces(text: string, maxChars: number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > maxChars) {
    const window = rest.slice(0, maxChars);
    const sentenceEnd = Math.max(window.lastIndexOf('. '), window.lastIndexOf('! '), window.lastIndexOf('? '), window.lastIndexOf('\n'));
    const cut = sentenceEnd > maxChars / 2 ? sentenceEnd + 1 : window.lastIndexOf(' ') > maxChars / 2 ? window.lastIndexOf(' ') : maxChars;
    out.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) out.push(rest);
  return out.filter(Boolean);
}

/** The segments of a (cleaned) message the engine reads: all when few, else MAX_SEGMENTS spread evenly. */
export function segments(text: string, o: { maxChars?: number; maxSegments?: number } = {}): string[] {
  const all = pieces(text, o.maxChars ?? SEGMENT_CHARS);
  const max = o.maxSegments ?? MAX_SEGMENTS;
  if (all.length <= max) return all;
  if (max <= 1) return all.slice(-1);
  return Array.from({ length: max }, (_, i) => all[Math.round((i * (all.length - 1)) / (max - 1))]);
}

export interface SegmentReading {
  /** Characters of the segment: its weight in the average. */
  chars: number;
  /** P(positive) - P(negative) of the classifier. */
  embedding: number;
  /** The lexicon's reading, -1..1. */
  lexicon: number;
  /** The segment's embedding, when asked for (the benchmark's diagnostics). */
  vector?: number[];
}

/** The raw value, -1..1, of a message's segment readings. */
export function rawValue(readings: readonly SegmentReading[], lexiconWeight: number): number {
  const total = readings.reduce((a, r) => a + r.chars, 0);
  if (total === 0) return 0;
  return readings.reduce((a, r) => a + (r.chars / total) * ((1 - lexiconWeight) * r.embedding + lexiconWeight * r.lexicon), 0);
}

export interface SentimentScore {
  sentiment: number;
  label: SentimentLabel;
}

/** Score and label of a raw value under a model's cut points. */
export function scoreOf(raw: number, model: Pick<SentimentModel, 'cuts'> = localModel()): SentimentScore {
  const sentiment = scoreFromRaw(raw, model.cuts);
  return { sentiment, label: labelFor(sentiment) };
}

export interface LocalDeps {
  embedder: Embedder;
  tenant?: string;
  signal?: AbortSignal;
  timings?: Partial<Record<SearchPhase, number>>;
}

export interface SentimentInput {
  message: string;
  /** ISO 639-1 code: picks the lexicon's language (English entries always apply). */
  language: string;
}

/**
 * The segment readings of several messages, with one embedding call for all their segments (the
 * benchmark sends batches, the API one message). Segments are embedded as E5 queries.
 */
export async function readMessages(
  deps: LocalDeps,
  inputs: readonly SentimentInput[],
  model: SentimentModel = localModel(),
  o: { keepVectors?: boolean } = {},
): Promise<SegmentReading[][]> {
  const perMessage = inputs.map((input) => segments(cleanMessage(input.message)));
  const texts = perMessage.flat();
  const started = performance.now();
  const vectors = texts.length ? await deps.embedder.embed({ texts, inputType: 'query', tenant: deps.tenant, signal: deps.signal }) : [];
  if (deps.timings) deps.timings.embed = performance.now() - started;
  let next = 0;
  return inputs.map((input, m) =>
    perMessage[m].map((text) => {
      const vector = vectors[next++];
      const p = predict(model, vector);
      return { chars: text.length, embedding: p[2] - p[0], lexicon: lexicalCue(text, input.language).score, ...(o.keepVectors ? { vector } : {}) };
    }),
  );
}

/** The score of a message's readings; a message with nothing to read (only whitespace) is Neutral, 0. */
export function scoreReadings(readings: readonly SegmentReading[], model: SentimentModel = localModel()): SentimentScore {
  if (readings.length === 0) return { sentiment: 0, label: 'Neutral' };
  return scoreOf(rawValue(readings, model.lexiconWeight), model);
}

export async function scoreLocal(deps: LocalDeps, input: SentimentInput, model: SentimentModel = localModel()): Promise<SentimentScore> {
  const [readings] = await readMessages(deps, [input], model);
  return scoreReadings(readings, model);
}
