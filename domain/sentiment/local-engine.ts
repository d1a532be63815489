/**
 * The local sentiment engine: no model service beyond the embedding server.
 *
 * 1. The message is cleaned of links and @handles (a handle such as @united says nothing about
 *    the mood but moves the embedding), and a long one is cut into segments the embedding model
 *    reads whole (at most MAX_SEGMENTS, spread over the text, so the end of a long conversation
 *    counts as much as its start).
 * 2. Each segment gets its E5 query embedding and a three-class logistic regression over it gives
 *    P(negative), P(neutral), P(positive); the embedding's reading is P(positive) - P(negative).
 *    An English message, when the English encoder (the tag model's, TAG_EMBEDDINGS_URL) is
 *    configured, is read a second time: a second regression over the encoder's vector of the same
 *    segment, and the embedding's reading becomes (1 - e) · E5's + e · the encoder's.
 * 3. The lexicon (lexicon.ts) reads the same segment word by word, -1..1.
 * 4. raw = (1 - w) · embedding reading + w · lexicon reading, averaged over the segments by
 *    length, and mapped onto the -100..100 scale with the cut points (levels.ts).
 *
 * The weights, `w`, `e` and the cut points are in model.json, which scripts/train-sentiment.ts
 * writes: the classifiers are trained on the examples written for this project (examples.ts),
 * `w`, `e` and the cut points are tuned on TweetEval's validation split only. The English reading
 * has its own `w` and cut points; every other message (and every message when the encoder is not
 * configured) is scored with E5's reading alone. Everything is deterministic.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Embedder } from '../models/embeddings';
import type { SearchPhase } from '../timings';
import { type LinearModel, predict } from './classifier';
import { lexicalCue } from './lexicon';
import { type CutPoints, labelFor, scoreFromRaw, type SentimentLabel } from './levels';

/** How readings combine into the raw value, and where its cut points are. */
export interface Mix {
  /** Weight of the lexicon's reading in the raw value, 0..1. */
  lexiconWeight: number;
  /** Weight of the English encoder's reading in the embedding's, 0..1 (0: E5 alone). */
  englishWeight: number;
  cuts: CutPoints;
}

/** The second reading of English messages: a regression over the English encoder's vectors. */
export interface EnglishReading extends LinearModel, Mix {
  /** The encoder the weights were trained on (TAG_EMBEDDINGS_MODEL). */
  encoder: string;
}

/** What scripts/train-sentiment.ts writes to model.json. */
export interface SentimentModel extends LinearModel {
  format: 1;
  /** The embedding model the weights were trained on (EMBEDDINGS_MODEL). */
  embeddingModel: string;
  /** Weight of the lexicon's reading in the raw value of E5's reading alone, 0..1. */
  lexiconWeight: number;
  cuts: CutPoints;
  /** English messages, when the encoder is configured; absent in a model trained without it. */
  english?: EnglishReading;
  training: Record<string, unknown>;
  tuning: Record<string, unknown>;
}

const isLinear = (m: LinearModel) =>
  m.weights?.length === 3 &&
  m.weights[0]?.length > 0 &&
  m.weights.every((w) => w.length === m.weights[0].length && w.every(Number.isFinite)) &&
  m.bias?.length === 3 &&
  m.bias.every(Number.isFinite);
const isWeight = (w: number) => w >= 0 && w <= 1;
const isCuts = (c: CutPoints | undefined) => !!c && c.negative <= c.positive;

export const MODEL_FILE = path.join(__dirname, 'model.json');

let loaded: SentimentModel | undefined;

/** The shipped model (model.json), read and checked once per process. */
export function localModel(): SentimentModel {
  if (loaded) return loaded;
  let model: SentimentModel;
  try {
    model = JSON.parse(fs.readFileSync(MODEL_FILE, 'utf8'));
  } catch (err) {
    throw new Error(
      `the local sentiment model ${MODEL_FILE} cannot be read (npm run sentiment:train writes it): ${(err as Error).message}`,
    );
  }
  const english = model.english;
  const valid =
    model.format === 1 &&
    isLinear(model) &&
    isWeight(model.lexiconWeight) &&
    isCuts(model.cuts) &&
    (!english ||
      (typeof english.encoder === 'string' &&
        isLinear(english) &&
        isWeight(english.lexiconWeight) &&
        isWeight(english.englishWeight) &&
        isCuts(english.cuts)));
  if (!valid)
    throw new Error(
      `the local sentiment model ${MODEL_FILE} is not a format-1 model file; run npm run sentiment:train`,
    );
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
    const sentenceEnd = Math.max(
      window.lastIndexOf('. '),
      window.lastIndexOf('! '),
      window.lastIndexOf('? '),
      window.lastIndexOf('\n'),
    );
    const cut =
      sentenceEnd > maxChars / 2
        ? sentenceEnd + 1
        : window.lastIndexOf(' ') > maxChars / 2
          ? window.lastIndexOf(' ')
          : maxChars;
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
  /** P(positive) - P(negative) of the English classifier, when the segment was read by it. */
  english?: number;
  /** The lexicon's reading, -1..1. */
  lexicon: number;
  /** The segment's embedding, when asked for (the benchmark's diagnostics). */
  vector?: number[];
}

/** The raw value, -1..1, of a message's segment readings (an English weight applies to segments read in English). */
export function rawValue(readings: readonly SegmentReading[], mix: Omit<Mix, 'cuts'>): number {
  const total = readings.reduce((a, r) => a + r.chars, 0);
  if (total === 0) return 0;
  const embedding = (r: SegmentReading) =>
    r.english === undefined ? r.embedding : (1 - mix.englishWeight) * r.embedding + mix.englishWeight * r.english;
  return readings.reduce(
    (a, r) => a + (r.chars / total) * ((1 - mix.lexiconWeight) * embedding(r) + mix.lexiconWeight * r.lexicon),
    0,
  );
}

/** The mix a message's readings are scored with: the English one when every segment was read in English. */
export function mixOf(readings: readonly SegmentReading[], model: SentimentModel): Mix {
  if (model.english && readings.length > 0 && readings.every((r) => r.english !== undefined)) return model.english;
  return { lexiconWeight: model.lexiconWeight, englishWeight: 0, cuts: model.cuts };
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
  /** The English encoder (TAG_EMBEDDINGS_URL), when configured: English messages are read by it too. */
  english?: Embedder;
  tenant?: string;
  signal?: AbortSignal;
  timings?: Partial<Record<SearchPhase, number>>;
}

export interface SentimentInput {
  message: string;
  /** ISO 639-1 code: picks the lexicon's language (English entries always apply). */
  language: string;
}

/** `english` when it is the encoder `model`'s English reading was trained on, else undefined (English is then read by E5 alone). */
export function englishEncoderFor(english: Embedder | undefined, model: SentimentModel): Embedder | undefined {
  return model.english && english?.model === model.english.encoder ? english : undefined;
}

/** P(positive) - P(negative) of a linear model's reading of a vector. */
function polarity(model: LinearModel, vector: readonly number[]): number {
  const p = predict(model, vector);
  return p[2] - p[0];
}

/** What the engine reads of a message before its embeddings (pure CPU work: the API runs it on a CPU thread, domain/cpu). */
export interface MessageText {
  segments: string[];
  /** The lexicon's reading of each segment, -1..1. */
  lexicon: number[];
}

/** A message's segments and their lexicon readings in its language. */
export function readMessageText(input: SentimentInput): MessageText {
  const parts = segments(cleanMessage(input.message));
  return { segments: parts, lexicon: parts.map((s) => lexicalCue(s, input.language).score) };
}

/**
 * The segment readings of several messages, with one embedding call for all their segments (the
 * benchmark sends batches, the API one message). Segments are embedded as E5 queries; those of
 * English messages also by the English encoder, at the same time, when it is configured. `texts`,
 * one per input, are the messages already read (readMessageText, on a CPU thread); without them
 * they are read here.
 */
export async function readMessages(
  deps: LocalDeps,
  inputs: readonly SentimentInput[],
  model: SentimentModel = localModel(),
  o: { keepVectors?: boolean; texts?: readonly MessageText[] } = {},
): Promise<SegmentReading[][]> {
  const read = o.texts ?? inputs.map(readMessageText);
  const perMessage = read.map((t) => t.segments);
  const texts = perMessage.flat();
  const encoder = englishEncoderFor(deps.english, model);
  const inEnglish = encoder ? perMessage.flatMap((segs, m) => (inputs[m].language === 'en' ? segs : [])) : [];
  const started = performance.now();
  const embed = (embedder: Embedder, batch: string[]) =>
    batch.length
      ? embedder.embed({ texts: batch, inputType: 'query', tenant: deps.tenant, signal: deps.signal })
      : Promise.resolve([]);
  const [vectors, englishVectors] = await Promise.all([
    embed(deps.embedder, texts),
    encoder ? embed(encoder, inEnglish) : [],
  ]);
  if (deps.timings) deps.timings.embed = performance.now() - started;
  let next = 0;
  let nextEnglish = 0;
  return inputs.map((input, m) =>
    perMessage[m].map((text, s) => {
      const vector = vectors[next++];
      const english =
        encoder && input.language === 'en' ? polarity(model.english!, englishVectors[nextEnglish++]) : undefined;
      return {
        chars: text.length,
        embedding: polarity(model, vector),
        ...(english === undefined ? {} : { english }),
        lexicon: read[m].lexicon[s],
        ...(o.keepVectors ? { vector } : {}),
      };
    }),
  );
}

/** The score of a message's readings; a message with nothing to read (only whitespace) is Neutral, 0. */
export function scoreReadings(
  readings: readonly SegmentReading[],
  model: SentimentModel = localModel(),
): SentimentScore {
  if (readings.length === 0) return { sentiment: 0, label: 'Neutral' };
  const mix = mixOf(readings, model);
  return scoreOf(rawValue(readings, mix), mix);
}

/** The local engine's score of a message; `text`, when given, is the message already read (readMessageText). */
export async function scoreLocal(
  deps: LocalDeps,
  input: SentimentInput,
  model: SentimentModel = localModel(),
  text?: MessageText,
): Promise<SentimentScore> {
  const [readings] = await readMessages(deps, [input], model, { texts: text && [text] });
  return scoreReadings(readings, model);
}
