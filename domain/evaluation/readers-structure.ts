/**
 * Readers of the structure and format families: repeated request, two responses, fixed options,
 * sections, postscripts, titles, paragraphs, bullets, highlights, placeholders, JSON, quotation
 * wrapping, starting and ending phrases, commas. Each looks for the ways English states its family,
 * consumes the words it understood and returns a typed check, or nothing.
 */
import {
  atLeastOne,
  consumeClause,
  consumeSentencesMatching,
  end,
  find,
  findCount,
  linesStartingWith,
  negated,
  NONE,
  ORDINALS,
  Q,
  type Reader,
  RuleText,
  unquote,
} from './rule-text';

// --- whole-response structure ---------------------------------------------------------------

export const repeatRequest: Reader = (rt) => {
  const m = find(rt, /\b(?:repeat|restate|reproduce|echo|recite|copy)(?:ing)?\b/);
  if (!m) return undefined;
  const [s, e] = rt.sentenceAt(m.index);
  const sentence = rt.low.slice(s, e);
  if (
    !/\b(?:request|prompt|question|instruction|query|sentence|text|message|line|input|task|word\s+for\s+word|verbatim)\b/.test(
      sentence,
    )
  )
    return undefined;
  if (/\b(?:do\s+not|don't|never|without|avoid)\s+(?:\w+\s+)?$/.test(rt.low.slice(s, m.index))) return undefined;
  const quoted = rt.low.slice(end(m), e).match(new RegExp(Q));
  const text = quoted ? rt.quote(quoted[0]) : undefined;
  consumeSentencesMatching(
    rt,
    /\b(?:repeat|restat|reproduc|request|prompt|before\s+(?:you\s+)?(?:answer|respond|repeat|say|giv)|say\s+any|anything\s+(?:before|else)|word\s+for\s+word)/,
  );
  rt.consume(s, e);
  return text ? { kind: 'repeat_request', text } : { kind: 'repeat_request' };
};

export const twoResponses: Reader = (rt) => {
  const m = find(
    rt,
    /\b2\s+(?:[\p{L}-]+\s+){0,2}?(?:responses|answers|replies|versions|drafts|variants|alternatives|takes)\b|\bpair\s+of\s+(?:responses|answers)\b/u,
  );
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

export const options: Reader = (rt) => {
  const m = find(
    rt,
    /\b(?:1\s+of\s+the\s+following|1\s+of\s+these|(?:choose|pick|select)\s+(?:only\s+)?(?:1\s+)?(?:from|between|among|of)|(?:answer|respond|reply)\s+(?:only\s+)?with\s+(?:either|exactly\s+1\s+of|only\s+1\s+of)|(?:options|choices)\s*:|(?:must|should)\s+be\s+(?:exactly\s+)?1\s+of)/,
  );
  if (!m) return undefined;
  const rest = rt.written.slice(end(m));
  const quotes = [...rest.matchAll(new RegExp(Q, 'g'))].map((q) => rt.quote(q[0])!.trim());
  let items = quotes;
  if (items.length < 2) {
    const after = rest.replace(/^[^:]*:/, '').replace(/^\s*[([{]|[)\]}]\s*$/g, '');
    items = after
      .split(/\s*(?:,|;|\n|\||\s\/\s|\bor\b)\s*/)
      .map((x) => x.trim().replace(/^[("']+|[)"']+$/g, ''))
      .filter((x) => x && !/^¦+$/.test(x));
  }
  if (items.length < 2) return undefined;
  rt.consume(m.index, rt.low.length);
  return { kind: 'options', options: items };
};

const MARKER = `(${Q}|[\\p{L}]+\\s+(?:x|n|#|\\d+|\\{[^}]*\\}|\\[[^\\]]*\\]|<[^>]*>|followed\\s+by\\s+(?:its|the|a)\\s+(?:number|index|numeral)))`;
export const sections: Reader = (rt) => {
  const unit = '(?:sections?|parts?|chapters?)';
  const patterns = [
    new RegExp(
      `\\b(?:mark|label|start|begin|head|title|prefix|introduce|denote|number|indicate|open|precede)\\w*\\s+(?:the\\s+)?(?:beginning\\s+of\\s+|start\\s+of\\s+)?(?:(?:each|every|the|all)\\s+(?:new\\s+)?${unit}|each\\s+(?:1|of\\s+them)|them)\\s+(?:(?:with|using|by|as)\\s+)?(?:the\\s+)?(?:word\\s+|label\\s+|heading\\s+|header\\s+|text\\s+)?${MARKER}`,
      'u',
    ),
    new RegExp(
      `\\b${unit}\\s*,?\\s+(?:each\\s+|all\\s+)?(?:should\\s+|must\\s+)?(?:be\\s+)?(?:marked|labell?ed|titled|headed|starting|beginning|numbered|introduced|prefixed|begin|start)\\s+(?:with\\s+|by\\s+|as\\s+|like\\s+)?(?:the\\s+)?(?:word\\s+|label\\s+|heading\\s+)?${MARKER}`,
      'u',
    ),
    new RegExp(
      `\\b(?:use|using|with)\\s+(?:the\\s+)?(?:word\\s+|label\\s+|heading\\s+|header\\s+)?${MARKER}\\s+(?:(?:headers?|headings?|labels?|markers?|titles?)\\s+)?(?:to|for)\\s+(?:mark|label|start|begin|separate|indicate|introduce|denote|number|head)`,
      'u',
    ),
  ];
  let m: RegExpExecArray | undefined;
  for (const re of patterns) if ((m = find(rt, re))) break;
  if (!m) return undefined;
  const token = m[1];
  const markerAt = m.index + m[0].lastIndexOf(token);
  const written = rt.quote(token) ?? rt.written.slice(markerAt, markerAt + token.length);
  const marker = written
    .replace(
      // "SECTION X", "Part N", "Day 1", "Step {n}": the number's stand-in is a word of its own ("SECTION" keeps its N).
      /(?:\s+(?:X|N)|\s*(?:#|\d+|\{[^}]*\}|\[[^\]]*\]|<[^>]*>)|\s+followed\s+by\s+(?:its|the|a)\s+(?:number|index|numeral))\s*$/i,
      '',
    )
    .trim();
  if (!/^[\p{L}]+$/u.test(marker)) return undefined;
  const found = findCount(rt.low, unit, 'at_least');
  rt.consume(...rt.clauseAt(m.index));
  if (found) rt.consume(found.start, found.end);
  // Example lines such as "SECTION 1" or "[content]" (a bracket closed on its own line).
  rt.consumeAll(
    linesStartingWith(rt.low, new RegExp(`(?:${marker.toLowerCase()}\\s*\\d+|\\[[^\\]\\n]*\\])\\s*$`, 'm')),
  );
  return { kind: 'sections', marker, count: found?.count ?? atLeastOne };
};

export const postscript: Reader = (rt) => {
  const cue = /\bpost[- ]?scripts?\b|\bp\.\s?p\.\s?s\b\.?|\bp\.\s?s\.|\bps:/;
  let m = find(rt, cue);
  const quoted = rt.quotes.findIndex((q) => /^\s*p\.?\s?p?\.?\s?s\b/i.test(q));
  if (!m && quoted >= 0) m = find(rt, new RegExp(`⟦${quoted}⟧`));
  if (
    !m ||
    /\b(?:do\s+not|don't|never|without|no)\s+(?:\w+\s+){0,2}$/.test(rt.low.slice(Math.max(0, m.index - 30), m.index))
  )
    return undefined;
  const [s, e] = rt.clauseAt(m.index);
  const region = rt.written.slice(s, e);
  const starter = region.match(
    new RegExp(
      `\\b(?:start|begin|mark|prefix|label|open|introduc|head)\\w*\\s+(?:it\\s+)?(?:with|by|as|using)\\s+(?:the\\s+)?(?:marker\\s+|text\\s+|letters\\s+|word\\s+)?(${Q}|P\\.\\s?P\\.\\s?S\\.?|P\\.\\s?S\\.?|[^\\s,;]+)`,
      'iu',
    ),
  );
  const explicit = region.match(/\bP\.\s?P\.\s?S\b\.?|\bP\.\s?S\./i);
  let marker = starter
    ? unquote(rt, starter[1]).trim()
    : quoted >= 0
      ? rt.quotes[quoted].trim()
      : explicit
        ? explicit[0]
        : 'P.S.';
  if (/^p\.?\s?s:?$/i.test(marker)) marker = 'P.S.';
  rt.consume(s, e);
  return { kind: 'postscript', marker: marker.replace(/[.:]$/, '') === 'P.P.S' ? 'P.P.S' : marker };
};

export const title: Reader = (rt) => {
  const m = find(
    rt,
    /<<|>>|double\s+angul(?:ar|ed)\s+brackets|double\s+angle\s+brackets|angle\s+brackets|double\s+chevrons|«/,
  );
  const q = rt.quotes.findIndex((x) => x.includes('<<'));
  const at = m?.index ?? (q >= 0 ? find(rt, new RegExp(`⟦${q}⟧`))?.index : undefined);
  if (at === undefined || negated(rt, at)) return undefined;
  consumeClause(rt, at);
  return { kind: 'title' };
};

const ORD = `(?:${Object.keys(ORDINALS).join('|')}|\\d+(?:st|nd|rd|th))`;
const PARA = `(?:paragraph\\s+(?:#|no\\.?\\s*|number\\s+)?(?<n>\\d+)|(?<o>${ORD})\\s+paragraph)`;
const FIRST_WORD = `(?:the\\s+)?(?:(?:key)?word|term)?\\s*:?\\s*(?<w>${Q}|[\\p{L}\\p{N}][\\p{L}\\p{N}'’-]*)`;
export const paragraphFirstWord: Reader = (rt) => {
  const patterns = [
    new RegExp(
      `${PARA}\\s+(?:(?:must|should|has\\s+to|needs\\s+to|will|shall|is\\s+to|ought\\s+to)\\s+)?(?:\\w+\\s+)?(?:start|begin|open|lead)s?\\s+(?:off\\s+)?with\\s+${FIRST_WORD}`,
      'u',
    ),
    new RegExp(`(?:start|begin|open)\\s+(?:the\\s+)?${PARA}\\s+with\\s+${FIRST_WORD}`, 'u'),
    new RegExp(
      `first\\s+word\\s+of\\s+(?:the\\s+)?${PARA}\\s+(?:(?:must|should|has\\s+to|needs\\s+to|will|shall)\\s+)?(?:be|is)\\s*:?\\s*${FIRST_WORD}`,
      'u',
    ),
  ];
  for (const re of patterns) {
    const m = find(rt, re);
    if (!m?.groups) continue;
    const { n, o, w } = m.groups;
    const nth = n ? Number(n) : (ORDINALS[o] ?? Number(o.replace(/\D/g, '')));
    const word = unquote(rt, w)
      .trim()
      .replace(/[.,!?;:"']+$/, '');
    rt.consume(m.index, end(m));
    return { kind: 'paragraph_first_word', nth, word };
  }
  return undefined;
};

export const paragraphs: Reader = (rt) => {
  const found = findCount(rt.low, 'paragraphs?', 'exactly');
  if (!found) return undefined;
  const divider =
    /\*\*\*|markdown\s+divider|\bdividers?\b|horizontal\s+(?:rule|line)s?|\basterisks?\b/.test(rt.low) ||
    rt.quotes.some((q) => q.trim() === '***');
  rt.consume(found.start, found.end);
  consumeSentencesMatching(rt, /paragraph[^.]*\bseparat|\bseparat[^.]*paragraph|markdown\s+divider/);
  return { kind: 'paragraphs', count: found.count, separator: divider ? 'divider' : 'blank_line' };
};

export const bullets: Reader = (rt) => {
  const noun =
    'bullet(?:ed)?(?:\\s*(?:points?|items?|lists?))?|bullets|(?:markdown\\s+)?list\\s+items?|items?|points|entries|lines';
  const m = find(rt, /\bbullet(?:ed)?s?\b|\blist\s+items?\b|\bmarkdown\s+(?:list|items?)\b|\bitemi[sz]ed\b/);
  if (!m) return undefined;
  const [s, e] = rt.clauseAt(m.index);
  const found = findCount(rt.low, noun, 'exactly', s, e) ?? findCount(rt.low, noun, 'exactly');
  const none = !found && negated(rt, m.index);
  rt.consume(s, e);
  if (found) rt.consume(found.start, found.end);
  rt.consumeAll(linesStartingWith(rt.low, /[*-]\s.*$/m));
  return { kind: 'bullets', count: found?.count ?? (none ? NONE : atLeastOne) };
};

export const highlights: Reader = (rt) => {
  const m = find(
    rt,
    /\bhighlight(?:ed|ing|s)?\b|\bitalic(?:s|i[sz]e[sd]?)?\b|\bbold(?:ed|face)?\b|\bemphasi[sz](?:e|es|ed|ing)\b/,
  );
  if (!m) return undefined;
  const [s, e] = rt.clauseAt(m.index);
  const noun =
    '(?:sections?|parts?|phrases?|words?|passages?|portions?|segments?|spans?|sentences?|items?|points?|areas?|headings?|titles?|lines?|text|highlights?|terms?|places?)';
  const found = findCount(rt.low, noun, 'at_least', s, e);
  const none = !found && negated(rt, m.index);
  rt.consume(s, e);
  return { kind: 'highlights', count: found?.count ?? (none ? NONE : atLeastOne) };
};

export const placeholders: Reader = (rt) => {
  const m = find(rt, /\bplaceholders?\b|\bsquare\s+brackets\b/);
  if (!m) return undefined;
  const [s, e] = rt.clauseAt(m.index);
  const found = findCount(
    rt.low,
    '(?:placeholders?|(?:[\\p{L}-]+\\s+){0,2}?(?:in|within|inside|using)\\s+square\\s+brackets)',
    'at_least',
    s,
    e,
  );
  const none = !found && negated(rt, m.index);
  rt.consume(s, e);
  return { kind: 'placeholders', count: found?.count ?? (none ? NONE : atLeastOne) };
};

// --- formats, phrases, punctuation ------------------------------------------------------------

export const json: Reader = (rt) => {
  const m = find(rt, /\bjson\b/);
  if (!m || negated(rt, m.index)) return undefined;
  consumeClause(rt, m.index);
  return { kind: 'json' };
};

export const quotation: Reader = (rt) => {
  const marks = '(?:double\\s+)?(?:quotation\\s+marks?|quotes|quote\\s+marks|inverted\\s+commas)';
  const m = find(
    rt,
    new RegExp(
      `\\b(?:wrap|enclose|surround|put|place|encase|contain|present|write|give|format|deliver|provide)\\w*\\b[^.;\\n]{0,60}?\\b(?:in|with|within|inside|between|by)\\s+(?:a\\s+(?:pair|set)\\s+of\\s+)?${marks}|\\b(?:in|within|inside|between)\\s+${marks}|\\b(?:start|begin)\\w*\\s+and\\s+end\\w*\\s+with\\s+(?:a\\s+)?(?:double\\s+)?(?:quotation\\s+mark|quote)`,
    ),
  );
  if (!m) return undefined;
  const [s, e] = rt.clauseAt(m.index);
  if (
    !/\b(?:entire|whole|response|answer|output|reply|everything|all\s+of)\b/.test(rt.low.slice(s, e)) ||
    negated(rt, m.index)
  )
    return undefined;
  rt.consume(s, e);
  return { kind: 'quotation' };
};

const PIECE =
  '(?:response|answer|reply|email|e-mail|letter|message|essay|story|output|text|poem|post|note|article|blog|piece|speech|summary|review)';
const QUALIFIER = '(?<q>(?:phrase|sentence|words?|question|line|text|statement|expression|exact\\s+words)\\s*:?\\s*)?';

/**
 * The phrase after a start/end cue: a quote; after a colon, the rest of the line; after "phrase",
 * "words" and the like (or when the cue itself names the words, `inherent`), the rest of the
 * sentence. An unquoted phrase is compared loosely (a final period does not matter).
 */
function phraseAfter(
  rt: RuleText,
  m: RegExpExecArray,
  inherent = false,
): { phrase: string; end: number; loose: boolean } | undefined {
  const at = end(m);
  const rest = rt.written.slice(at);
  const quoted = rest.match(new RegExp(`^\\s*:?\\s*(${Q})`));
  if (quoted) return { phrase: rt.quote(quoted[1])!.trim(), end: at + quoted[0].length, loose: false };
  const colon = /:\s*$/.test(m[0]) ? rest.match(/^\s*([^\n]+)/) : rest.match(/^\s*:\s*([^\n]+)/);
  const plain =
    colon ?? (m.groups?.q || inherent ? rest.match(/^\s*(.+?[?!]?)(?:\.(?=\s|$)|(?<=[?!])\.?(?=\s|$)|\n|$)/) : null);
  if (!plain || /¦/.test(plain[1])) return undefined;
  const phrase = plain[1].trim();
  return phrase ? { phrase, end: at + plain[0].length, loose: true } : undefined;
}

export const endsWith: Reader = (rt) => {
  const patterns = [
    new RegExp(
      `\\b(?:end|finish|conclude|close|wrap\\s+up|sign\\s+off|terminate)(?:s|ing)?\\s+(?:(?:your|the|this|each)\\s+)?(?:(?:entire|whole|full)\\s+)?(?:${PIECE}\\s+)?(?:with|by\\s+saying|by\\s+writing|on)\\s+(?:(?:the|this|these|those|exact|exactly|following|same|precise|precisely)\\s+)*${QUALIFIER}`,
    ),
    new RegExp(
      `\\b(?:last|final|closing|ending)\\s+(?:words?|sentence|line|phrase)\\s+(?:of\\s+(?:your|the)\\s+${PIECE}\\s+)?(?:must|should|has\\s+to|needs\\s+to|will|shall)\\s+be\\s*:?\\s*(?:the\\s+)?(?:(?:exact|following)\\s+)*${QUALIFIER}`,
    ),
  ];
  for (const [i, re] of patterns.entries()) {
    const m = find(rt, re);
    if (!m || negated(rt, m.index)) continue;
    const p = phraseAfter(rt, m, i === 1);
    if (!p) continue;
    rt.consume(m.index, p.end);
    consumeSentencesMatching(
      rt,
      /\bfollow\s+(?:this|the|that)\s+(?:phrase|sentence)|\bno\s+other\s+words|\bnothing\s+(?:else\s+)?(?:after|should\s+follow)/,
    );
    return { kind: 'ends_with', phrase: p.phrase, loose: p.loose };
  }
  return undefined;
};

export const startsWith: Reader = (rt) => {
  const patterns = [
    new RegExp(
      `\\b(?:start|begin|open)(?:s|ing)?\\s+(?:(?:your|the|this|each)\\s+)?(?:(?:entire|whole|full)\\s+)?(?:${PIECE}\\s+)?(?:with|by\\s+saying|by\\s+writing)\\s+(?:(?:the|this|these|those|exact|exactly|following|same|precise|precisely)\\s+)*${QUALIFIER}`,
    ),
    new RegExp(
      `\\b(?:first|opening)\\s+(?:words?|sentence|line|phrase)\\s+(?:of\\s+(?:your|the)\\s+${PIECE}\\s+)?(?:must|should|has\\s+to|needs\\s+to|will|shall)\\s+be\\s*(?:the\\s+)?(?:(?:exact|following)\\s+)*${QUALIFIER}`,
    ),
  ];
  for (const [i, re] of patterns.entries()) {
    const m = find(rt, re);
    if (!m || negated(rt, m.index)) continue;
    const p = phraseAfter(rt, m, i === 1);
    if (!p) continue;
    rt.consume(m.index, p.end);
    return { kind: 'starts_with', phrase: p.phrase, loose: p.loose };
  }
  return undefined;
};

export const noCommas: Reader = (rt) => {
  const m = find(rt, /\bcommas?\b|\bcomma-free\b/);
  if (!m) return undefined;
  if (!/comma-free/.test(m[0]) && !negated(rt, m.index, end(m))) return undefined;
  consumeClause(rt, m.index);
  return { kind: 'no_commas' };
};
