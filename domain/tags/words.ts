/**
 * Word features of a message for the tag model: lower-cased words and word pairs, weighted by
 * TF-IDF (sublinear term frequency) and scaled to unit length. The vocabulary is what the
 * tenant's cases use at least `minDocuments` times, so it stays small and free of one-off noise
 * such as names and order numbers.
 */
import type { SparseVector } from './softmax';

export interface Vocabulary {
  terms: string[];
  /** Inverse document frequency, one per term. */
  idf: number[];
}

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

/** Words and adjacent word pairs of a text. */
export function terms(text: string): string[] {
  const words = (text.toLowerCase().match(WORD) ?? []).map((w) => w.replace(/’/g, "'"));
  const out = [...words];
  for (let i = 1; i < words.length; i++) out.push(`${words[i - 1]} ${words[i]}`);
  return out;
}

/** Terms used by at least `minDocuments` texts; the `maxTerms` most used when there are more. */
export function buildVocabulary(texts: readonly string[], o: { minDocuments: number; maxTerms: number }): Vocabulary {
  const df = new Map<string, number>();
  for (const text of texts) for (const t of new Set(terms(text))) df.set(t, (df.get(t) ?? 0) + 1);
  const byUse = [...df]
    .filter(([, n]) => n >= o.minDocuments)
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
  const kept = byUse.slice(0, Math.max(0, o.maxTerms)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { terms: kept.map(([t]) => t), idf: kept.map(([, n]) => Math.log((1 + texts.length) / (1 + n)) + 1) };
}

/** A lookup from term to its index, built once per vocabulary. */
export const termIndex = (vocabulary: Vocabulary) => new Map(vocabulary.terms.map((t, i) => [t, i]));

export function wordFeatures(
  o: { vocabulary: Vocabulary; index: Map<string, number>; scale: number },
  text: string,
): SparseVector {
  const counts = new Map<number, number>();
  for (const t of terms(text)) {
    const i = o.index.get(t);
    if (i !== undefined) counts.set(i, (counts.get(i) ?? 0) + 1);
  }
  const index = [...counts.keys()].sort((a, b) => a - b);
  const value = index.map((i) => (1 + Math.log(counts.get(i)!)) * o.vocabulary.idf[i]);
  const norm = Math.hypot(...value) || 1;
  return { index, value: value.map((v) => (v / norm) * o.scale) };
}
