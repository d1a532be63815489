/**
 * ROUGE-1/2/L F1 of a summary against a reference, computed by js-rouge (a maintained ROUGE
 * package) with the plain tokenisation of Google's rouge-score: lower-cased, every character
 * other than a-z and 0-9 a separator, no stemming. ROUGE-L is the longest common subsequence of
 * the whole texts (rouge-score's `rougeL`, not the per-sentence `rougeLsum`).
 *
 * Checked against rouge-score 0.1.2 (use_stemmer=False) on DialogSum test, summary1 (the
 * numbers are in docs/benchmarks.md): LEAD-3 without speaker tags 21.08 ROUGE-1; the repository's
 * BART-large output 43.85 / 20.08 / 37.24. Its README's 45.95 / 21.36 / 38.72 come from stemmed
 * scoring: rouge-score with its Porter stemmer gives 45.91 / 21.32 / 38.71 on the same file.
 * test/unit/summary.test.ts pins a few hand-computed values.
 */
import * as rouge from 'js-rouge';

/** rouge-score's default tokeniser without the stemmer. */
export const rougeTokens = (text: string): string[] =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .filter(Boolean);

export interface RougeScores {
  rouge1: number;
  rouge2: number;
  rougeL: number;
}

const whole = (text: string) => [text];

/** F1 of ROUGE-1, ROUGE-2 and ROUGE-L, each in 0..1; 0 when either side has no token. */
export function rougeScores(candidate: string, reference: string): RougeScores {
  const cand = rougeTokens(candidate);
  const ref = rougeTokens(reference);
  if (cand.length === 0 || ref.length === 0) return { rouge1: 0, rouge2: 0, rougeL: 0 };
  // The tokens joined by spaces: js-rouge's tokeniser option then splits them back exactly.
  const c = cand.join(' ');
  const r = ref.join(' ');
  const tokenizer = (s: string) => s.split(' ').filter(Boolean);
  const ngram = (n: number) => (cand.length < n || ref.length < n ? 0 : rouge.n(c, r, { n, tokenizer }));
  return { rouge1: ngram(1), rouge2: ngram(2), rougeL: rouge.l(c, r, { tokenizer, segmenter: whole }) };
}

/** The mean of each score over a list of score sets. */
export function meanScores(scores: readonly RougeScores[]): RougeScores {
  if (scores.length === 0) throw new Error('mean of no scores');
  const sum = (k: keyof RougeScores) => scores.reduce((a, s) => a + s[k], 0) / scores.length;
  return { rouge1: sum('rouge1'), rouge2: sum('rouge2'), rougeL: sum('rougeL') };
}
