/**
 * Fitting a prompt into a chat model's context window, by tokens, without the model's tokenizer
 * (a hosted model's is not ours to run, and each model has its own).
 *
 * `estimateTokens` leans high on purpose: a letter costs 0.3 of a token (English prose runs about
 * 4 characters a token in BPE and SentencePiece vocabularies), a digit or a punctuation mark a whole
 * one (vocabularies split numbers and symbol runs finely), a non-ASCII character of the Basic
 * Multilingual Plane one (accented Latin, Cyrillic, CJK: at most about one token each), and a
 * character beyond it (emoji, rare scripts) four, its UTF-8 bytes (byte fallback). One pass over the
 * code points: linear in the text.
 */

/** What a character costs at most, by the rules above. */
function charTokens(cp: number): number {
  if (cp >= 0x10000) return 4;
  if (cp >= 0x80) return 1;
  if ((cp >= 0x61 && cp <= 0x7a) || (cp >= 0x41 && cp <= 0x5a)) return 0.3;
  if (cp === 0x20 || cp === 0x0a || cp === 0x09 || cp === 0x0d) return 0.1;
  return 1;
}

/** The tokens `text` is estimated to take (rounded up). */
export function estimateTokens(text: string): number {
  let n = 0;
  for (const ch of text) n += charTokens(ch.codePointAt(0)!);
  return Math.ceil(n);
}

/**
 * The longest prefix of `text` (whole code points) whose code points cost `budget` or less by
 * `cost`, which is at most `maxCost` a code point. Returns `text` itself when it fits.
 */
export function prefixWithin(
  text: string,
  o: { budget: number; cost: (cp: number) => number; maxCost: number },
): string {
  if (o.budget <= 0) return '';
  // Fast path: every code point is one UTF-16 unit or two, and costs at most maxCost.
  if (text.length * o.maxCost <= o.budget) return text;
  let used = 0;
  let end = 0;
  for (const ch of text) {
    used += o.cost(ch.codePointAt(0)!);
    if (used > o.budget) break;
    end += ch.length;
  }
  return end === text.length ? text : text.slice(0, end);
}

/** The longest prefix of `text` (whole code points) estimated at `tokens` or fewer. */
export const fitTokens = (text: string, tokens: number) =>
  prefixWithin(text, { budget: tokens, cost: charTokens, maxCost: 4 });

/** The longest suffix of `text` (whole code points) estimated at `tokens` or fewer. */
export function fitTokensFromEnd(text: string, tokens: number): string {
  if (tokens <= 0) return '';
  if (text.length * 4 <= tokens) return text;
  let used = 0;
  let start = text.length;
  while (start > 0) {
    // A surrogate pair: the code point starts one unit earlier.
    const low = text.charCodeAt(start - 1);
    const high = start >= 2 ? text.charCodeAt(start - 2) : 0;
    const width = low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff ? 2 : 1;
    used += charTokens(text.codePointAt(start - width)!);
    if (used > tokens) break;
    start -= width;
  }
  return text.slice(start);
}

const ELLIPSIS = ' […] ';

/** `text` whole when it fits `tokens`, else its start (a third) and its end, joined by […]. */
export function headAndTail(text: string, tokens: number): string {
  if (estimateTokens(text) <= tokens) return text;
  const room = Math.max(0, tokens - estimateTokens(ELLIPSIS));
  const head = fitTokens(text, Math.floor(room / 3));
  const tail = fitTokensFromEnd(text, room - estimateTokens(head));
  return `${head}${ELLIPSIS}${tail}`;
}

/** Tokens each message costs beyond its text (role markers, separators), in every chat template we know. */
const PER_MESSAGE_TOKENS = 8;

/**
 * The tokens left for a call's data: the context window, less the reply's bound, the system
 * message and the framing. Never below zero.
 */
export function dataBudget(o: { contextTokens: number; maxTokens: number; system: string }): number {
  return Math.max(0, o.contextTokens - o.maxTokens - estimateTokens(o.system) - 2 * PER_MESSAGE_TOKENS);
}

/**
 * The JSON of `build(room)`, estimated at `budget` tokens or fewer: `build` fits its variable
 * parts (sources, messages) into `room` tokens, and `room` shrinks by what the estimate of the
 * whole (JSON escapes, keys, the fixed parts) says is over, at most a few times; the last try
 * gives `build` no room at all.
 */
export function fitJson(budget: number, build: (room: number) => unknown): string {
  let room = budget;
  for (let attempt = 0; ; attempt++) {
    const json = JSON.stringify(build(room));
    const used = estimateTokens(json);
    if (used <= budget || room === 0) return json;
    room = attempt >= 3 ? 0 : Math.max(0, Math.floor(room - (used - budget) * 1.1) - 1);
  }
}
