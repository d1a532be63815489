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
const TITLES = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'st',
  'sr',
  'jr',
  'capt',
  'lt',
  'col',
  'sgt',
  'gen',
  'gov',
  'sen',
  'rep',
  'mt',
  'ft',
  'hon',
  'messrs',
  'mme',
  'vs',
  'v',
  'fig',
  'figs',
  'vol',
  'pp',
]);
/** Abbreviations that end a sentence only when a capitalised word follows. */
const ABBREVIATIONS = new Set([
  'e.g',
  'i.e',
  'etc',
  'cf',
  'al',
  'u.s',
  'u.k',
  'u.n',
  'a.m',
  'p.m',
  'ph.d',
  'd.c',
  'n.y',
  'l.a',
  'viz',
  'ca',
  'approx',
  'misc',
  'inc',
  'ltd',
  'co',
  'corp',
  'dept',
  'est',
  'ed',
  'eds',
  'jan',
  'feb',
  'apr',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
]);

/**
 * The sentences of a text, approximating NLTK's Punkt tokenizer as IFEval uses it: a break follows
 * `.`, `?` or `!` (and any closing quotes or brackets) when white space and another token follow;
 * line breaks alone never end a sentence. No break after a known abbreviation, a single-letter
 * initial, a number or an ellipsis unless the next word is capitalised (titles such as Dr. never break).
 */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (const t of sentenceEnds(text)) {
    const { before, marks, next } = t;
    const word = before.replace(/^["'“‘([*_]+/u, '').toLowerCase();
    const nextUpper = /\p{Lu}/u.test(next) || /^["'“‘([*#]*\p{Lu}/u.test(next);
    const nextLower = /^["'“‘([*]*\p{Ll}/u.test(next);
    let brk = true;
    if (marks.endsWith('.') && !/[?!]/.test(marks)) {
      if (marks.length >= 2)
        brk = nextUpper; // ellipsis
      else if (TITLES.has(word)) brk = false;
      else if (word === 'no') brk = !/^\d/.test(next);
      else if (ABBREVIATIONS.has(word)) brk = nextUpper;
      else if (/^\p{L}$/u.test(word) && word !== 'i')
        brk = false; // an initial
      else if (/^[-+]?[.,]?\d[\d,.-]*$/.test(word))
        brk = !nextLower; // a number or list index
      else if (/^(?:\p{L}\.)+\p{L}$/u.test(word)) brk = nextUpper; // acronyms such as U.S
    }
    if (!brk) continue;
    const end = t.end;
    const sentence = text.slice(start, end).trim();
    if (sentence) out.push(sentence);
    start = end;
  }
  const rest = text.slice(start).trim();
  if (rest) out.push(rest);
  return out;
}

export const countSentences = (text: string): number => splitSentences(text).length;

const CLOSERS = new Set(['"', "'", '”', '’', ')', ']', '*', '_']);
const MARKS = new Set(['.', '?', '!']);

/**
 * The tokens (runs of non-space) that end in `.`, `?` or `!` and closing quotes or brackets, with
 * white space and another token after them: the word before the marks, the marks, where the token
 * ends and the next token's first character. What `/(\S*?)([.?!]+)(["'”’)\]*_]*)(?=\s+(\S))/gu`
 * finds, read from each token's end instead of retried at each of its characters.
 */
function* sentenceEnds(text: string): Generator<{ before: string; marks: string; end: number; next: string }> {
  for (const m of text.matchAll(/(?<!\S)\S+(?=\s+(\S))/gu)) {
    const token = m[0];
    let i = token.length;
    while (i > 0 && CLOSERS.has(token[i - 1])) i -= 1;
    const marksEnd = i;
    while (i > 0 && MARKS.has(token[i - 1])) i -= 1;
    if (i === marksEnd) continue;
    yield { before: token.slice(0, i), marks: token.slice(i, marksEnd), end: m.index + token.length, next: m[1] };
  }
}

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
  (text.match(/^[^\S\n\r\u2028\u2029]*\*[^*].*$/gm)?.length ?? 0) +
  (text.match(/^[^\S\n\r\u2028\u2029]*-.*$/gm)?.length ?? 0);

/** Highlighted sections: `*text*` and `**text**` with some non-blank text inside. */
export function countHighlights(text: string): number {
  const single = (text.match(/\*[^\n*]*\*/g) ?? []).filter((h) => h.replace(/^\*+|\*+$/g, '').trim()).length;
  const double = (text.match(/\*\*[^\n*]*\*\*/g) ?? []).filter((h) => h.slice(2, -2).trim()).length;
  return single + double;
}

/**
 * Placeholders in square brackets such as `[address]`, counted as `/\[.*?\]/g` counts them: each
 * ends at a `]` whose nearest bracket before it on its line is a `[`, which is found without
 * rescanning the line from every `[`.
 */
export const countPlaceholders = (text: string): number => text.match(/\[[^[\]\n\r\u2028\u2029]*\]/g)?.length ?? 0;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Sections introduced by `marker` followed by a number (`SECTION 1`), case-sensitive like IFEval. */
export const countSections = (text: string, marker: string): number =>
  text.split(new RegExp(`\\s?${escapeRegExp(marker)}\\s?\\d+\\s?`)).length - 1;

/**
 * The first title wrapped in double angular brackets (`<<title>>`) with some text inside. As
 * `/<<[^\n]+>>/g` reads a line: from its first `<<` to its last `>>`, found without rescanning
 * the line from every `<<`.
 */
export function findTitle(text: string): string | undefined {
  for (const line of text.split('\n')) {
    const open = line.indexOf('<<');
    const close = line.lastIndexOf('>>');
    if (open < 0 || close < open + 3) continue;
    const title = line
      .slice(open, close + 2)
      .replace(/^<+/, '')
      .replace(/(?<!>)>+$/, '')
      .trim();
    if (title) return title;
  }
  return undefined;
}

/** Occurrences of a keyword, case-insensitive, inside longer words too (IFEval's count). */
export const countOccurrences = (text: string, keyword: string): number =>
  keyword ? (text.match(new RegExp(escapeRegExp(keyword), 'gi'))?.length ?? 0) : 0;

/** Whether a word or phrase occurs as a whole word (case-insensitive). */
export const containsWord = (text: string, word: string): boolean =>
  new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(word)}(?![\\p{L}\\p{N}_])`, 'iu').test(text);

/** Characters of a text its language is told from: all of a text up to this size, else LANGUAGE_SAMPLE.pieces spread over it. */
export const LANGUAGE_SAMPLE = { chars: 20_000, pieces: 10 };

/**
 * What a text's language is told from: the whole text when it is short, else evenly spread pieces
 * of it, each cut at a space (the detector reads a few thousand characters as well as a megabyte,
 * at a fraction of the cost).
 */
export function languageSample(text: string): string {
  if (text.length <= LANGUAGE_SAMPLE.chars) return text;
  const size = Math.floor(LANGUAGE_SAMPLE.chars / LANGUAGE_SAMPLE.pieces);
  const step = (text.length - size) / (LANGUAGE_SAMPLE.pieces - 1);
  return Array.from({ length: LANGUAGE_SAMPLE.pieces }, (_, i) => {
    const piece = text.slice(Math.round(i * step), Math.round(i * step) + size);
    const first = i === 0 ? 0 : piece.search(/\s/) + 1;
    const last = i === LANGUAGE_SAMPLE.pieces - 1 ? piece.length : piece.search(/\s\S*$/);
    return piece.slice(first, last > first ? last : piece.length);
  }).join('\n');
}

/** Whether a keyword occurs anywhere, case-insensitive (IFEval's keyword existence check). */
export const containsText = (text: string, keyword: string): boolean =>
  text.toLowerCase().includes(keyword.toLowerCase());

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
  // IFEval's patterns are `\s*p\.\s?p\.\s?s.*$` and `\s*p\.\s?s\..*$` (multiline): their leading
  // `\s*` and trailing `.*$` always match, and left in they cost a pass per blank character.
  if (/^p\.?\s?p\.?\s?s\.?$/.test(m)) return /p\.\s?p\.\s?s/.test(lower);
  if (/^p\.?\s?s\.?$/.test(m)) return /p\.\s?s\./.test(lower);
  return lower.includes(m);
}
