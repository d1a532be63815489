/**
 * The rule reader by meaning: a rule's family is recognised by the concepts it mentions, in any
 * of six languages and in any sentence frame (lexicon.ts), and its arguments are read with one
 * grammar of quantities (comparisons, digits and number words, "N times") and of literal strings
 * (its quotes). "La respuesta debe tener menos de 6 oraciones", "Die Antwort darf höchstens 5
 * Sätze haben" and "Keep the reply under six sentences" are one reading: sentences, fewer than 6.
 *
 * A reading is checked before it is trusted: every number said with a comparison must be the
 * reading's own count (or say the same count another way: "fewer than 6, at most 5"), and a
 * family that needs a literal must find exactly the literals it needs. When that fails, or no
 * family fits, the rule is not read (`reason` says why): a wrong check is worse than none.
 */
import type { Check, Count } from '../checks';
import { type Concept, type Lang } from './lexicon';
import { languageOfName } from './languages';
import { ruleLanguage, tagConcepts, tagNumbers, tokenise, type Token } from './tokens';

export type Family =
  | 'repeat_request'
  | 'two_responses'
  | 'options'
  | 'postscript'
  | 'title'
  | 'sections'
  | 'paragraph_first_word'
  | 'paragraphs'
  | 'bullets'
  | 'capital_words'
  | 'highlights'
  | 'placeholders'
  | 'letter_frequency'
  | 'keyword_frequency'
  | 'letter_case'
  | 'language'
  | 'json'
  | 'quotation'
  | 'ends_with'
  | 'no_commas'
  | 'forbidden_words'
  | 'keywords'
  | 'length';

export interface MeaningReading {
  lang: Lang;
  family?: Family;
  check?: Check;
  /** Why a family that fitted was not read. */
  reason?: string;
  /** The concepts the rule names (found when first asked for a rule too long to read). */
  named: () => Set<Concept>;
}

/** A number the rule says, with the comparison said with it, if any. */
interface Said {
  at: number;
  value: number;
  relation?: Count['relation'];
  /** Said as an article ("al menos una"). */
  article?: boolean;
}

const INVERSE: Record<Count['relation'], Count['relation']> = {
  at_least: 'less_than',
  less_than: 'at_least',
  at_most: 'more_than',
  more_than: 'at_most',
  exactly: 'exactly',
  between: 'between',
};

const RELATIONS: [Concept, Count['relation']][] = [
  ['AT_LEAST', 'at_least'],
  ['AT_MOST', 'at_most'],
  ['LESS', 'less_than'],
  ['MORE', 'more_than'],
  ['EXACTLY', 'exactly'],
];

/** The concepts tagged on any of `tokens`. */
const namedIn = (tokens: Token[]) => new Set(tokens.flatMap((t) => [...t.concepts.keys()]));

class Rule {
  readonly named: Set<Concept>;
  readonly numbers: Said[];

  constructor(
    readonly tokens: Token[],
    readonly quotes: string[],
  ) {
    this.named = namedIn(tokens);
    this.numbers = this.readNumbers();
  }

  has(c: Concept): boolean {
    return this.named.has(c);
  }

  /** Where concept `c` starts, every time. */
  where(c: Concept): number[] {
    return this.tokens.flatMap((t, i) => (t.concepts.has(c) ? [i] : []));
  }

  /** Whether concept `c` starts within `before` tokens before `at` or `after` tokens after it. */
  near(c: Concept, at: number, o: { before?: number; after?: number }): boolean {
    const from = Math.max(0, at - (o.before ?? 0));
    const to = Math.min(this.tokens.length - 1, at + (o.after ?? 0));
    for (let i = from; i <= to; i++) if (i !== at && this.tokens[i].concepts.has(c)) return true;
    return false;
  }

  /** Each number with the comparison said right before it ("al menos 5") or right after it ("5 o más", "5 al massimo"). */
  private readNumbers(): Said[] {
    const out: Said[] = [];
    this.tokens.forEach((t, i) => {
      if (!t.number) return;
      let relation: Count['relation'] | undefined;
      let best: { end: number; span: number } | undefined;
      // Before: the comparison ending closest before it, within two tokens ("menos de las 300",
      // "unter 300"), the longest of those ("pas plus de" over "plus de").
      for (let k = i - 1; k >= Math.max(0, i - 5); k--) {
        if (k < i - 1 && (this.tokens[k].number || /^[.;:!?()]$/.test(this.tokens[k].text))) break;
        for (const [c, rel] of RELATIONS) {
          const span = this.tokens[k].concepts.get(c);
          if (span === undefined || k + span > i || k + span < i - 2) continue;
          const end = k + span;
          if (!best || end > best.end || (end === best.end && span > best.span)) {
            best = { end, span };
            relation = rel;
          }
        }
      }
      // After: "5 or more", "5 at most", "7 párrafos exactos".
      for (let k = i + t.number.span; k <= i + t.number.span + 2 && k < this.tokens.length && !relation; k++) {
        const c = this.tokens[k].concepts;
        if (c.has('OR_MORE')) relation = 'at_least';
        else if (c.has('OR_LESS')) relation = 'at_most';
        else if (c.has('AT_MOST')) relation = 'at_most';
        else if (c.has('AT_LEAST')) relation = 'at_least';
        else if (c.has('EXACTLY')) relation = 'exactly';
        if (this.tokens[k].number || /^[.;:!?()]$/.test(this.tokens[k].text)) break;
      }
      // "No escribas 5 oraciones o más", "ne doit pas faire plus de 100 mots": a negation before
      // the comparison turns it around, unless the comparison holds it ("no más de", "nicht mehr als").
      const from = best ? best.end - best.span : i;
      if (relation && !this.negatesWithin(from, best?.end ?? i) && this.negatedBefore(from))
        relation = INVERSE[relation];
      // "nemmeno una volta", "ni una vez": not even once is fewer than one time.
      if (!relation && t.number.article && this.tokens[i + 1]?.concepts.has('TIMES') && this.negatedBefore(i))
        relation = 'less_than';
      // "pas une seule majuscule": an article is a count only when compared or counted ("una vez").
      const counts = relation || t.number.times || this.tokens[i + 1]?.concepts.has('TIMES');
      if (!t.number.article || counts) out.push({ at: i, value: t.number.value, relation, article: t.number.article });
    });
    return out;
  }

  /** Whether a negation starts within the comparison [from, to). */
  private negatesWithin(from: number, to: number): boolean {
    for (let k = from; k < to; k++) if (this.tokens[k].concepts.has('NEG')) return true;
    return false;
  }

  /** Whether a negation stands within four tokens before `at`, in the same clause. */
  private negatedBefore(at: number): boolean {
    for (let k = at - 1; k >= Math.max(0, at - 4); k--) {
      if (/^[.;:!?()]$/.test(this.tokens[k].text) || this.tokens[k].number) return false;
      if (this.tokens[k].concepts.has('NEG')) return true;
    }
    return false;
  }

  /** The numbers said right before one of `unit`'s words ("300 palabras", "drei Absätze"). */
  numbersBefore(unit: Concept): Said[] {
    return this.numbers.filter((n) => {
      const span = this.tokens[n.at].number!.span;
      for (let k = n.at + span; k < Math.min(this.tokens.length, n.at + span + 3); k++) {
        if (this.tokens[k].concepts.has(unit)) return true;
        if (this.tokens[k].number || this.tokens[k].quote !== undefined) return false;
      }
      return false;
    });
  }

  quoteTokens(): number[] {
    return this.tokens.flatMap((t) => (t.quote !== undefined ? [t.quote] : []));
  }

  /** Whether the rule shows a highlight: a word between asterisks, `*like this*`. */
  starred(): boolean {
    return this.tokens.some(
      (t, i) =>
        t.text === '*' &&
        /^\p{L}/u.test(this.tokens[i + 1]?.text ?? '') &&
        this.tokens.slice(i + 2, i + 8).some((u) => u.text === '*'),
    );
  }

  literal(text: string): boolean {
    return this.tokens.some((t) => t.text === text) || this.quotes.some((q) => q.includes(text));
  }
}

/** Integer counts said two ways ("fewer than 6, that is at most 5") as one form, to compare them. */
function canonical(c: { relation: Count['relation']; value: number }): string {
  if (c.relation === 'less_than') return `at_most ${c.value - 1}`;
  if (c.relation === 'more_than') return `at_least ${c.value + 1}`;
  return `${c.relation} ${c.value}`;
}

type CountResult = { count: Count } | { reason: string };

/**
 * The count of `unit` the rule states: every number said with a comparison must state the same
 * count; without one, the number said before the unit, with the family's default relation.
 */
function countOf(r: Rule, unit: Concept, fallback: Count['relation'] | undefined): CountResult {
  const compared = r.numbers.filter((n) => n.relation);
  if (compared.length) {
    const forms = new Set(compared.map((n) => canonical({ relation: n.relation!, value: n.value })));
    if (forms.size > 1) return { reason: 'it states different counts' };
    const first = compared[0];
    return { count: { relation: first.relation as Exclude<Count['relation'], 'between'>, n: first.value } };
  }
  const before = [...new Set(r.numbersBefore(unit).map((n) => n.value))];
  if (before.length === 1 && fallback) return { count: { relation: fallback, n: before[0] } as Count };
  if (before.length === 0 && r.numbers.length === 1 && fallback)
    return { count: { relation: fallback, n: r.numbers[0].value } as Count };
  return { reason: fallback ? 'no single count was found' : 'it says no comparison (at least, at most, exactly…)' };
}

/** "Never", "must not appear": a keyword or a letter that may not occur. */
const notAtAll: Count = { relation: 'less_than', n: 1 };

/** The marker of a sections rule: the quote's first word ("SECTION X" → "SECTION"). */
const markerOf = (quote: string) => quote.trim().split(/\s+/)[0] ?? '';

/** The check, and the language the rule names, if it names one ("in English and in lowercase"). */
function withLanguage(r: Rule, check: Check): Check {
  const named = languageNamed(r);
  return named ? { kind: 'all', checks: [check, { kind: 'language', code: named }] } : check;
}

/** The one language the rule names, by a name in any of the six languages. */
function languageNamed(r: Rule): string | undefined {
  const found = new Set(r.tokens.flatMap((t) => languageOfName(t.text) ?? []));
  return found.size === 1 ? [...found][0] : undefined;
}

/** Whether the case cue at `at` is negated ("no capital letters", "keine Großbuchstaben", "mayúsculas no permitidas"). */
const negated = (r: Rule, at: number) => r.near('NEG', at, { before: 3, after: 1 });

function letterCase(r: Rule): 'lowercase' | 'uppercase' | undefined {
  // "no capital letters" asks for lower case, "keine Kleinbuchstaben" for capitals.
  const lower = r.where('LOWERCASE').some((at) => !negated(r, at)) || r.where('CAPITAL').some((at) => negated(r, at));
  const upper = r.where('CAPITAL').some((at) => !negated(r, at)) || r.where('LOWERCASE').some((at) => negated(r, at));
  if (lower === upper) return undefined;
  return lower ? 'lowercase' : 'uppercase';
}

type Reading = { family: Family; check?: Check; reason?: string };

const counted = (family: Family, result: CountResult, check: (count: Count) => Check): Reading =>
  'count' in result ? { family, check: check(result.count) } : { family, reason: result.reason };

/** The family the rule's concepts point to, and its reading; undefined when none fits. */
function readFamily(r: Rule): Reading | undefined {
  const quotes = r.quoteTokens().map((i) => r.quotes[i].trim());
  const words = quotes.filter((q) => q.length > 0);
  if (r.has('REPEAT') && r.has('REQUEST')) return { family: 'repeat_request', check: { kind: 'repeat_request' } };
  if (r.literal('******')) return { family: 'two_responses', check: { kind: 'two_responses', separator: '******' } };
  if (words.length >= 2 && r.has('ONE_OF')) return { family: 'options', check: { kind: 'options', options: words } };
  if (r.has('POSTSCRIPT') || quotes.some((q) => /^p\.\s?(?:p\.\s?)?s\.?$/i.test(q))) {
    const marker =
      quotes.find((q) => /^p\.\s?(?:p\.\s?)?s\.?$/i.test(q)) ?? (words.length === 1 ? words[0] : undefined);
    return marker
      ? { family: 'postscript', check: { kind: 'postscript', marker } }
      : { family: 'postscript', reason: 'no quoted marker' };
  }
  if (r.has('TITLE') || r.literal('<<')) return { family: 'title', check: { kind: 'title' } };
  if (r.has('PARAGRAPH') && words.length === 1 && r.has('START')) {
    const total = countOf(r, 'PARAGRAPH', 'exactly');
    if (!('count' in total)) return { family: 'paragraph_first_word', reason: total.reason };
    const ordinals = r.tokens.filter((t) => t.ordinal).map((t) => t.ordinal!);
    const last = r.has('LAST') && total.count.relation === 'exactly' ? [total.count.n] : [];
    const nth = [...new Set([...ordinals, ...last])];
    if (nth.length !== 1) return { family: 'paragraph_first_word', reason: 'which paragraph is not clear' };
    return {
      family: 'paragraph_first_word',
      check: {
        kind: 'all',
        checks: [
          { kind: 'paragraph_first_word', nth: nth[0], word: words[0] },
          { kind: 'paragraphs', count: total.count, separator: r.literal('***') ? 'divider' : 'blank_line' },
        ],
      },
    };
  }
  if (r.has('SECTION') && !r.has('HIGHLIGHT') && words.length >= 1) {
    const markers = [...new Set(words.map(markerOf).filter((m) => /^\p{L}+$/u.test(m)))];
    if (markers.length !== 1) return { family: 'sections', reason: 'no single section marker' };
    return counted('sections', countOf(r, 'SECTION', 'at_least'), (count) => ({
      kind: 'sections',
      marker: markers[0],
      count,
    }));
  }
  if (r.has('PARAGRAPH') && r.numbers.length)
    return counted('paragraphs', countOf(r, 'PARAGRAPH', 'exactly'), (count) => ({
      kind: 'paragraphs',
      count,
      separator: r.literal('***') ? 'divider' : 'blank_line',
    }));
  if (r.has('BULLET') && r.numbers.length)
    return counted('bullets', countOf(r, 'BULLET', 'exactly'), (count) => ({ kind: 'bullets', count }));
  if (r.has('CAPITAL') && r.has('WORD') && r.numbers.length)
    return counted('capital_words', countOf(r, 'WORD', undefined), (count) => ({ kind: 'capital_words', count }));
  if ((r.has('HIGHLIGHT') || r.starred()) && r.numbers.length && !r.has('LETTER'))
    return counted('highlights', countOf(r, 'HIGHLIGHT', 'at_least'), (count) => ({ kind: 'highlights', count }));
  if ((r.has('PLACEHOLDER') || r.literal('[')) && r.numbers.length && !r.has('LETTER'))
    return counted('placeholders', countOf(r, 'PLACEHOLDER', 'at_least'), (count) => ({
      kind: 'placeholders',
      count,
    }));
  const letters = new Set(words.map((w) => w.toLowerCase()));
  if (r.has('LETTER') && letters.size === 1 && [...words[0]].length === 1) {
    if (!r.numbers.length && r.has('NEG'))
      return { family: 'letter_frequency', check: { kind: 'letter_frequency', letter: words[0], count: notAtAll } };
    return counted('letter_frequency', countOf(r, 'TIMES', undefined), (count) => ({
      kind: 'letter_frequency',
      letter: words[0],
      count,
    }));
  }
  if (words.length === 1 && r.numbers.length && (r.has('TIMES') || r.numbers.some((n) => n.relation)))
    return counted('keyword_frequency', countOf(r, 'TIMES', undefined), (count) => ({
      kind: 'keyword_frequency',
      word: words[0],
      count,
    }));
  const caseOf = letterCase(r);
  if (caseOf && !r.numbers.length) return { family: 'letter_case', check: withLanguage(r, { kind: caseOf }) };
  const named = languageNamed(r);
  if (named && !words.length) return { family: 'language', check: { kind: 'language', code: named } };
  if (r.has('JSON')) return { family: 'json', check: { kind: 'json' } };
  if (r.has('QUOTES') && !words.some((w) => /[\p{L}\d]/u.test(w)))
    return { family: 'quotation', check: { kind: 'quotation' } };
  if (r.has('END') && words.length === 1)
    return { family: 'ends_with', check: { kind: 'ends_with', phrase: words[0] } };
  if (r.has('COMMA') && r.has('NEG')) return { family: 'no_commas', check: { kind: 'no_commas' } };
  if (words.length && r.has('NEG')) return { family: 'forbidden_words', check: { kind: 'forbidden_words', words } };
  if (words.length && (r.has('WORD') || r.has('INCLUDE')))
    return { family: 'keywords', check: { kind: 'keywords', words } };
  for (const [unit, kind] of [
    ['WORD', 'words'],
    ['SENTENCE', 'sentences'],
  ] as const)
    if (r.has(unit) && r.numbers.length)
      return counted('length', countOf(r, unit, undefined), (count) => ({ kind, count }));
  return undefined;
}

/** Numbers said with a comparison that the reading does not use: another requirement it cannot read. */
function unusedComparison(r: Rule, check: Check): boolean {
  const counts: Count[] = [];
  const collect = (c: Check) => {
    if (c.kind === 'all') c.checks.forEach(collect);
    else if ('count' in c) counts.push(c.count);
  };
  collect(check);
  const used = new Set(
    counts
      .filter((c) => c.relation !== 'between')
      .map((c) => canonical({ relation: c.relation, value: (c as { n: number }).n })),
  );
  return r.numbers.some(
    (n) => n.relation && !n.article && !used.has(canonical({ relation: n.relation, value: n.value })),
  );
}

/** The longest rule read by meaning: a rule states one or two requirements in a sentence or two. */
export const MAX_TOKENS = 200;

/** Concepts that name a family of their own: a rule naming one its reading does not cover states something more. */
const STRONG: Concept[] = [
  'COMMA',
  'CAPITAL',
  'LOWERCASE',
  'JSON',
  'TITLE',
  'POSTSCRIPT',
  'QUOTES',
  'BULLET',
  'HIGHLIGHT',
  'PLACEHOLDER',
  'PARAGRAPH',
  'SECTION',
  'REPEAT',
];

/** The strong concepts each family's own wordings use. */
const OWN: Partial<Record<Family, Concept[]>> = {
  repeat_request: ['REPEAT'],
  postscript: ['POSTSCRIPT'],
  title: ['TITLE'],
  sections: ['SECTION'],
  paragraph_first_word: ['PARAGRAPH'],
  paragraphs: ['PARAGRAPH'],
  bullets: ['BULLET', 'PLACEHOLDER'],
  capital_words: ['CAPITAL'],
  highlights: ['HIGHLIGHT', 'SECTION'],
  placeholders: ['PLACEHOLDER'],
  letter_frequency: ['CAPITAL', 'LOWERCASE'],
  options: ['REPEAT'],
  ends_with: ['REPEAT'],
  letter_case: ['CAPITAL', 'LOWERCASE'],
  json: ['JSON'],
  quotation: ['QUOTES'],
  no_commas: ['COMMA'],
};

/** A concept naming another family that the reading leaves out ("lowercase, and at least 50 words"). */
const otherFamilyNamed = (r: Rule, family: Family) => STRONG.find((c) => r.has(c) && !(OWN[family] ?? []).includes(c));

const COMPARISON: Concept[] = ['AT_LEAST', 'AT_MOST', 'LESS', 'MORE', 'EXACTLY', 'OR_MORE', 'OR_LESS', 'TIMES'];

/** The concepts each family's wordings are made of: a clause naming none of them says something else. */
const WORDS_OF: Record<Family, Concept[]> = {
  repeat_request: ['REPEAT', 'REQUEST', 'START'],
  two_responses: ['NEG'],
  options: ['ONE_OF', 'REPEAT', 'NEG'],
  postscript: ['POSTSCRIPT', 'END', 'START'],
  title: ['TITLE'],
  sections: ['SECTION', 'START', ...COMPARISON],
  paragraph_first_word: ['PARAGRAPH', 'START', 'WORD', 'LAST', ...COMPARISON],
  paragraphs: ['PARAGRAPH', ...COMPARISON],
  bullets: ['BULLET', ...COMPARISON],
  capital_words: ['CAPITAL', 'WORD', ...COMPARISON],
  highlights: ['HIGHLIGHT', 'SECTION', ...COMPARISON],
  placeholders: ['PLACEHOLDER', ...COMPARISON],
  letter_frequency: ['LETTER', 'CAPITAL', 'LOWERCASE', 'NEG', ...COMPARISON],
  keyword_frequency: ['WORD', 'INCLUDE', 'NEG', ...COMPARISON],
  letter_case: ['CAPITAL', 'LOWERCASE', 'LETTER', 'NEG'],
  language: [],
  json: ['JSON'],
  quotation: ['QUOTES', 'START', 'END'],
  ends_with: ['END', 'REPEAT', 'NEG'],
  no_commas: ['COMMA', 'NEG'],
  forbidden_words: ['NEG', 'WORD', 'INCLUDE'],
  keywords: ['WORD', 'INCLUDE'],
  length: ['WORD', 'SENTENCE', 'NEG', ...COMPARISON],
};

/**
 * Whether a reading of `family` accounts for `clauses` (what the family readers left unread of an
 * English rule): each must name one of the family's concepts ("… and have to appear" does for
 * required words; "… and mention the ticket ID" does not for a length).
 */
export function readsClauses(o: { family: Family; clauses: string[] }): boolean {
  const own = new Set(WORDS_OF[o.family]);
  return o.clauses.every((clause) => {
    const tokens = tokenise(clause);
    tagConcepts(tokens, 'en');
    return tokens.some((t) => [...t.concepts.keys()].some((c) => own.has(c)));
  });
}

/** The families whose words are unmistakable; each is read as the check kind of its name. */
const UNMISTAKABLE = new Set<Family & Check['kind']>([
  'sections',
  'capital_words',
  'paragraph_first_word',
  'paragraphs',
  'bullets',
  'highlights',
  'placeholders',
  'postscript',
  'title',
  'repeat_request',
]);

/**
 * Whether the family readers' checks miss the family the reader by meaning read, when that family's
 * words are unmistakable (sections, words in capitals, bullets…): "5 sections, each starting with
 * "Section"" read as a response starting with "Section" misses the sections.
 */
export function missesFamily(o: { family: Family; checks: Check[] }): boolean {
  if (!UNMISTAKABLE.has(o.family as Family & Check['kind'])) return false;
  const flat = o.checks.flatMap((c) => (c.kind === 'all' ? c.checks : [c]));
  return !flat.some((c) => c.kind === o.family);
}

/** Reads `masked` (the rule with its quotes replaced by `⟦i⟧`) by meaning. */
export function readByMeaning(o: { masked: string; quotes: string[] }): MeaningReading {
  const tokens = tokenise(o.masked);
  if (tokens.length > MAX_TOKENS) {
    const named = () => {
      tagConcepts(tokens, 'en');
      return namedIn(tokens);
    };
    return { lang: 'en', reason: `it is longer than ${MAX_TOKENS} words and signs`, named };
  }
  const lang = ruleLanguage(tokens);
  tagConcepts(tokens, lang);
  tagNumbers(tokens, lang);
  const r = new Rule(tokens, o.quotes);
  const named = () => r.named;
  const reading = readFamily(r);
  if (!reading) return { lang, reason: 'no rule family fits its words', named };
  if (reading.check && unusedComparison(r, reading.check))
    return { lang, family: reading.family, reason: 'it states a count the reading does not use', named };
  const other = reading.check && otherFamilyNamed(r, reading.family);
  if (other)
    return {
      lang,
      family: reading.family,
      reason: `it also names ${other.toLowerCase()}, which the reading does not use`,
      named,
    };
  return { lang, ...reading, named };
}
