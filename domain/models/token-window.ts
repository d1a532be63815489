/**
 * Cuts a text so that it fits the embedding model's input window, without the model's tokenizer.
 *
 * The bound: E5's tokenizer (XLM-R SentencePiece, unigram) first normalises each code point
 * (NFKC, which turns a few code points into several, e.g. U+FDFA into 18), then splits the
 * normalised text into pieces of at least one code point each, after a leading word marker.
 * So a text never has more tokens than 1 + the code points of its per-code-point NFKC form, and
 * the window holds `maxTokens` tokens including <s> and </s>. We keep the longest prefix whose
 * bound fits: this is exact for a text of emoji or rare symbols (one token each) and cuts ordinary
 * prose early (about 4 characters make one token there), at about 500 characters for a window of
 * 512, whatever the language.
 */

import { prefixWithin } from './prompt-budget';

const SPECIAL_TOKENS = 2; // <s> and </s>
const WORD_MARKER = 1; // the metaspace SentencePiece puts in front of the text

/** Tokens one code point can become at most: the code points of its NFKC form (at least 1). */
export function codePointTokenBound(cp: number): number {
  if (cp < 0xa0) return 1; // ASCII and C1 controls: NFKC leaves them as they are
  let n = 0;
  for (const _ of String.fromCodePoint(cp).normalize('NFKC')) n += 1;
  return Math.max(1, n);
}

/** An upper bound of the tokens (content only, no <s>/</s>) the model makes of `text`. */
export function tokenBound(text: string): number {
  let n = WORD_MARKER;
  for (const ch of text) n += codePointTokenBound(ch.codePointAt(0)!);
  return n;
}

/**
 * The longest prefix of `text` (whole code points) that, after `prefix` (the "query: " the server
 * adds), fits `maxTokens` by the bound above. Returns `text` itself when it fits.
 */
export function truncateToWindow(text: string, o: { maxTokens: number; prefix: string }): string {
  const budget = o.maxTokens - SPECIAL_TOKENS - tokenBound(o.prefix);
  // A code point bounds at most 18 tokens (U+FDFA).
  return prefixWithin(text, { budget, cost: codePointTokenBound, maxCost: 18 });
}
