/**
 * Pathological texts for the cost fuzzer (cost-fuzzer.ts): each pattern aims at one parser or
 * pattern of the service (sentence splitting and sentence pairs, word and language statistics,
 * markdown and HTML conversion, passage splitting, the e-mail, phone, card, link and secret
 * detectors, bidi controls). Every generator is deterministic from its random source and returns
 * exactly the number of UTF-16 code units asked for, never a lone surrogate.
 */
import { seeded } from '../../domain/tags/softmax';

/** A random source in [0, 1). */
export type Rng = () => number;

/** FNV-1a over a string: a 32-bit seed for `rng` from a name. */
export function hashSeed(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The same seed gives the same sequence (mulberry32, the tag model's generator). */
export function rng(seed: number | string): Rng {
  return seeded(typeof seed === 'string' ? hashSeed(seed) : seed);
}

const int = (r: Rng, min: number, max: number) => min + Math.floor(r() * (max - min + 1));
const pick = <T>(r: Rng, items: readonly T[]): T => items[Math.floor(r() * items.length)];
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALNUM = `${LETTERS}ABCDEFGHIJKLMNOPQRSTUVWXYZ${DIGITS}`;
const letters = (r: Rng, n: number, alphabet = LETTERS) => {
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(r() * alphabet.length)];
  return s;
};

/** Repeats pieces drawn by `next` until `n` code units, then cuts there (never inside a surrogate pair). */
function fill(n: number, next: () => string): string {
  const parts: string[] = [];
  let length = 0;
  while (length < n) {
    const piece = next();
    parts.push(piece);
    length += piece.length;
  }
  return cut(parts.join(''), n);
}

/** The first `n` code units of `text`, one fewer when that would split a surrogate pair, padded with `a`. */
export function cut(text: string, n: number): string {
  let s = text.slice(0, n);
  const last = s.charCodeAt(s.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) s = s.slice(0, -1);
  return s.padEnd(n, 'a');
}

const repeatUnit = (unit: string) => (_r: Rng, n: number) => cut(unit.repeat(Math.ceil(n / unit.length)), n);

/** Words of a support conversation: sentences made of them share words, which is what sentence comparisons cost. */
const SUPPORT_WORDS = (
  'account order refund payment card password login error update app page screen button email address ' +
  'delivery shipping invoice subscription plan price charge bank transfer reset link code device phone ' +
  'issue problem help support customer agent ticket request reply message week day hour today yesterday ' +
  'please thanks sorry still again never always cannot could would should will not working broken slow ' +
  'fast new old first last same other more less very really just also already tried checked restarted ' +
  'installed removed changed sent received opened closed waiting pending failed declined approved ' +
  'the a an and or but if when then because so to from with without for of in on at by my your our their'
).split(' ');

/** Three letters at random per word: no word is shared on purpose, but over megabytes many are. */
function randomWords(r: Rng, n: number): string {
  return fill(n, () => `${letters(r, 3)} `);
}

/** English-looking sentences of support words, 4 to 16 words each, some paragraphs. */
function randomSentences(r: Rng, n: number): string {
  return fill(n, () => {
    const words = Array.from({ length: int(r, 4, 16) }, () => pick(r, SUPPORT_WORDS));
    words[0] = words[0][0].toUpperCase() + words[0].slice(1);
    return `${words.join(' ')}${pick(r, ['.', '.', '.', '?', '!'])}${r() < 0.1 ? '\n\n' : ' '}`;
  });
}

const SEPARATORS = ['.', '. ', '\n', '\n\n', ',', ';', '!', '?', ' - ', '|', '\t', '...', ':', ' '];
const HTML_PIECES = [
  '<div>',
  '</div>',
  '<p>',
  '</p>',
  '<b>',
  '</i>',
  '<span class="x">',
  '<a href="http://a.b/">',
  '</a>',
  '<table><tr><td>',
  '</td>',
  '<ul><li>',
  '<br>',
  '<img src=x>',
  '<!--',
  '-->',
  '<<',
  '>>',
  '&amp;',
  '&#x27;',
  '&nbsp;',
  '<script>',
  '</style>',
  '<h1>',
  ' text ',
  'word ',
];
const MARKDOWN_PIECES = [
  '# ',
  '## ',
  '\n- ',
  '\n* ',
  '\n> > ',
  '\n```\n',
  '`',
  '[a](http://a.b/)',
  '[a]',
  '(',
  ')',
  '![x](y)',
  '**',
  '__',
  '\n|a|b|\n',
  '\n---\n',
  '\n',
  '\n1. ',
  'word ',
  '[^1]',
  '<http://a.b/>',
];
/** Letters of several scripts, for language detection and per-script word statistics. */
const SCRIPT_RANGES: [number, number][] = [
  [0x61, 0x7a], // Latin
  [0x430, 0x44f], // Cyrillic
  [0x3b1, 0x3c9], // Greek
  [0x627, 0x64a], // Arabic
  [0x5d0, 0x5ea], // Hebrew
  [0x905, 0x939], // Devanagari
  [0xe01, 0xe2e], // Thai
  [0x4e00, 0x9fff], // CJK
  [0xac00, 0xd7a3], // Hangul
];
/** The bidirectional overrides and isolates, and the right-to-left mark. */
const BIDI = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200f'];

function mixedScripts(r: Rng, n: number): string {
  return fill(n, () => {
    const [lo, hi] = pick(r, SCRIPT_RANGES);
    let word = '';
    for (let i = int(r, 2, 8); i > 0; i--) word += String.fromCharCode(int(r, lo, hi));
    return `${word} `;
  });
}

function secrets(r: Rng, n: number): string {
  return fill(n, () =>
    pick(r, [
      () => `password=${letters(r, 10, ALNUM)} `,
      () => `api_key: ${letters(r, 24, ALNUM)} `,
      () => `Bearer ${letters(r, 32, ALNUM)} `,
      () => `AKIA${letters(r, 16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')} `,
      () => `${letters(r, 40, ALNUM)} `,
      () => `postgres://admin:${letters(r, 8, ALNUM)}@db/x `,
    ])(),
  );
}

/** Every pattern, by name. The names appear in the cost fuzzer's case names. */
export const PATTERNS = {
  /** Random three-letter words (the summary that froze the API). */
  'random-words': randomWords,
  /** Sentences of common support words: many sentences sharing words. */
  'random-sentences': randomSentences,
  /** One word, no separator at all. */
  'long-word': (r: Rng, n: number) => letters(r, n),
  /** Only separators: periods, newlines, commas, pipes, tabs, in runs. */
  separators: (r: Rng, n: number) => fill(n, () => pick(r, SEPARATORS)),
  /** Opening brackets only: `[[[[` (the article that held an ingestion slot). */
  brackets: repeatUnit('['),
  /** Markdown emphasis that never closes well: `*a***a**`. */
  emphasis: repeatUnit('*a**'),
  /** E-mail addresses back to back: `a@b.c a@b.c`. */
  emails: repeatUnit('a@b.c '),
  /** Links back to back: `http://a.b/ http://a.b/`. */
  links: repeatUnit('http://a.b/ '),
  /** Phone numbers of varied digits: `+1 (555) 123-4567`. */
  phones: (r: Rng, n: number) =>
    fill(n, () => `+${int(r, 1, 99)} (${letters(r, 3, DIGITS)}) ${letters(r, 3, DIGITS)}-${letters(r, 4, DIGITS)} `),
  /** Groups of four digits without end (card-number candidates everywhere). */
  'digit-groups': repeatUnit('4111 '),
  /** Secrets of every kind the redactor knows, and long random strings. */
  secrets,
  /** Tags opened and closed out of order, comments, entities, unclosed scripts. */
  'html-soup': (r: Rng, n: number) => fill(n, () => pick(r, HTML_PIECES)),
  /** Headings, lists, quotes, fences, links and emphasis in no order. */
  'markdown-soup': (r: Rng, n: number) => fill(n, () => pick(r, MARKDOWN_PIECES)),
  /** Emoji (surrogate pairs): twice the code units, four bytes each in UTF-8. */
  emoji: repeatUnit('😀'),
  /** Words of nine scripts mixed. */
  'mixed-scripts': mixedScripts,
  /** Words between bidi overrides and isolates. */
  'bidi-controls': (r: Rng, n: number) => fill(n, () => `${pick(r, BIDI)}${letters(r, int(r, 1, 6))} `),
  /** One link as long as the text. */
  'long-url': (r: Rng, n: number) => cut(`https://a.b/${letters(r, n)}`, n),
} as const satisfies Record<string, (r: Rng, n: number) => string>;

export type PatternName = keyof typeof PATTERNS;
export const PATTERN_NAMES = Object.keys(PATTERNS) as PatternName[];

/** A text of pattern `name`, exactly `n` code units, from the random source `r`. */
export const patternText = (name: PatternName, r: Rng, n: number): string => PATTERNS[name](r, n);

/** Bytes of a string once written as a JSON string (quotes and escapes included). */
export const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/**
 * A text of pattern `name` of at most `maxChars` code units whose JSON string takes at most
 * `maxJsonBytes` bytes (multi-byte characters and escapes take more than one): the longest such
 * prefix of the pattern, found by bisection on its length.
 */
export function textWithin(name: PatternName, r: Rng, o: { maxChars: number; maxJsonBytes: number }): string {
  // Every code unit takes at least a byte, and the quotes two: no need to draw more than that.
  const full = patternText(name, r, Math.max(0, Math.min(o.maxChars, o.maxJsonBytes - 2)));
  if (jsonBytes(full) <= o.maxJsonBytes) return full;
  let lo = 0;
  let hi = full.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (jsonBytes(cut(full, mid)) <= o.maxJsonBytes) lo = mid;
    else hi = mid - 1;
  }
  return cut(full, lo);
}
