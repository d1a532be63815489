/**
 * The language of a request: the client's `X-Language-Iso-Code`, else the language its text
 * shows, else a default (the tenant's, where the endpoint knows one, else English).
 *
 * tinyld names a language for almost any text, even for a few words that belong to none
 * ("flux capacitor broken quantum widget" comes out Italian), and a single word it knows from one
 * language only ("top-up" is Tagalog to it) makes it sure. So its answer counts only when the
 * text backs it: for text in the Latin script, the function words (the `stopword` package's
 * lists) of its language must outnumber the English ones (more English ones make it English);
 * with as many of each, or none at all, tinyld's own score must reach `LANGUAGE_MIN_SCORE`. In
 * other scripts tinyld's answer stands, as the script mostly tells. `npm run bench:language`
 * measures the rule and chooses the score on public short texts (docs/benchmarks.md).
 */
import * as stopword from 'stopword';
import { detectAll, toISO3 } from 'tinyld';

/**
 * The least tinyld score its language needs when the function words do not decide; chosen by
 * bench:language (bench/results/language.json, `chosen.min_score`).
 */
export const LANGUAGE_MIN_SCORE = 0.25;

/** Enough of a text to tell its language; the rest only costs time. */
const MAX_CHARS = 2000;

const WORD = /\p{L}+(?:'\p{L}+)*/gu;

const functionWordLists = new Map<string, ReadonlySet<string>>();

/** The function words of a language (ISO 639-1), empty when the stopword package has no list. */
function functionWords(code: string): ReadonlySet<string> {
  let words = functionWordLists.get(code);
  if (!words) {
    const iso3: string = toISO3(code);
    const list = (stopword as unknown as Record<string, unknown>)[iso3 === 'cmn' ? 'zho' : iso3];
    words = new Set(Array.isArray(list) ? (list as string[]) : []);
    functionWordLists.set(code, words);
  }
  return words;
}

/** Whether most of the text's letters are Latin ones. */
function mostlyLatin(text: string): boolean {
  let letters = 0;
  let latin = 0;
  for (const ch of text.matchAll(/\p{L}/gu)) {
    letters += 1;
    if (/\p{Script=Latin}/u.test(ch[0])) latin += 1;
  }
  return latin * 2 > letters;
}

const count = (words: readonly string[], list: ReadonlySet<string>) => words.filter((w) => list.has(w)).length;

/** What a text shows of its language: tinyld's best guess and what backs it. */
export interface LanguageEvidence {
  /** tinyld's most likely language (ISO 639-1) and its score (0 to 1). */
  lang: string;
  score: number;
  /** Whether most letters are Latin ones: only then do the function words decide. */
  latin: boolean;
  /** How many of the text's words are function words of `lang`, and of English (0 when `lang` is English). */
  own: number;
  english: number;
}

/** The evidence of a text's language; undefined when tinyld names none (no letters, say). */
export function languageEvidence(text: string): LanguageEvidence | undefined {
  const sample = text.slice(0, MAX_CHARS);
  const top = detectAll(sample)[0];
  if (!top) return undefined;
  const latin = mostlyLatin(sample);
  const words = latin ? (sample.toLowerCase().replace(/’/g, "'").match(WORD) ?? []) : [];
  return {
    lang: top.lang,
    score: top.accuracy,
    latin,
    own: count(words, functionWords(top.lang)),
    english: top.lang === 'en' ? 0 : count(words, functionWords('en')),
  };
}

/** The language the evidence shows, or undefined when it is not clear enough (module comment). */
export function decideLanguage(e: LanguageEvidence | undefined, minScore = LANGUAGE_MIN_SCORE): string | undefined {
  if (!e) return undefined;
  if (!e.latin || e.own > e.english) return e.lang;
  if (e.english > e.own) return 'en';
  return e.score >= minScore ? e.lang : undefined;
}

/**
 * The ISO 639-1 code of the language the text shows, or undefined when it does not show one
 * clearly enough (then the caller's default applies).
 */
export const textLanguage = (text: string): string | undefined => decideLanguage(languageEvidence(text));

/** The language code of `X-Language-Iso-Code` (`en-US` → `en`), or undefined when absent. */
export const headerLanguage = (header: unknown): string | undefined =>
  typeof header === 'string' ? header.toLowerCase().split(/[-_]/)[0] || undefined : undefined;

/** The header's language, else the one the text shows; undefined when neither tells. */
export const statedLanguage = (o: { header: unknown; text: string }): string | undefined =>
  headerLanguage(o.header) ?? textLanguage(o.text);

/** The request language: the header's, else the one the text shows, else `fallback` (English). */
export const requestLanguage = (o: { header: unknown; text: string; fallback?: string }): string =>
  statedLanguage(o) ?? o.fallback ?? 'en';
