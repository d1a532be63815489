/**
 * Readers of the rule families the built-in judge can check, most specific first. Each looks for
 * the ways English states its family ("at least 300 words", "300+ words", "no fewer than 300
 * words"; "do not use any commas", "no commas allowed" …), consumes the words it understood and
 * returns a typed check, or nothing.
 */
import type { Check, Count } from './checks';
import { LANGUAGE_CODES } from './language';
import { findCount, ORDINALS, readList, RuleText } from './rule-text';

export type Reader = (rt: RuleText) => Check | Check[] | undefined;

const Q = '⟦\\d+⟧';
const NEG = /\b(?:no|not|never|without|avoid|avoiding|refrain|refraining|cannot|zero|free\s+of|exclude|excluding|omit|omitting|forbid|forbidden|prohibit|prohibited|banned|disallowed|redact|redacted|remove|strip|mask|masked|hide|leak|leaking|expose|exposing|reveal|revealing|disclose|disclosing)\b|n't\b/;
const NEG_AFTER = /^[^.;\n]{0,40}?\b(?:(?:are|is|be)\s+(?:not\s+allowed|forbidden|prohibited|banned|disallowed|off-limits|not\s+permitted)|must\s+not|should\s+not|may\s+not|must\s+be\s+(?:removed|redacted|masked|hidden))\b/;

/** The first match of `re` in the unconsumed text, with its absolute position. */
function find(rt: RuleText, re: RegExp, from = 0): RegExpExecArray | undefined {
  const g = new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`);
  g.lastIndex = from;
  return g.exec(rt.low) ?? undefined;
}

const end = (m: RegExpExecArray) => m.index + m[0].length;
const consumeClause = (rt: RuleText, pos: number) => rt.consume(...rt.clauseAt(pos));
/** Consumes every sentence that matches `re` (helper sentences such as "No other words should follow"). */
function consumeSentencesMatching(rt: RuleText, re: RegExp): void {
  for (const [s, e] of rt.sentences()) if (re.test(rt.low.slice(s, e))) rt.consume(s, e);
}
/** Whether a negation precedes `pos` within its sentence (or the sentence says the thing is not allowed after it). */
function negated(rt: RuleText, pos: number, after?: number): boolean {
  const [s, e] = rt.sentenceAt(pos);
  return NEG.test(rt.low.slice(Math.max(s, pos - 60), pos)) || (after !== undefined && NEG_AFTER.test(rt.low.slice(after, e)));
}
const atLeastOne: Count = { relation: 'at_least', n: 1 };
const unquote = (rt: RuleText, token: string) => rt.quote(token) ?? token;

// --- whole-response structure ---------------------------------------------------------------

const repeatRequest: Reader = (rt) => {
  const m = find(rt, /\b(?:repeat|repleat|restate|reproduce|echo|recite|copy)(?:ing)?\b/);
  if (!m) return undefined;
  const [s, e] = rt.sentenceAt(m.index);
  const sentence = rt.low.slice(s, e);
  if (!/\b(?:request|prompt|question|instruction|query|sentence|text|message|line|input|task|word\s+for\s+word|verbatim)\b/.test(sentence)) return undefined;
  if (/\b(?:do\s+not|don't|never|without|avoid)\s+(?:\w+\s+)?$/.test(rt.low.slice(s, m.index))) return undefined;
  const quoted = rt.low.slice(end(m), e).match(new RegExp(Q));
  const text = quoted ? rt.quote(quoted[0]) : undefined;
  consumeSentencesMatching(rt, /\b(?:repeat|repleat|restat|reproduc|request|prompt|before\s+(?:you\s+)?(?:answer|respond|repeat|say|giv)|say\s+any|anything\s+(?:before|else)|word\s+for\s+word)/);
  rt.consume(s, e);
  return { kind: 'repeat_request', text };
};

const twoResponses: Reader = (rt) => {
  const m = find(rt, /\b2\s+(?:[\p{L}-]+\s+){0,2}?(?:responses|answers|replies|versions|drafts|variants|alternatives|takes|options)\b|\bpair\s+of\s+(?:responses|answers)\b/u);
  if (!m) return undefined;
  const [s, e] = rt.sentenceAt(m.index);
  const region = rt.raw.slice(s);
  const run = region.match(/([*\-=#~_+])\1{2,}/);
  const counted = rt.low.slice(s).match(/\b(\d+)\s+asterisks?\b/);
  const separator = run ? run[0] : counted ? '*'.repeat(Number(counted[1])) : '******';
  rt.consume(s, e);
  consumeSentencesMatching(rt, /\bseparat|\basterisk|\*{3,}/);
  return { kind: 'two_responses', separator };
};

const options: Reader = (rt) => {
  const m = find(rt, /\b(?:1\s+of\s+the\s+following|1\s+of\s+these|(?:choose|pick|select)\s+(?:only\s+)?(?:1\s+)?(?:from|between|among|of)|answer\s+(?:with\s+)?(?:either|only)|(?:options|choices)\s*:|(?:must|should)\s+be\s+(?:exactly\s+)?1\s+of)/);
  if (!m) return undefined;
  const rest = rt.written.slice(end(m));
  const quotes = [...rest.matchAll(new RegExp(Q, 'g'))].map((q) => rt.quote(q[0])!.trim());
  let items = quotes;
  if (items.length < 2) {
    const after = rest.replace(/^[^:]*:/, '').replace(/^\s*[([{]|[)\]}]\s*$/g, '');
    items = after.split(/\s*(?:,|;|\n|\||\bor\b)\s*/).map((x) => x.trim().replace(/^[("']+|[)"']+$/g, '')).filter((x) => x && !/^¦+$/.test(x));
  }
  if (items.length < 2) return undefined;
  rt.consume(m.index, rt.low.length);
  return { kind: 'options', options: items };
};

const MARKER = `(${Q}|[\\p{L}]+\\s+(?:x|n|#|\\d+|\\{[^}]*\\}|\\[[^\\]]*\\]|<[^>]*>))`;
const sections: Reader = (rt) => {
  const unit = '(?:sections?|parts?|chapters?)';
  const patterns = [
    new RegExp(`\\b(?:mark|label|start|begin|head|title|prefix|introduce|denote|number|indicate|open|precede)\\w*\\s+(?:the\\s+)?(?:beginning\\s+of\\s+|start\\s+of\\s+)?(?:(?:each|every|the|all)\\s+(?:new\\s+)?${unit}|each\\s+(?:1|of\\s+them)|them)\\s+(?:(?:with|using|by|as)\\s+)?(?:the\\s+)?(?:word\\s+|label\\s+|heading\\s+|header\\s+|text\\s+)?${MARKER}`, 'u'),
    new RegExp(`\\b${unit}\\s+(?:should\\s+|must\\s+)?(?:be\\s+)?(?:marked|labell?ed|titled|headed|starting|beginning|numbered|introduced|prefixed|begin|start)\\s+(?:with\\s+|by\\s+|as\\s+|like\\s+)?(?:the\\s+)?(?:word\\s+|label\\s+|heading\\s+)?${MARKER}`, 'u'),
    new RegExp(`\\b(?:use|using|with)\\s+(?:the\\s+)?(?:word\\s+|label\\s+|heading\\s+|header\\s+)?${MARKER}\\s+(?:(?:headers?|headings?|labels?|markers?|titles?)\\s+)?(?:to|for)\\s+(?:mark|label|start|begin|separate|indicate|introduce|denote|number|head)`, 'u'),
  ];
  let m: RegExpExecArray | undefined;
  for (const re of patterns) if ((m = find(rt, re))) break;
  if (!m) return undefined;
  const token = m[1];
  const markerAt = m.index + m[0].lastIndexOf(token);
  const written = rt.quote(token) ?? rt.written.slice(markerAt, markerAt + token.length);
  const marker = written.replace(/\s*(?:X|N|#|\d+|\{[^}]*\}|\[[^\]]*\]|<[^>]*>)\s*$/i, '').trim();
  if (!/^[\p{L}]+$/u.test(marker)) return undefined;
  const found = findCount(rt.low, unit, 'at_least');
  rt.consume(...rt.clauseAt(m.index));
  if (found) rt.consume(found.start, found.end);
  const exampleLine = new RegExp(`^\\s*(?:${marker.toLowerCase()}\\s*\\d+|\\[[^\\]]*\\])\\s*$`, 'gm');
  for (const l of rt.low.matchAll(exampleLine)) rt.consume(l.index, l.index + l[0].length);
  return { kind: 'sections', marker, count: found?.count ?? atLeastOne };
};

const postscript: Reader = (rt) => {
  const cue = /\bpost[- ]?scripts?\b|\bp\.\s?p\.\s?s\b\.?|\bp\.\s?s\.|\bps:/;
  let m = find(rt, cue);
  const quoted = rt.quotes.findIndex((q) => /^\s*p\.?\s?p?\.?\s?s\b/i.test(q));
  if (!m && quoted >= 0) m = find(rt, new RegExp(`⟦${quoted}⟧`));
  if (!m || /\b(?:do\s+not|don't|never|without|no)\s+(?:\w+\s+){0,2}$/.test(rt.low.slice(Math.max(0, m.index - 30), m.index))) return undefined;
  const [s, e] = rt.clauseAt(m.index);
  const region = rt.written.slice(s, e);
  const starter = region.match(new RegExp(`\\b(?:start|begin|mark|prefix|label|open|introduc|head)\\w*\\s+(?:it\\s+)?(?:with|by|as|using)\\s+(?:the\\s+)?(?:marker\\s+|text\\s+|letters\\s+|word\\s+)?(${Q}|P\\.\\s?P\\.\\s?S\\.?|P\\.\\s?S\\.?|[^\\s,;]+)`, 'iu'));
  const explicit = region.match(/\bP\.\s?P\.\s?S\b\.?|\bP\.\s?S\./i);
  let marker = starter ? unquote(rt, starter[1]).trim() : quoted >= 0 ? rt.quotes[quoted].trim() : explicit ? explicit[0] : 'P.S.';
  if (/^p\.?\s?s:?$/i.test(marker)) marker = 'P.S.';
  rt.consume(s, e);
  return { kind: 'postscript', marker: marker.replace(/[.:]$/, '') === 'P.P.S' ? 'P.P.S' : marker };
};

const title: Reader = (rt) => {
  const m = find(rt, /<<|>>|double\s+angul(?:ar|ed)\s+brackets|double\s+angle\s+brackets|angle\s+brackets|double\s+chevrons|«/);
  const q = rt.quotes.findIndex((x) => x.includes('<<'));
  const at = m?.index ?? (q >= 0 ? find(rt, new RegExp(`⟦${q}⟧`))?.index : undefined);
  if (at === undefined) return undefined;
  consumeClause(rt, at);
  return { kind: 'title' };
};

const ORD = `(?:${Object.keys(ORDINALS).join('|')}|\\d+(?:st|nd|rd|th))`;
const PARA = `(?:paragraph\\s+(?:#|no\\.?\\s*|number\\s+)?(?<n>\\d+)|(?<o>${ORD})\\s+paragraph)`;
const FIRST_WORD = `(?:the\\s+)?(?:(?:key)?word|term)?\\s*:?\\s*(?<w>${Q}|[\\p{L}\\p{N}][\\p{L}\\p{N}'’-]*)`;
const paragraphFirstWord: Reader = (rt) => {
  const patterns = [
    new RegExp(`${PARA}\\s+(?:(?:must|should|has\\s+to|needs\\s+to|will|shall|is\\s+to|ought\\s+to)\\s+)?(?:\\w+\\s+)?(?:start|begin|open|lead)s?\\s+(?:off\\s+)?with\\s+${FIRST_WORD}`, 'u'),
    new RegExp(`(?:start|begin|open)\\s+(?:the\\s+)?${PARA}\\s+with\\s+${FIRST_WORD}`, 'u'),
    new RegExp(`first\\s+word\\s+of\\s+(?:the\\s+)?${PARA}\\s+(?:(?:must|should|has\\s+to|needs\\s+to|will|shall)\\s+)?(?:be|is)\\s*:?\\s*${FIRST_WORD}`, 'u'),
  ];
  for (const re of patterns) {
    const m = find(rt, re);
    if (!m?.groups) continue;
    const { n, o, w } = m.groups;
    const nth = n ? Number(n) : ORDINALS[o] ?? Number(o.replace(/\D/g, ''));
    const word = unquote(rt, w).trim().replace(/[.,!?;:"']+$/, '');
    rt.consume(m.index, end(m));
    return { kind: 'paragraph_first_word', nth, word };
  }
  return undefined;
};

const paragraphs: Reader = (rt) => {
  const found = findCount(rt.low, 'paragraphs?', 'exactly');
  if (!found) return undefined;
  const divider = /\*\*\*|markdown\s+divider|\bdividers?\b|horizontal\s+(?:rule|line)s?|\basterisks?\b/.test(rt.low) || rt.quotes.some((q) => q.trim() === '***');
  rt.consume(found.start, found.end);
  consumeSentencesMatching(rt, /paragraph[^.]*\bseparat|\bseparat[^.]*paragraph|markdown\s+divider/);
  return { kind: 'paragraphs', count: found.count, separator: divider ? 'divider' : 'blank_line' };
};

const bullets: Reader = (rt) => {
  const noun = 'bullet(?:ed)?(?:\\s*(?:points?|items?|lists?))?|bullets|(?:markdown\\s+)?list\\s+items?|items?|points|entries|lines';
  const m = find(rt, /\bbullet(?:ed)?s?\b|\blist\s+items?\b|\bmarkdown\s+(?:list|items?)\b|\bitemi[sz]ed\b/);
  if (!m) return undefined;
  const [s, e] = rt.clauseAt(m.index);
  const found = findCount(rt.low, noun, 'exactly', s, e) ?? findCount(rt.low, noun, 'exactly');
  rt.consume(s, e);
  if (found) rt.consume(found.start, found.end);
  for (const l of rt.low.matchAll(/^\s*[*-]\s.*$/gm)) rt.consume(l.index, l.index + l[0].length);
  return { kind: 'bullets', count: found?.count ?? atLeastOne };
};

const highlights: Reader = (rt) => {
  const m = find(rt, /\bhighlight(?:ed|ing|s)?\b|\bitalic(?:s|i[sz]e[sd]?)?\b|\bbold(?:ed|face)?\b|\bemphasi[sz]/);
  if (!m || negated(rt, m.index)) return undefined;
  const [s, e] = rt.clauseAt(m.index);
  const noun = '(?:sections?|parts?|phrases?|words?|passages?|portions?|segments?|spans?|sentences?|items?|points?|areas?|headings?|titles?|lines?|text|highlights?|terms?|places?)';
  const found = findCount(rt.low, noun, 'at_least', s, e);
  rt.consume(s, e);
  return { kind: 'highlights', count: found?.count ?? atLeastOne };
};

const placeholders: Reader = (rt) => {
  const m = find(rt, /\bplaceholders?\b|\bsquare\s+brackets\b/);
  if (!m) return undefined;
  const [s, e] = rt.clauseAt(m.index);
  const found = findCount(rt.low, '(?:placeholders?|(?:[\\p{L}-]+\\s+){0,2}?(?:in|within|inside|using)\\s+square\\s+brackets)', 'at_least', s, e);
  rt.consume(s, e);
  return { kind: 'placeholders', count: found?.count ?? atLeastOne };
};

// --- words, letters and case ------------------------------------------------------------------

const TIMES = 'times?|occurrences?|instances?|×';

const letterFrequency: Reader = (rt) => {
  const m = find(rt, new RegExp(`\\b(?:the\\s+)?(?:letter|character|char)\\s+(${Q}|\\p{L})(?![\\p{L}])|(${Q}|\\b\\p{L})\\s+(?:letter|character)s?\\b`, 'u'));
  if (!m) return undefined;
  const letter = unquote(rt, m[1] ?? m[2]).trim();
  if ([...letter].length !== 1) return undefined;
  const [s, e] = rt.clauseAt(m.index);
  const found = findCount(rt.low, TIMES, 'exactly', s, e);
  if (!found) return undefined;
  rt.consume(s, e);
  return { kind: 'letter_frequency', letter: letter.toLowerCase(), count: found.count };
};

const capitalWords: Reader = (rt) => {
  const caps = '(?:capital(?:s|\\s+letters?)?|caps|upper[- ]?case(?:\\s+letters)?|block\\s+(?:letters|capitals))';
  const m = find(rt, new RegExp(`\\bwords?\\s+(?:(?:that|which|are|is|written|typed|spelled|set|entirely|fully|completely|wholly|purely)\\s+)*(?:with|in|using)\\s+(?:all\\s+|only\\s+|full\\s+)?${caps}|\\bwords?\\s+(?:(?:that|which|are|is)\\s+)+(?:all[- ]caps|fully\\s+capitali[sz]ed|entirely\\s+capitali[sz]ed|upper[- ]?case)|\\b(?:all[- ]?caps?|all[- ]capitals?|all[- ]capital(?:i[sz]ed)?|(?:fully|entirely|completely)\\s+capitali[sz]ed|upper[- ]?case|capital-letter)\\s+words?\\b|\\b(?:use|write|put|type)\\s+(?:all[- ]caps|${caps})\\s+(?:for|on|in)\\s+(?=(?:[\\p{L}]+\\s+){0,4}?\\d+\\s+(?:[\\p{L}-]+\\s+)?words?\\b)`, 'u'));
  if (!m) return undefined;
  const [s, e] = rt.clauseAt(m.index);
  const found = findCount(rt.low, `${TIMES}|(?:all[- ]?caps?\\s+|capitali[sz]ed\\s+|upper[- ]?case\\s+)?words?|such\\s+words`, 'at_least', s, e);
  if (!found) return undefined;
  rt.consume(s, e);
  return { kind: 'capital_words', count: found.count };
};

const keywordFrequency: Reader = (rt) => {
  const patterns = [
    new RegExp(`\\b(?:the\\s+)?(?:key)?(?:word|term|phrase|keyword|name|token)\\s+(${Q}|[\\p{L}\\p{N}][\\p{L}\\p{N}'’-]*)`, 'u'),
    new RegExp(`\\b(?:use|mention|include|repeat|say|write|put|feature)\\s+(?:the\\s+)?(?:(?:key)?(?:word|term|phrase|keyword)\\s+)?(${Q}|[\\p{L}\\p{N}][\\p{L}\\p{N}'’-]*)(?=\\s+(?:[\\p{L}]+\\s+){0,3}?\\d)`, 'u'),
    new RegExp(`(${Q})\\s+(?:should|must|has\\s+to|needs\\s+to|is\\s+to|shall|will|may|can|to)?\\s*(?:\\w+\\s+){0,2}?(?:appear|occur|be\\s+used|be\\s+mentioned|be\\s+included|show\\s+up|be\\s+repeated|be\\s+present|feature)`, 'u'),
  ];
  for (const re of patterns) {
    for (let m = find(rt, re); m; m = find(rt, re, m.index + 1)) {
      const [s, e] = rt.clauseAt(m.index);
      const found = findCount(rt.low, TIMES, 'exactly', s, e);
      if (!found) continue;
      const word = unquote(rt, m[1]).trim();
      if (!word || /^(?:count|limit|length|number)$/.test(word)) continue;
      rt.consume(Math.min(m.index, found.start), Math.max(end(m), found.end));
      return { kind: 'keyword_frequency', word, count: found.count };
    }
  }
  return undefined;
};

const letterCase: Reader = (rt) => {
  const lowerCue = find(rt, /\blower[- ]?case\b|\bsmall\s+letters\b|\bnon-capitali[sz]ed\b/);
  const noUpper = find(rt, /\b(?:no|without|not\s+(?:use|contain|include|have)|zero|avoid|never\s+use)\s+(?:any\s+)?(?:capital|upper[- ]?case)(?:\s+letters?|s)?\b|\bcapital(?:\s+letters?|s)?\s+(?:are|is)\s+(?:not\s+allowed|forbidden|prohibited|banned|not\s+permitted)|\bnot\s+capitali[sz]e|\bno\s+capitali[sz]ation/);
  const upperCue = find(rt, /\b(?:(?:in|using|use|with|written\s+in|write\s+in|all|entirely|only|completely|exclusively|whole)\s+)+(?:capital\s+letters|capitals|caps|upper[- ]?case(?:\s+letters)?|block\s+(?:capitals|letters))\b|\ball[- ]caps\b|\b(?:capital\s+letters|caps|upper[- ]?case)\s+only\b|\bcapitali[sz]e\s+(?:every|all|each)\s+(?:letter|word)/);
  const noLower = find(rt, /\b(?:no|without|not\s+(?:use|contain|include|have)|zero|avoid)\s+(?:any\s+)?lower[- ]?case(?:\s+letters?)?\b|\blower[- ]?case(?:\s+letters?)?\s+(?:are|is)\s+(?:not\s+allowed|forbidden|prohibited|banned)/);
  const lower = (lowerCue && !noLower) || noUpper;
  const upper = upperCue || noLower;
  if (!lower === !upper) return undefined;
  for (const m of [lowerCue, noUpper, upperCue, noLower]) if (m) rt.consume(m.index, end(m));
  return { kind: lower ? 'lowercase' : 'uppercase' };
};

const LANGS = Object.keys(LANGUAGE_CODES).join('|');
const language: Reader = (rt) => {
  const m = find(rt, new RegExp(`\\b(?:in|into|to|using|use|speak|speaking|only|entirely|purely|solely|exclusively)\\s+(?:[\\p{L}]+\\s+){0,2}?(${LANGS})\\b|\\b(${LANGS})\\s+(?:language|only)\\b|\\blanguage\\s*(?:should|must|has\\s+to|needs\\s+to|will)?\\s*(?:be|is|:)\\s*(${LANGS})\\b|\\b(?:be|is|are)\\s+(?:written\\s+)?(?:entirely\\s+|only\\s+|fully\\s+|all\\s+)?(${LANGS})\\b`, 'u'));
  if (!m) return undefined;
  const before = rt.low.slice(Math.max(0, m.index - 25), m.index + m[0].length);
  if (/\b(?:not|never|other\s+than|except|besides|no)\s+(?:\w+\s+){0,2}(?:in\s+)?[\p{L}]+$/u.test(before) && !/\bno other\b/.test(before)) return undefined;
  const code = LANGUAGE_CODES[(m[1] ?? m[2] ?? m[3] ?? m[4]).toLowerCase()];
  rt.consume(m.index, end(m));
  consumeSentencesMatching(rt, /\bno\s+other\s+language|\blanguage\s+is\s+(?:allowed|permitted)/);
  return { kind: 'language', code };
};

// --- formats, phrases, punctuation ------------------------------------------------------------

const json: Reader = (rt) => {
  const m = find(rt, /\bjson\b/);
  if (!m || negated(rt, m.index)) return undefined;
  consumeClause(rt, m.index);
  return { kind: 'json' };
};

const quotation: Reader = (rt) => {
  const marks = '(?:double\\s+)?(?:quotation\\s+marks?|quotes|quote\\s+marks|inverted\\s+commas)';
  const m = find(rt, new RegExp(`\\b(?:wrap|enclose|surround|put|place|encase|contain|present|write|give|format|deliver|provide)\\w*\\b[^.;\\n]{0,60}?\\b(?:in|with|within|inside|between|by)\\s+(?:a\\s+(?:pair|set)\\s+of\\s+)?${marks}|\\b(?:in|within|inside|between)\\s+${marks}|\\b(?:start|begin)\\w*\\s+and\\s+end\\w*\\s+with\\s+(?:a\\s+)?(?:double\\s+)?(?:quotation\\s+mark|quote)`));
  if (!m) return undefined;
  const [s, e] = rt.clauseAt(m.index);
  if (!/\b(?:entire|whole|response|answer|output|reply|everything|all\s+of)\b/.test(rt.low.slice(s, e))) return undefined;
  rt.consume(s, e);
  return { kind: 'quotation' };
};

const PIECE = '(?:response|answer|reply|email|e-mail|letter|message|essay|story|output|text|poem|post|note|article|blog|piece|speech|summary|review)';
const QUALIFIER = '(?<q>(?:phrase|sentence|words?|question|line|text|statement|expression|exact\\s+words)\\s*:?\\s*)?';

/**
 * The phrase after a start/end cue: a quote; after a colon, the rest of the line; after "phrase",
 * "words" and the like (or when the cue itself names the words, `inherent`), the rest of the
 * sentence. An unquoted phrase is compared loosely (a final period does not matter).
 */
function phraseAfter(rt: RuleText, m: RegExpExecArray, inherent = false): { phrase: string; end: number; loose: boolean } | undefined {
  const at = end(m);
  const rest = rt.written.slice(at);
  const quoted = rest.match(new RegExp(`^\\s*:?\\s*(${Q})`));
  if (quoted) return { phrase: rt.quote(quoted[1])!.trim(), end: at + quoted[0].length, loose: false };
  const colon = /:\s*$/.test(m[0]) ? rest.match(/^\s*([^\n]+)/) : rest.match(/^\s*:\s*([^\n]+)/);
  const plain = colon ?? (m.groups?.q || inherent ? rest.match(/^\s*(.+?[?!]?)(?:\.(?=\s|$)|(?<=[?!])\.?(?=\s|$)|\n|$)/) : null);
  if (!plain || /¦/.test(plain[1])) return undefined;
  const phrase = plain[1].trim();
  return phrase ? { phrase, end: at + plain[0].length, loose: true } : undefined;
}

const endsWith: Reader = (rt) => {
  const patterns = [
    new RegExp(`\\b(?:end|finish|conclude|close|wrap\\s+up|sign\\s+off|terminate)(?:s|ing)?\\s+(?:(?:your|the|this|each)\\s+)?(?:(?:entire|whole|full)\\s+)?(?:${PIECE}\\s+)?(?:with|by\\s+saying|by\\s+writing|on)\\s+(?:the\\s+|this\\s+)?(?:(?:exact|following|same|precise)\\s+)*${QUALIFIER}`),
    new RegExp(`\\b(?:last|final|closing|ending)\\s+(?:words?|sentence|line|phrase)\\s+(?:of\\s+(?:your|the)\\s+${PIECE}\\s+)?(?:must|should|has\\s+to|needs\\s+to|will|shall)\\s+be\\s*:?\\s*(?:the\\s+)?(?:(?:exact|following)\\s+)*${QUALIFIER}`),
  ];
  for (const [i, re] of patterns.entries()) {
    const m = find(rt, re);
    if (!m) continue;
    const p = phraseAfter(rt, m, i === 1);
    if (!p) continue;
    rt.consume(m.index, p.end);
    consumeSentencesMatching(rt, /\bfollow\s+(?:this|the|that)\s+(?:phrase|sentence)|\bno\s+other\s+words|\bnothing\s+(?:else\s+)?(?:after|should\s+follow)/);
    return { kind: 'ends_with', phrase: p.phrase, loose: p.loose };
  }
  return undefined;
};

const startsWith: Reader = (rt) => {
  const patterns = [
    new RegExp(`\\b(?:start|begin|open)(?:s|ing)?\\s+(?:(?:your|the|this|each)\\s+)?(?:(?:entire|whole|full)\\s+)?(?:${PIECE}\\s+)?(?:with|by\\s+saying|by\\s+writing)\\s+(?:the\\s+|this\\s+)?(?:(?:exact|following|same|precise)\\s+)*${QUALIFIER}`),
    new RegExp(`\\b(?:first|opening)\\s+(?:words?|sentence|line|phrase)\\s+(?:of\\s+(?:your|the)\\s+${PIECE}\\s+)?(?:must|should|has\\s+to|needs\\s+to|will|shall)\\s+be\\s*(?:the\\s+)?(?:(?:exact|following)\\s+)*${QUALIFIER}`),
  ];
  for (const [i, re] of patterns.entries()) {
    const m = find(rt, re);
    if (!m) continue;
    const p = phraseAfter(rt, m, i === 1);
    if (!p) continue;
    rt.consume(m.index, p.end);
    return { kind: 'starts_with', phrase: p.phrase, loose: p.loose };
  }
  return undefined;
};

const noCommas: Reader = (rt) => {
  const m = find(rt, /\bcommas?\b|\bcomma-free\b/);
  if (!m) return undefined;
  if (!/comma-free/.test(m[0]) && !negated(rt, m.index, end(m))) return undefined;
  consumeClause(rt, m.index);
  return { kind: 'no_commas' };
};

// --- support-specific -------------------------------------------------------------------------

/** "no X" families: a noun that must be negated to make a rule. */
function absence(nounRe: RegExp, kind: 'no_emails' | 'no_phones' | 'no_card_numbers' | 'no_secrets'): Reader {
  return (rt) => {
    const m = find(rt, nounRe);
    if (!m || !negated(rt, m.index, end(m))) return undefined;
    rt.consume(m.index, end(m));
    return { kind };
  };
}

const links: Reader = (rt) => {
  const m = find(rt, /\b(?:hyper)?links?\b|\burls?\b|\bweb\s*(?:links?|addresses|address)\b/);
  if (!m) return undefined;
  if (negated(rt, m.index, end(m))) {
    rt.consume(m.index, end(m));
    return { kind: 'links', required: false };
  }
  const [s] = rt.sentenceAt(m.index);
  if (!/\b(?:include|contain|provide|add|have|give|share|cite|insert|with|point)\w*\b/.test(rt.low.slice(s, m.index))) return undefined;
  rt.consume(m.index, end(m));
  return { kind: 'links', required: true };
};

const mentions: Reader = (rt) => {
  const m = find(rt, new RegExp(`\\b(?:mention|reference|name|cite|include|refer\\s+to|talk\\s+about|recommend)(?:s|ing|ed)?\\s+(?:the\\s+|our\\s+|a\\s+)?(?:product|brand|service|app|application|tool|plan|offering|solution|feature)(?:\\s+name)?\\s*:?\\s*(?:called\\s+|named\\s+)?(${Q}|[\\p{L}\\p{N}][\\w&+.-]*(?:\\s+[\\p{L}\\p{N}][\\w&+.-]*){0,3})`, 'u'));
  if (!m) return undefined;
  const tokenAt = m.index + m[0].lastIndexOf(m[1]);
  let name = rt.quote(m[1]);
  if (!name) {
    const words = rt.written.slice(tokenAt, tokenAt + m[1].length).split(/\s+/);
    const capital = words.filter((_, i) => words.slice(0, i + 1).every((w) => /^[\p{Lu}\p{N}]/u.test(w)));
    name = capital.join(' ').replace(/[.,;:]+$/, '');
  }
  if (!name) return undefined;
  rt.consume(m.index, tokenAt + m[1].length);
  return negated(rt, m.index) ? { kind: 'forbidden_words', words: [name] } : { kind: 'mentions', words: [name] };
};

// --- keywords -----------------------------------------------------------------------------------

const KEYWORDS = '(?:key)?(?:words?|terms?|phrases?|keywords?|expressions?)';
const forbiddenWords: Reader = (rt) => {
  const negv = "(?:do\\s+not|don't|never|must\\s+not|should\\s+not|cannot|can't|without|avoid(?:ing)?|refrain\\s+from|exclude|excluding|omit|no)";
  const a = find(rt, new RegExp(`\\b${negv}\\s+(?:[\\p{L}']+\\s+){0,3}?(?:the\\s+|any\\s+(?:of\\s+)?(?:the\\s+)?)?(?:following\\s+)?${KEYWORDS}\\s*(?:like\\s+|such\\s+as\\s+)?:?`, 'u'));
  const c = find(rt, new RegExp(`\\b${negv}\\s+(?:[\\p{L}']+\\s+){0,2}?(?:mention(?:ing)?|say(?:ing)?|us(?:e|ing)|includ(?:e|ing)|writ(?:e|ing)|utter(?:ing)?|contain(?:ing)?|featur(?:e|ing)|hav(?:e|ing)|incorporat(?:e|ing)|employ(?:ing)?)\\s+(?:any\\s+of\\s+)?(?=${Q})`, 'u'));
  for (const m of [a, c]) {
    if (!m) continue;
    const list = readList(rt, end(m));
    if (!list) continue;
    rt.consume(m.index, list.end);
    return { kind: 'forbidden_words', words: list.items };
  }
  const b = find(rt, new RegExp(`\\b(?:the\\s+)?${KEYWORDS}\\s+(?=${Q}|[\\p{L}])`, 'u'));
  if (b) {
    const list = readList(rt, end(b));
    if (list && /^\s*(?:(?:must|should|may|can|are|is|shall)\s*(?:not|never|n't)|(?:are|is)\s+(?:forbidden|banned|not\s+allowed|prohibited|off-limits))/.test(rt.low.slice(list.end))) {
      rt.consume(b.index, list.end);
      return { kind: 'forbidden_words', words: list.items };
    }
  }
  return undefined;
};

const keywords: Reader = (rt) => {
  const verbs = '(?:include|use|mention|contain|incorporate|feature|add|insert|have|with|containing|including|using|featuring|integrate|work|weave|put|drop)';
  const a = find(rt, new RegExp(`\\b${verbs}\\w*\\s+(?:[\\p{L}']+\\s+){0,3}?(?:the\\s+)?(?:following\\s+)?${KEYWORDS}\\s*:?`, 'u'));
  const c = find(rt, new RegExp(`\\b${verbs}\\w*\\s+(?:both\\s+)?(?=${Q})`, 'u'));
  for (const m of [a, c]) {
    if (!m || negated(rt, m.index)) continue;
    const list = readList(rt, end(m));
    if (!list) continue;
    rt.consume(m.index, list.end);
    return { kind: 'keywords', words: list.items };
  }
  const b = find(rt, new RegExp(`\\b(?:the\\s+)?${KEYWORDS}\\s+(?=${Q}|[\\p{L}])`, 'u'));
  if (b) {
    const list = readList(rt, end(b));
    if (list && /^\s*(?:(?:must|should|need\s+to|needs\s+to|have\s+to|has\s+to|are\s+to|to)\s+)?(?:\w+\s+)?(?:appear|appears|be\s+included|be\s+used|be\s+present|be\s+mentioned|feature|show\s+up|occur)/.test(rt.low.slice(list.end))) {
      rt.consume(b.index, list.end);
      return { kind: 'keywords', words: list.items };
    }
  }
  return undefined;
};

// --- lengths --------------------------------------------------------------------------------

function length(kind: 'words' | 'sentences' | 'characters', noun: string): Reader {
  return (rt) => {
    const found = findCount(rt.low, noun, 'exactly');
    if (!found) return undefined;
    rt.consume(found.start, found.end);
    return { kind, count: found.count };
  };
}

/** The readers in the order they run: the most specific families claim their words first. */
export const READERS: Reader[] = [
  repeatRequest, twoResponses, options, sections, postscript, title, paragraphFirstWord, paragraphs, bullets, highlights,
  placeholders, letterFrequency, capitalWords, keywordFrequency, letterCase, language, json, quotation, endsWith, startsWith,
  noCommas,
  absence(/\be-?mail\s+(?:addresses|address|ids?)\b|\be-?mails\b/, 'no_emails'),
  absence(/\b(?:(?:tele)?phone|mobile|cell(?:ular)?|contact|fax)\s*(?:phone\s*)?(?:numbers?|#)\b|\bphones?\b/, 'no_phones'),
  absence(/\b(?:(?:credit|debit|payment|bank|customer)\s+)?card\s*(?:numbers?|details|data|info(?:rmation)?)\b|\bcredit\s+cards?\b|\bpans?\b/, 'no_card_numbers'),
  absence(/\b(?:secrets?|api[- ]?keys?|access\s+keys?|secret\s+keys?|private\s+keys?|(?:access|auth|api|bearer)\s+tokens?|tokens?|passwords?|passphrases?|credentials?)\b/, 'no_secrets'),
  links, mentions, forbiddenWords, keywords,
  length('words', 'words?'), length('sentences', 'sentences?'), length('characters', 'characters?|chars'),
];
