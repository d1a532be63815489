/**
 * A rule description prepared for reading: quoted strings are set aside (so that a keyword such as
 * "sentence" is never read as an instruction), equivalent wordings become the ones the readers
 * know (rule-wording.ts), number words become digits, and the text is kept
 * twice with equal length, as written (`raw`) and lower-cased (`low`). Family readers
 * (readers-structure.ts, readers-content.ts) consume the spans they understood, so two readers never claim the same words.
 */
import type { Check, Count, Relation } from './checks';
import { plainWording } from './rule-wording';

export const SMALL_NUMBERS: Record<string, number> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  dozen: 12,
};
export const TENS: Record<string, number> = {
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};
export const ORDINALS: Record<string, number> = {
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  sixth: 6,
  seventh: 7,
  eighth: 8,
  ninth: 9,
  tenth: 10,
  eleventh: 11,
  twelfth: 12,
};

/** Replaces matches with a replacement padded by spaces to the match's length, so positions stay the same. */
const sameLength = (s: string, re: RegExp, fn: (...g: string[]) => string) =>
  s.replace(re, (...g: string[]) => {
    const r = fn(...g);
    return r.length <= g[0].length ? r.padEnd(g[0].length, ' ') : g[0];
  });

/**
 * Number words to digits without moving any position: "twenty-five" → "25", "three hundred" →
 * "300", "a dozen" → "12", "twice" → "2×" (× stands for "times").
 */
export function numbersToDigits(s: string): string {
  const small = Object.keys(SMALL_NUMBERS).join('|');
  const tens = Object.keys(TENS).join('|');
  const unit = `(?:(${tens})(?:[\\s-](${small}))?|(${small}))`;
  let out = sameLength(s, /\b\d{1,3}(?:,\d{3})+\b/g, (x) => x.replace(/,/g, ''));
  out = sameLength(out, new RegExp(`\\b(?:a|an|${unit})\\s+(hundred|thousand)\\b`, 'gi'), (_x, t, u, sm, scale) => {
    const base = t
      ? TENS[t.toLowerCase()] + (u ? SMALL_NUMBERS[u.toLowerCase()] : 0)
      : sm
        ? SMALL_NUMBERS[sm.toLowerCase()]
        : 1;
    return String(base * (scale.toLowerCase() === 'hundred' ? 100 : 1000));
  });
  out = sameLength(out, /\b(\d+)\s+hundred\b/gi, (_x, n) => String(Number(n) * 100));
  out = sameLength(out, new RegExp(`\\b(${tens})(?:[\\s-](${small}))?\\b`, 'gi'), (_x, t, u) =>
    String(TENS[t.toLowerCase()] + (u ? SMALL_NUMBERS[u.toLowerCase()] : 0)),
  );
  out = sameLength(out, new RegExp(`\\b(?:a\\s+)?(${small})\\b`, 'gi'), (x, w) =>
    /^a\s/i.test(x) && w.toLowerCase() !== 'dozen' ? x : String(SMALL_NUMBERS[w.toLowerCase()]),
  );
  out = sameLength(out, /\b(?:twice|thrice)\b/gi, (x) => (x.toLowerCase() === 'twice' ? '2×' : '3×'));
  // The lookbehind comes after "once": checked first, it would rescan a run of blanks at each of them.
  out = sameLength(
    out,
    /once\b(?<=\b(?:least|most|exactly|only|just|than|appears?|occurs?|used?|mentioned?|included?|repeated?|it)\s+once)/gi,
    () => '1×',
  );
  out = sameLength(out, /\b(?:a|one)\s+single\b/gi, () => '1');
  out = sameLength(out, /\ba(?=\s+(?:paragraph|sentence|placeholder)\b)/gi, () => '1');
  return out;
}

const CLAUSE_STARTS =
  "(?:do\\s+not|don't|never|no|not|use|write|include|answer|respond|reply|keep|make|should|must|may|can|it|avoid|add|end|finish|start|begin|highlight|wrap|put|limit|mention|be|stay|ensure|there|give|provide|format|separate|mark)\\b";
/** Where a clause ends: ", and …", " but …", ", never …". It starts at the comma or where the blanks start, never inside a run of blanks. */
const CLAUSE_CUT = new RegExp(
  `(?:,|(?<![\\s,]))\\s+(?:and|but|while|plus|also)\\s+(?=${CLAUSE_STARTS})|,\\s+(?=(?:do\\s+not|don't|never|use|write|include|answer|respond|keep|make|avoid|add|end|finish|start|begin|highlight|wrap|put|limit|mention|ensure)\\b)`,
  'g',
);

/** Quote marks and their closing marks: "…", “…”, ‘…’, «…», »…«, „…“, ‚…‘, ‹…› and `…`, each on one line. */
const CLOSING: Record<string, string> = {
  '"': '"',
  '“': '”',
  '‘': '’',
  '«': '»',
  '»': '«',
  '„': '“',
  '‚': '‘',
  '‹': '›',
  '`': '`',
};
/** Per quote mark: where its quote ends (the closing mark) or cannot end (a line break). */
const QUOTE_END = new Map(Object.entries(CLOSING).map(([open, close]) => [open, new RegExp(`[${close}\n]`, 'g')]));
/** '…': an apostrophe inside a word neither opens nor closes it. */
const APOSTROPHE_QUOTE = /(?<=^|[\s([{:,=])'((?:[^'\n]|(?<=\p{L})'(?=\p{L}))+?)'(?=$|[\s.,;:!?)\]}])/uy;

/**
 * The quoted strings of a text, as `/"([^"\n]+)"|“([^”\n]+)”|…|'(…)'/gu` finds them, in linear
 * time: once a mark finds no closing mark before the line ends, the same mark later on that line is
 * not tried again (the regex would rescan the line from each of them).
 */
function quotedSpans(text: string): { start: number; end: number; inner: string }[] {
  const out: { start: number; end: number; inner: string }[] = [];
  const unclosedUntil = new Map<string, number>();
  const marks = /["“‘«»„‚‹`']/g;
  for (let m = marks.exec(text); m; m = marks.exec(text)) {
    const start = m.index;
    const open = m[0];
    if (open === "'") {
      APOSTROPHE_QUOTE.lastIndex = start;
      const q = APOSTROPHE_QUOTE.exec(text);
      if (q) {
        out.push({ start, end: start + q[0].length, inner: q[1] });
        marks.lastIndex = start + q[0].length;
      }
      continue;
    }
    if (start < (unclosedUntil.get(open) ?? -1)) continue;
    const stop = QUOTE_END.get(open)!;
    stop.lastIndex = start + 1;
    const close = stop.exec(text)?.index ?? text.length;
    if (text[close] !== CLOSING[open]) unclosedUntil.set(open, close);
    else if (open === '"' && /^\s|\s$/.test(text.slice(start + 1, close))) {
      // `with " and end with "`: straight marks named, not a quote; the second may open one.
      marks.lastIndex = start + 1;
    } else if (close > start + 1) {
      out.push({ start, end: close + 1, inner: text.slice(start + 1, close) });
      marks.lastIndex = close + 1;
    }
  }
  return out;
}

export class RuleText {
  /** The description with quotes replaced by ⟦i⟧ (for reading phrases and names literally), in plain wording (rule-wording.ts). */
  written: string;
  /** `written` with number words as digits, of the same length. */
  raw: string;
  /** `raw` lower-cased, of the same length. */
  low: string;
  readonly quotes: string[] = [];

  constructor(readonly description: string) {
    const text = description.replace(/\r\n?/g, '\n');
    let masked = '';
    let at = 0;
    for (const q of quotedSpans(text)) {
      masked += `${text.slice(at, q.start)}⟦${this.quotes.length}⟧`;
      this.quotes.push(q.inner);
      at = q.end;
    }
    this.written = plainWording(masked + text.slice(at));
    this.raw = numbersToDigits(this.written);
    this.low = [...this.raw].map((c) => (c.toLowerCase().length === c.length ? c.toLowerCase() : c)).join('');
  }

  /** Marks a span as understood: later readers see it as blanked out. */
  consume(start: number, end: number): void {
    this.consumeAll([[start, end]]);
  }

  /** Marks several spans as understood at once (one pass over the text, however many spans). */
  consumeAll(spans: readonly [number, number][]): void {
    const blank = (s: string) => {
      let out = '';
      let at = 0;
      for (const [start, end] of [...spans].sort((a, b) => a[0] - b[0])) {
        const from = Math.max(at, start);
        if (end <= from) continue;
        out += s.slice(at, from) + '¦'.repeat(end - from);
        at = end;
      }
      return out + s.slice(at);
    };
    this.written = blank(this.written);
    this.raw = blank(this.raw);
    this.low = blank(this.low);
    this.cache = undefined;
  }

  /** Sentence ends and clause cuts of the current `low`, computed when first asked for. */
  private cache?: { stops: number[]; cuts: Map<number, number[][]> };
  private read() {
    if (this.cache) return this.cache;
    const stops = [...this.low.matchAll(/(?<!\b(?:e\.g|i\.e|vs|etc|p\.s|p\.p\.s))[.!?;](?=\s)|\n/g)].map(
      (m) => m.index + m[0].length,
    );
    return (this.cache = { stops, cuts: new Map() });
  }

  /** The quote behind a ⟦i⟧ token, or undefined. */
  quote(token: string | undefined): string | undefined {
    const m = token?.match(/^⟦(\d+)⟧$/);
    return m ? this.quotes[Number(m[1])] : undefined;
  }

  /** The sentence span (in `low`) around a position: cut at . ! ? ; or a line break, not after e.g./i.e. */
  sentenceAt(pos: number): [number, number] {
    const { stops } = this.read();
    // The first stop after pos ends the sentence; the one before it starts it.
    let lo = 0;
    let hi = stops.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (stops[mid] <= pos) lo = mid + 1;
      else hi = mid;
    }
    return [lo > 0 ? stops[lo - 1] : 0, lo < stops.length ? stops[lo] : this.low.length];
  }

  /**
   * The clause around a position: its sentence, cut where "and", "but" or a comma starts a new
   * instruction ("… no longer than 120 words and should not contain any commas").
   */
  clauseAt(pos: number): [number, number] {
    const [s, e] = this.sentenceAt(pos);
    let start = s;
    for (const [at, length] of this.cutsOf(s, e)) {
      if (at >= pos) return [start, at];
      start = at + length;
    }
    return [start, e];
  }

  /** Where "and", "but" or a comma starts a new instruction in the sentence [s, e): position and length of each cut. */
  private cutsOf(s: number, e: number): number[][] {
    const { cuts } = this.read();
    let found = cuts.get(s);
    if (!found) {
      found = [...this.low.slice(s, e).matchAll(CLAUSE_CUT)].map((m) => [s + m.index, m[0].length]);
      cuts.set(s, found);
    }
    return found;
  }

  /** All spans of sentences. */
  sentences(): [number, number][] {
    const out: [number, number][] = [];
    for (let pos = 0; pos < this.low.length;) {
      const [s, e] = this.sentenceAt(pos);
      out.push([s, e]);
      pos = e > pos ? e : pos + 1;
    }
    return out;
  }
}

// --- counts ----------------------------------------------------------------------------------

const REL_BEFORE: [string, Relation][] = [
  ['at the very least', 'at_least'],
  ['at the least', 'at_least'],
  ['at least', 'at_least'],
  ['no fewer than', 'at_least'],
  ['no less than', 'at_least'],
  ['not fewer than', 'at_least'],
  ['not less than', 'at_least'],
  ['a minimum of', 'at_least'],
  ['minimum of', 'at_least'],
  ['at minimum', 'at_least'],
  ['at a minimum', 'at_least'],
  ['minimum', 'at_least'],
  ['min\\.?', 'at_least'],
  ['upwards of', 'at_least'],
  ['no shorter than', 'at_least'],
  ['≥', 'at_least'],
  ['>=', 'at_least'],
  ['more than', 'more_than'],
  ['greater than', 'more_than'],
  ['longer than', 'more_than'],
  ['in excess of', 'more_than'],
  ['exceeding', 'more_than'],
  ['over', 'more_than'],
  ['above', 'more_than'],
  ['>', 'more_than'],
  ['at the very most', 'at_most'],
  ['at the most', 'at_most'],
  ['at most', 'at_most'],
  ['no more than', 'at_most'],
  ['not more than', 'at_most'],
  ['a maximum of', 'at_most'],
  ['maximum of', 'at_most'],
  ['maximum', 'at_most'],
  ['max\\.?', 'at_most'],
  ['up to', 'at_most'],
  ['no longer than', 'at_most'],
  ['not longer than', 'at_most'],
  ['not exceeding', 'at_most'],
  ['not to exceed', 'at_most'],
  ['limited to', 'at_most'],
  ['capped at', 'at_most'],
  ['within', 'at_most'],
  ['≤', 'at_most'],
  ['<=', 'at_most'],
  ['less than', 'less_than'],
  ['fewer than', 'less_than'],
  ['shorter than', 'less_than'],
  ['under', 'less_than'],
  ['below', 'less_than'],
  ['<', 'less_than'],
  ['exactly', 'exactly'],
  ['precisely', 'exactly'],
  ['a total of', 'exactly'],
  ['just', 'exactly'],
  ['only', 'exactly'],
  ['strictly', 'exactly'],
];
const REL_AFTER: [string, Relation][] = [
  ['or more', 'at_least'],
  ['or longer', 'at_least'],
  ['or higher', 'at_least'],
  ['or greater', 'at_least'],
  ['or above', 'at_least'],
  ['or over', 'at_least'],
  ['and up', 'at_least'],
  ['and above', 'at_least'],
  ['at least', 'at_least'],
  ['at minimum', 'at_least'],
  ['minimum', 'at_least'],
  ['min', 'at_least'],
  ['plus', 'at_least'],
  ['or fewer', 'at_most'],
  ['or less', 'at_most'],
  ['or shorter', 'at_most'],
  ['or lower', 'at_most'],
  ['or under', 'at_most'],
  ['or below', 'at_most'],
  ['at most', 'at_most'],
  ['maximum', 'at_most'],
  ['max', 'at_most'],
  ['tops', 'at_most'],
  ['or so', 'exactly'],
];
const INVERT: Record<Relation, Relation> = {
  at_least: 'less_than',
  less_than: 'at_least',
  at_most: 'more_than',
  more_than: 'at_most',
  exactly: 'exactly',
};

const alt = (list: [string, Relation][]) => list.map(([p]) => p.replace(/ /g, '\\s+')).join('|');
const relOf = (list: [string, Relation][], phrase: string) =>
  list.find(([p]) => new RegExp(`^(?:${p.replace(/ /g, '\\s+')})$`).test(phrase.trim()))?.[1];
const NEGATION = /\b(?:not|never|n't|cannot)\s+(?:[\p{L}']+\s+){0,2}$|n't\s+(?:[\p{L}']+\s+){0,2}$/u;
/** Verbs that carry a relation: "exceed 50 words", "must not exceed 50 words". */
const VERB_REL = '(?:exceed|surpass|go\\s+over|go\\s+beyond|top)s?';

export interface FoundCount {
  count: Count;
  start: number;
  end: number;
}

/**
 * Finds a count of `noun` (a regex source) in `low` from `from` to `to`: "at least 300 words",
 * "300+ words", "300 words or more", "between 2 and 4 paragraphs", "no more than 50 words",
 * "must not exceed 50 words", "the word count should be under 50". A bare number gets `bare`.
 */
export function findCount(
  low: string,
  noun: string,
  bare: Relation,
  from = 0,
  to = low.length,
): FoundCount | undefined {
  const text = low.slice(0, to);
  const adj = '(?:(?!(?:times|of|in|the|per|each|every|and|or)\\b)[\\p{L}-]+\\s+){0,3}?';
  const before = `(?<![\\p{L}])(?<before>${alt(REL_BEFORE)}|${VERB_REL})\\s+(?:of\\s+)?`;
  const after = `(?<after>${alt(REL_AFTER)})\\b`;
  const patterns: RegExp[] = [
    new RegExp(`\\bbetween\\s+(?<min>\\d+)\\s+(?:and|to|-)\\s+(?<max>\\d+)\\s+${adj}(?:${noun})(?![\\p{L}])`, 'gu'),
    new RegExp(`(?<![\\d.])(?<min>\\d+)\\s*(?:-|–|to)\\s*(?<max>\\d+)\\s+${adj}(?:${noun})(?![\\p{L}])`, 'gu'),
    new RegExp(
      `(?:${before})?(?<![\\d.])(?<n>\\d+)(?:(?<plus>\\+)|\\s+(?<after1>or\\s+(?:more|fewer|less|greater|longer|shorter)|plus)\\b)?\\s*${adj}(?:${noun})(?![\\p{L}])(?:\\s+${after})?`,
      'gu',
    ),
    new RegExp(
      `(?<![\\p{L}])(?:${noun})(?:\\s+(?:count|number|total|length|limit))?\\s*(?:[\\p{L}':]+\\s+|⟦\\d+⟧\\s+){0,5}?${before}(?<n>\\d+)(?!\\s*(?:\\+\\s*)?[\\p{L}\\d%])`,
      'gu',
    ),
  ];
  let best: FoundCount | undefined;
  for (const re of patterns) {
    re.lastIndex = from;
    const m = re.exec(text);
    if (!m) continue;
    const found = countFrom(m, text, bare);
    if (found && (!best || found.start < best.start)) best = found;
  }
  return best;
}

function countFrom(m: RegExpExecArray, text: string, bare: Relation): FoundCount | undefined {
  const g = m.groups ?? {};
  const span = { start: m.index, end: m.index + m[0].length };
  if (g.min !== undefined) return { count: { relation: 'between', min: Number(g.min), max: Number(g.max) }, ...span };
  const n = Number(g.n);
  let relation: Relation | undefined;
  if (g.before)
    relation = new RegExp(`^${VERB_REL}$`).test(g.before.trim()) ? 'more_than' : relOf(REL_BEFORE, g.before);
  else if (g.plus) relation = 'at_least';
  else if (g.after1) relation = relOf(REL_AFTER, g.after1);
  else if (g.after) relation = relOf(REL_AFTER, g.after);
  else return { count: { relation: bare, n }, ...span };
  if (!relation) return undefined;
  const relStart = g.before ? m.index + m[0].indexOf(g.before) : m.index;
  if (NEGATION.test(text.slice(Math.max(0, relStart - 40), relStart))) relation = INVERT[relation];
  return { count: { relation, n }, ...span };
}

/** A list of keywords after a cue: quotes, or plain words separated by commas, "and", "or". */
export function readList(
  rt: RuleText,
  start: number,
  end = rt.low.length,
): { items: string[]; end: number } | undefined {
  const text = rt.written.slice(start, end);
  const quoted = text.match(/^\s*[:[(]?\s*⟦\d+⟧(?:\s*(?:,\s*(?:and|or)?|and|or|&|\/)\s*⟦\d+⟧)*/u);
  if (quoted)
    return {
      items: [...quoted[0].matchAll(/⟦\d+⟧/g)].map((q) => rt.quote(q[0])!.trim()).filter(Boolean),
      end: start + quoted[0].length,
    };
  const stop =
    '(?:in|into|anywhere|throughout|within|at|from|when|while|for|to|if|as|so|because|inside|across|on|of|such|please|the|your|any|also)';
  const word = `(?!${stop}\\b)[\\p{L}\\p{N}][\\p{L}\\p{N}'’-]*`;
  const plain = text.match(
    new RegExp(`^\\s*:?\\s*(${word}(?:\\s*(?:,\\s*(?:and|or)?|and|or|&|\\/)\\s*${word})*)`, 'iu'),
  );
  if (!plain) return undefined;
  const items = plain[1]
    .split(/\s*(?:,\s*(?:and|or)?|\band\b|\bor\b|&|\/)\s*/i)
    .map((s) => s.trim())
    .filter(Boolean);
  return items.length ? { items, end: start + plain[0].length } : undefined;
}

// --- helpers of the family readers -----------------------------------------------------------

/** A family reader: consumes what it understood and returns its check(s), or nothing. */
export type Reader = (rt: RuleText) => Check | Check[] | undefined;

export const Q = '⟦\\d+⟧';
const NEG =
  /\b(?:no|not|never|without|avoid|avoiding|refrain|refraining|cannot|zero|free\s+of|exclude|excluding|omit|omitting|forbid|forbidden|prohibit|prohibited|banned|disallowed|redact|redacted|remove|strip|mask|masked|hide|leak|leaking|expose|exposing|reveal|revealing|disclose|disclosing)\b|n't\b/;
const NEG_AFTER =
  /^[^.;\n]{0,40}?\b(?:(?:are|is|be)\s+(?:not\s+allowed|forbidden|prohibited|banned|disallowed|off-limits|not\s+permitted)|must\s+not|should\s+not|may\s+not|must\s+be\s+(?:removed|redacted|masked|hidden))\b/;

/** The first match of `re` in the unconsumed text, with its absolute position. */
export function find(rt: RuleText, re: RegExp, from = 0): RegExpExecArray | undefined {
  const g = new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`);
  g.lastIndex = from;
  return g.exec(rt.low) ?? undefined;
}

export const end = (m: RegExpExecArray) => m.index + m[0].length;
export const consumeClause = (rt: RuleText, pos: number) => rt.consume(...rt.clauseAt(pos));
/** Consumes every sentence that matches `re` (helper sentences such as "No other words should follow"). */
export function consumeSentencesMatching(rt: RuleText, re: RegExp): void {
  rt.consumeAll(rt.sentences().filter(([s, e]) => re.test(rt.low.slice(s, e))));
}

/**
 * Spans of the lines that `^\s*` followed by `rest` matches (a multiline regex), found as such a
 * regex finds them but in linear time. `\s*` crosses blank lines, so a match starts at the first
 * line start of the blanks before `rest`; when `rest` fails there, it fails from every line start
 * up to the same character, and the search goes on after it. `rest` (sticky, multiline) must not
 * start with a blank.
 */
export function linesStartingWith(low: string, rest: RegExp): [number, number][] {
  const isBreak = (c: string) => c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029';
  const isLineStart = (i: number) => i === 0 || isBreak(low[i - 1]);
  const lineStartFrom = (i: number) => {
    while (i < low.length && !isLineStart(i)) i += 1;
    return i;
  };
  const blanks = /\s*/y;
  const here = new RegExp(rest.source, `${rest.flags.replace(/[gy]/g, '')}y`);
  const out: [number, number][] = [];
  for (let line = 0; line <= low.length && isLineStart(line);) {
    blanks.lastIndex = line;
    blanks.exec(low);
    const first = blanks.lastIndex;
    here.lastIndex = first;
    const m = here.exec(low);
    if (m) out.push([line, first + m[0].length]);
    line = lineStartFrom(m ? first + Math.max(1, m[0].length) : first + 1);
  }
  return out;
}
/** Whether a negation precedes `pos` within its clause (or the sentence says the thing is not allowed after it). */
export function negated(rt: RuleText, pos: number, after?: number): boolean {
  const [s, e] = rt.clauseAt(pos);
  return (
    NEG.test(rt.low.slice(Math.max(s, pos - 60), pos)) ||
    (after !== undefined && NEG_AFTER.test(rt.low.slice(after, e)))
  );
}
export const atLeastOne: Count = { relation: 'at_least', n: 1 };
export const NONE: Count = { relation: 'exactly', n: 0 };
export const unquote = (rt: RuleText, token: string) => rt.quote(token) ?? token;
