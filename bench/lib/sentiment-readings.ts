/**
 * Segment readings of labelled texts by the local sentiment engine, in batches, as the API reads
 * them: shared by the benchmark (bench/sentiment.ts) and the training (scripts/train-sentiment.ts).
 */
import type { Embedder } from '../../domain/models/embeddings';
import { messageLanguage } from '../../domain/sentiment/analyze';
import { readMessages, type SegmentReading, type SentimentModel } from '../../domain/sentiment/local-engine';
import { chunks } from './api-client';
import { progress } from './progress';
import type { LabelledText } from './sentiment';

/** Messages per embedding call. */
const BATCH = 16;

/** The encoders a reading uses: E5, and the English encoder when configured. */
export interface Encoders {
  embedder: Embedder;
  english?: Embedder;
}

/** Segment readings of labelled texts under `model`, in batches, with the request language the API would pick. */
export async function readAll(
  encoders: Encoders,
  model: SentimentModel,
  items: readonly LabelledText[],
  label: string,
  o: { keepVectors?: boolean } = {},
): Promise<SegmentReading[][]> {
  const bar = progress(label, items.length, { every: 1000 });
  const out: SegmentReading[][] = [];
  for (const batch of chunks(items, BATCH)) {
    out.push(
      ...(await readMessages(
        encoders,
        batch.map((t) => ({ message: t.text, language: messageLanguage(undefined, t.text) })),
        model,
        o,
      )),
    );
    bar.tick(batch.length);
  }
  bar.stop();
  return out;
}
