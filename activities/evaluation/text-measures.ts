/**
 * Measurements of a response's text for the built-in judge. They follow the counting rules of the
 * IFEval checker (Zhou et al. 2023, instruction_following_eval/instructions.py) so that a rule
 * graded here agrees with its reference verdicts: words are runs of letters, digits and `_`;
 * sentences end at `.`, `?` or `!` followed by white space (a Punkt-like approximation that keeps
 * abbreviations, initials and list numbers inside their sentence); keyword matching ignores case.
 */

/** Words as IFEval counts them: runs of letters, digits and underscores. */
export const countWords = (text: string): number => text.match(/[\p{L}\p{N}_]+/gu)?.length ?? 0;

/** Abbreviations before a name, after which a period never ends a sentence (Dr. Smith). */
const TITLES = new Set(['mr', 'mrs', 'ms', 'dr', 'prof', 'st', 'sr', 'jr', 'capt', 'lt', 'col', 'sgt', 'gen', 'gov', 'sen', 'rep', 'mt', 'ft', 'hon', 'messrs', 'mme', 'vs', 'v', 'fig', 'figs', 'vol', 'pp']);
/** Abbreviations that end a sentence only when a capitalised word follows. */
const ABBREVIATIONS = new Set(['e.g', 'i.e', 'etc', 'cf', 'al', 'u.s', 'u.k', 'u.n', 'a.m', 'p.m', 'ph.d', 'd.c', 'n.y', 'l.a', 'viz', 'ca', 'approx', 'misc', 'inc', 'ltd', 'co', 'corp', 'dept', 'est', 'ed', 'eds', 'jan', 'feb', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec']);

/**
 * The sentences of a text, approximating NLTK's Punkt tokenizer as IFEval uses it: a break follows
 * `.`, `?` or `!` (and any closing quotes or brackets) when white space and another token follow;
 * line breaks alone never end a sentence. No break after a known abbreviation, a single-letter
 * initial, a number or an ellipsis unless the next word is capitalised (titles such as Dr. never break).
 */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  const re = /(\S*?)([.?!]+)(["'”’)\]*_]*)(?=\s+(\S))/gu;
  let start = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const [, before, marks, , ] = m;
    const next = m[4];
    const word = before.replace(/^["'“‘(\[*_]+/u, '').toLowerCase();
    const nextUpper = /\p{Lu}/u.test(next) || /^["'“‘(\[*#]*\p{Lu}/u.test(next);
    const nextLower = /^["'“‘(\[*]*\p{Ll}/u.test(next);
    let brk = true;
    if (marks.endsWith('.') && !/[?!]/.test(marks)) {
      if (marks.length >= 2) brk = nextUpper; // ellipsis
      else if (TITLES.has(word)) brk = false;
      else if (word === 'no') brk = !/^\d/.test(next);
      else if (ABBREVIATIONS.has(word)) brk = nextUpper;
      else if (/^\p{L}$/u.test(word) && word !== 'i') brk = false; // an initial
      else if (/^[-+]?[.,]?\d[\d,.\-]*$/.test(word)) brk = !nextLower; // a number or list index
      else if (/^(?:\p{L}\.)+\p{L}$/u.test(word)) brk = nextUpper; // acronyms such as U.S
    }
    if (!brk) continue;
    const end = m.index + m[0].length;
    const sentence = text.slice(start, end).trim();
    if (sentence) out.push(sentence);
    start = end;
  }
  const rest = text.slice(start).trim();
  if (rest) out.push(rest);
  return out;
}

export const countSentences = (text: string): number => splitSentences(text).length;

/** Paragraphs separated by the markdown divider `***`; undefined when an empty paragraph sits between two dividers. */
export function dividerParagraphs(text: string): number | undefined {
  const parts = text.split(/\s?\*\*\*\s?/);
  let n = parts.length;
  for (let i = 0; i < parts.length; i++) {
    if (parts[i].trim()) continue;
    if (i === 0 || i === parts.length - 1) n -= 1;
    else return undefined;
  }
  return n;
}

/** Paragraphs separated by a blank line (`\n\n`), empty ones left out. */
export const blankLineParagraphs = (text: string): string[] => text.split(/\n\n/).filter((p) => p.trim());

/** The first word of a paragraph, lower-cased, as IFEval reads it (leading quotes dropped, cut at punctuation). */
export function firstWord(paragraph: string): string {
  const word = (paragraph.trim().split(/\s+/)[0] ?? '').replace(/^'+/, '').replace(/^"+/, '');
  let out = '';
  for (const ch of word) {
    if ('.,?!\'"'.includes(ch)) break;
    out += ch.toLowerCase();
  }
  return out;
}

/** Markdown bullet items: lines starting with `*` (not `**`) or `-`. */
export const countBullets = (text: string): number =>
  (text.match(/^\s*\*[^*].*$/gm)?.length ?? 0) + (text.match(/^\s*-.*$/gm)?.length ?? 0);

/** Highlighted sections: `*text*` and `**text**` with some non-blank text inside. */
export function countHighlights(text: string): number {
  const single = (text.match(/\*[^\n*]*\*/g) ?? []).filter((h) => h.replace(/^\*+|\*+$/g, '').trim()).length;
  const double = (text.match(/\*\*[^\n*]*\*\*/g) ?? []).filter((h) => h.slice(2, -2).trim()).length;
  return single + double;
}

/** Placeholders in square brackets such as `[address]`. */
export const countPlaceholders = (text: string): number => text.match(/\[.*?\]/g)?.length ?? 0;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Sections introduced by `marker` followed by a number (`SECTION 1`), case-sensitive like IFEval. */
export const countSections = (text: string, marker: string): number =>
  text.split(new RegExp(`\\s?${escapeRegExp(marker)}\\s?\\d+\\s?`)).length - 1;

/** The first title wrapped in double angular brackets (`<<title>>`) with some text inside. */
export const findTitle = (text: string): string | undefined =>
  (text.match(/<<[^\n]+>>/g) ?? []).map((t) => t.replace(/^<+|>+$/g, '').trim()).find((t) => t);

/** Occurrences of a keyword, case-insensitive, inside longer words too (IFEval's count). */
export const countOccurrences = (text: string, keyword: string): number =>
  keyword ? text.match(new RegExp(escapeRegExp(keyword), 'gi'))?.length ?? 0 : 0;

/** Whether a word or phrase occurs as a whole word (case-insensitive). */
export const containsWord = (text: string, word: string): boolean =>
  new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(word)}(?![\\p{L}\\p{N}_])`, 'iu').test(text);

/** Whether a keyword occurs anywhere, case-insensitive (IFEval's keyword existence check). */
export const containsText = (text: string, keyword: string): boolean => text.toLowerCase().includes(keyword.toLowerCase());

export const countLetter = (text: string, letter: string): number => {
  const l = letter.toLowerCase();
  let n = 0;
  for (const ch of text.toLowerCase()) if (ch === l) n += 1;
  return n;
};

/** Python's str.islower / str.isupper: at least one cased character, all in that case. */
export const isAllLower = (text: string): boolean => text === text.toLowerCase() && text !== text.toUpperCase();
export const isAllUpper = (text: string): boolean => text === text.toUpperCase() && text !== text.toLowerCase();

/** Tokens the way NLTK's word_tokenize splits them, closely enough to count all-capital words. */
export function wordTokens(text: string): string[] {
  return text
    .replace(/\b(can)(not)\b/gi, '$1 $2')
    .replace(/([^\s'’])(n['’]t)\b/gi, '$1 $2')
    .replace(/([^\s'’])(['’](?:s|m|d|ll|re|ve))\b/gi, '$1 $2')
    .replace(/([,;@#$%&?!()[\]{}<>"“”])/g, ' $1 ')
    .split(/\s+/)
    .map((t) => t.replace(/\.$/, ''))
    .filter((t) => t);
}

/** Words in all capital letters (`AI`, `DON'T` counts as DO + N'T, like NLTK's tokens). */
export const capitalWords = (text: string): string[] => wordTokens(text).filter(isAllUpper);

/** Parses JSON the way IFEval does: surrounding markdown code fences are removed first. */
export function parseJsonOutput(text: string): { ok: true } | { ok: false; error: string } {
  let v = text.trim();
  for (const prefix of ['```json', '```Json', '```JSON', '```']) if (v.startsWith(prefix)) v = v.slice(prefix.length);
  if (v.endsWith('```')) v = v.slice(0, -3);
  try {
    JSON.parse(v.trim());
    return { ok: true };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

/** Responses separated by `separator` (six asterisks in IFEval): the non-empty parts, or undefined when an empty part sits inside. */
export function splitTwoResponses(text: string, separator = '******'): string[] | undefined {
  const parts = text.split(separator);
  const valid: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    if (parts[i].trim()) valid.push(parts[i]);
    else if (i !== 0 && i !== parts.length - 1) return undefined;
  }
  return valid;
}

/** Whether a postscript starting with `marker` appears (P.S. and P.P.S tolerate a space after each dot). */
export function hasPostscript(text: string, marker: string): boolean {
  const lower = text.toLowerCase();
  const m = marker.trim().toLowerCase();
  if (/^p\.?\s?p\.?\s?s\.?$/.test(m)) return /\s*p\.\s?p\.\s?s.*$/m.test(lower);
  if (/^p\.?\s?s\.?$/.test(m)) return /\s*p\.\s?s\..*$/m.test(lower);
  return lower.includes(m);
}
