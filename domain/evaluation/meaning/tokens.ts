/**
 * A rule's words as the meaning reader sees them: normalised tokens (lower case, no accents), each
 * tagged with the concepts whose phrase starts or ends at it (lexicon.ts), the number it says, if
 * any, and the quoted string it stands for, if it is one. The phrases are indexed by their first
 * word, so tagging a token costs a few lookups, and a phrase is a few tokens long: the work is
 * linear in the rule's length.
 */
import {
  CONCEPTS,
  type Concept,
  FUNCTION_WORDS,
  type Lang,
  LANGUAGES,
  MULTIPLIERS,
  NUMBER_JOINERS,
  NUMBER_WORDS,
  ONE_ARTICLES,
  ORDINAL_WORDS,
} from './lexicon';

/** Lower case, accents removed, ß as ss: how the lexicon is written. */
export const normalise = (s: string): string =>
  s
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss');

export interface Token {
  /** The normalised word, digits, quote slot (`⟦i⟧`) or symbol run. */
  text: string;
  /** The quote it stands for (index into the rule's quotes). */
  quote?: number;
  /** Concepts whose phrase starts here, with the phrase's length in tokens. */
  concepts: Map<Concept, number>;
  /** Concepts whose phrase ends here (at this token, inclusive). */
  ends: Set<Concept>;
  /** The number this token says (digits or number words), and how many tokens it spans. */
  number?: { value: number; span: number; times?: boolean; article?: boolean };
  /** An ordinal ("third", "tercero", "dritte"): 1 to 12. */
  ordinal?: number;
}

type Pattern = { concept: Concept; words: string[] };

/**
 * Phrases indexed by their first word: whole words in a map, prefixes (`word*`) in a map per
 * prefix length, so the phrases that may start at a token are found in a few lookups.
 */
interface PatternIndex {
  exact: Map<string, Pattern[]>;
  prefixes: Map<number, Map<string, Pattern[]>>;
}

function buildIndex(phrases: { concept: Concept; phrase: string }[]): PatternIndex {
  const index: PatternIndex = { exact: new Map(), prefixes: new Map() };
  for (const { concept, phrase } of phrases) {
    const words = phrase.split(' ');
    const pattern = { concept, words };
    const first = words[0];
    let table = index.exact;
    let key = first;
    if (first.endsWith('*')) {
      key = first.slice(0, -1);
      table = index.prefixes.get(key.length) ?? new Map<string, Pattern[]>();
      index.prefixes.set(key.length, table);
    }
    table.set(key, [...(table.get(key) ?? []), pattern]);
  }
  return index;
}

const phrasesOf = (lang: Lang) =>
  (Object.entries(CONCEPTS) as [Concept, Partial<Record<Lang, string[]>>][]).flatMap(([concept, byLang]) =>
    (byLang[lang] ?? []).map((phrase) => ({ concept, phrase })),
  );

const indexes = new Map<string, PatternIndex>();
/** A language's phrases with the English ones (rules borrow "JSON", "markdown", "bullet"), or its own only. */
function indexOf(lang: Lang, o: { own?: boolean } = {}): PatternIndex {
  const key = `${lang}${o.own ? ':own' : ''}`;
  let found = indexes.get(key);
  if (!found) {
    const english = new Set(phrasesOf('en').map((p) => p.phrase));
    const own = phrasesOf(lang).filter((p) => lang === 'en' || !english.has(p.phrase));
    found = buildIndex(o.own || lang === 'en' ? own : [...own, ...phrasesOf('en')]);
    indexes.set(key, found);
  }
  return found;
}

/** The phrases of an index whose first word matches `word`. */
function startingWith(index: PatternIndex, word: string): Pattern[] {
  const out = [...(index.exact.get(word) ?? [])];
  for (const [length, byStem] of index.prefixes)
    if (word.length >= length) out.push(...(byStem.get(word.slice(0, length)) ?? []));
  return out;
}

const matchesWord = (pattern: string, word: string) =>
  pattern.endsWith('*') ? word.startsWith(pattern.slice(0, -1)) : word === pattern;

/** The tokens of a text whose quotes are already replaced by `⟦i⟧`. */
export function tokenise(masked: string): Token[] {
  const out: Token[] = [];
  for (const m of normalise(masked).matchAll(/⟦(\d+)⟧|\d+|\p{L}+|<<|>>|\*+|\[|\]|#|[^\s\p{L}\d]/gu)) {
    const token: Token = { text: m[0], concepts: new Map(), ends: new Set() };
    if (m[1] !== undefined) token.quote = Number(m[1]);
    out.push(token);
  }
  return out;
}

const functionWords = new Map(LANGUAGES.map((lang) => [lang, new Set(FUNCTION_WORDS[lang])]));

/** How many of the tokens are words of a language: its function words and its own rule vocabulary. */
function lexiconHits(tokens: Token[], lang: Lang): number {
  const words = functionWords.get(lang)!;
  const index = indexOf(lang, { own: true });
  return tokens.filter((t) => words.has(t.text) || startingWith(index, t.text).length > 0).length;
}

/**
 * The language of a rule: the one whose words it uses most. English unless another language
 * scores higher: short rules share many words.
 */
export function ruleLanguage(tokens: Token[]): Lang {
  let best: Lang = 'en';
  let bestScore = lexiconHits(tokens, 'en');
  for (const lang of LANGUAGES) {
    if (lang === 'en') continue;
    const score = lexiconHits(tokens, lang);
    if (score > bestScore) [best, bestScore] = [lang, score];
  }
  return best;
}

/**
 * Tags each token with the concepts whose phrase starts at it (the longest phrase per concept)
 * and ends at it. A negation inside an idiom ("sin falta", "without fail") negates nothing.
 */
export function tagConcepts(tokens: Token[], lang: Lang): void {
  const index = indexOf(lang);
  for (let i = 0; i < tokens.length; i++) {
    for (const p of startingWith(index, tokens[i].text)) {
      if (i + p.words.length > tokens.length) continue;
      if (p.words.length <= (tokens[i].concepts.get(p.concept) ?? 0)) continue;
      if (p.words.every((w, k) => k === 0 || matchesWord(w, tokens[i + k].text)))
        tokens[i].concepts.set(p.concept, p.words.length);
    }
    for (const [concept, length] of tokens[i].concepts) tokens[i + length - 1].ends.add(concept);
  }
  tokens.forEach((t, i) => {
    const idiom = t.concepts.get('IDIOM');
    if (idiom) for (let k = i; k < i + idiom; k++) tokens[k].concepts.delete('NEG');
  });
}

/**
 * A word made of number parts ("fünfundzwanzig", "trescientas", "duecentocinquanta",
 * "viermal"), split greedily into the language's number words and multipliers; undefined unless
 * the whole word splits. Multipliers come out negative (-100, -1000).
 */
function numberParts(word: string, lang: Lang): { parts: number[]; times: boolean } | undefined {
  const units = NUMBER_WORDS[lang];
  const multipliers = MULTIPLIERS[lang];
  const joiners = NUMBER_JOINERS[lang];
  const parts: number[] = [];
  let at = 0;
  while (at < word.length) {
    let step = 0;
    let value: number | undefined;
    for (const [w, v] of Object.entries(units))
      if (w.length > step && word.startsWith(w, at)) [step, value] = [w.length, v];
    for (const [w, v] of Object.entries(multipliers))
      if (w.length > step && word.startsWith(w, at)) [step, value] = [w.length, -v];
    for (const w of joiners)
      if (w.length > step && at > 0 && word.startsWith(w, at)) [step, value] = [w.length, undefined];
    if (!step && lang === 'de' && at > 0 && word.length === at + 3 && word.endsWith('mal'))
      return parts.length ? { parts, times: true } : undefined;
    if (!step) return undefined;
    if (value !== undefined) parts.push(value);
    at += step;
  }
  return parts.length ? { parts, times: false } : undefined;
}

/** Parts to a value: a multiplier scales what came before it. */
function compose(parts: number[]): number {
  let total = 0;
  let group = 0;
  for (const p of parts) {
    if (p === -1000) {
      total += Math.max(group, 1) * 1000;
      group = 0;
    } else if (p === -100) group = Math.max(group, 1) * 100;
    else group += p;
  }
  return total + group;
}

/**
 * Tags the numbers: digits, and number words of the rule's language, several words composing one
 * number ("doscientas cincuenta", "vingt et un", "quatre vingt"). An article that can mean "one"
 * ("una", "ein", "un") counts only right after "at least"/"at most"/"exactly" or before
 * "times"/"single".
 */
export function tagNumbers(tokens: Token[], lang: Lang): void {
  const articles = new Set(ONE_ARTICLES[lang]);
  const joiners = new Set(NUMBER_JOINERS[lang]);
  const ordinals = new Map<string, number>();
  ORDINAL_WORDS[lang].forEach((words, i) => words.forEach((w) => ordinals.set(w, i + 1)));
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.quote !== undefined) continue;
    if (ordinals.has(t.text)) t.ordinal = ordinals.get(t.text);
    if (/^\d+$/.test(t.text)) {
      if (t.text.length <= 9) t.number = { value: Number(t.text), span: 1 };
      continue;
    }
    if (articles.has(t.text)) {
      const before = tokens[i - 1]?.ends;
      const next = tokens[i + 1];
      const countsAsOne =
        before?.has('AT_LEAST') ||
        before?.has('AT_MOST') ||
        before?.has('EXACTLY') ||
        next?.concepts.has('TIMES') ||
        /^(?:sol[oa]s?|single|einzig\w*|seul\w*|unic[oa]s?)$/.test(next?.text ?? '');
      if (countsAsOne) t.number = { value: 1, span: 1, article: true };
      continue;
    }
    // Number words in a row, with joiners between them, make one number.
    const parts: number[] = [];
    let span = 0;
    let times = false;
    for (let k = i; k < tokens.length && k < i + 6 && !times; k++) {
      const word = tokens[k].text;
      if (span > 0 && (joiners.has(word) || word === '-')) {
        if (k + 1 < tokens.length && numberParts(tokens[k + 1].text, lang)) continue;
        break;
      }
      const split = numberParts(word, lang);
      if (!split) break;
      parts.push(...split.parts);
      span = k - i + 1;
      times = split.times;
    }
    if (!span) continue;
    if (lang === 'fr' && parts[0] === 4 && parts[1] === 20) parts.splice(0, 2, 80);
    t.number = { value: compose(parts), span, times };
    i += span - 1;
  }
}
