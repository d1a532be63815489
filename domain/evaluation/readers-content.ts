/**
 * Readers of the content families: letter and keyword frequencies, all-capital words, letter case,
 * language, the support-specific ones (email addresses, phone numbers, card numbers, secrets,
 * links, product mentions), required and forbidden keywords, and lengths in words, sentences and
 * characters ("at least 300 words", "300+ words", "no fewer than 300 words", "under 50 words" …).
 */
import { LANGUAGE_CODES } from './language';
import {
  consumeSentencesMatching,
  end,
  find,
  findCount,
  negated,
  Q,
  type Reader,
  readList,
  RuleText,
  unquote,
} from './rule-text';

// --- words, letters and case ------------------------------------------------------------------

const TIMES = 'times?|occurrences?|instances?|×';

export const letterFrequency: Reader = (rt) => {
  const m = find(
    rt,
    new RegExp(
      `\\b(?:the\\s+)?(?:letter|character|char)\\s+(${Q}|\\p{L})(?![\\p{L}])|(${Q}|\\b\\p{L})\\s+(?:letter|character)s?\\b`,
      'u',
    ),
  );
  if (!m) return undefined;
  const letter = unquote(rt, m[1] ?? m[2]).trim();
  if ([...letter].length !== 1) return undefined;
  const [s, e] = rt.clauseAt(m.index);
  const found = findCount(rt.low, TIMES, 'exactly', s, e);
  if (!found) return undefined;
  rt.consume(s, e);
  return { kind: 'letter_frequency', letter: letter.toLowerCase(), count: found.count };
};

export const capitalWords: Reader = (rt) => {
  const caps = '(?:capital(?:s|\\s+letters?)?|caps|upper[- ]?case(?:\\s+letters)?|block\\s+(?:letters|capitals))';
  const m = find(
    rt,
    new RegExp(
      `\\bwords?\\s+(?:(?:that|which|are|is|written|typed|spelled|set|entirely|fully|completely|wholly|purely)\\s+)*(?:with|in|using)\\s+(?:all\\s+|only\\s+|full\\s+)?${caps}|\\bwords?\\s+(?:(?:that|which|are|is)\\s+)+(?:all[- ]caps|fully\\s+capitali[sz]ed|entirely\\s+capitali[sz]ed|upper[- ]?case)|\\b(?:all[- ]?caps?|all[- ]capitals?|all[- ]capital(?:i[sz]ed)?|(?:fully|entirely|completely)\\s+capitali[sz]ed|upper[- ]?case|capital-letter)\\s+words?\\b|\\b(?:use|write|put|type)\\s+(?:all[- ]caps|${caps})\\s+(?:for|on|in)\\s+(?=(?:[\\p{L}]+\\s+){0,4}?\\d+\\s+(?:[\\p{L}-]+\\s+)?words?\\b)`,
      'u',
    ),
  );
  if (!m) return undefined;
  const [s, e] = rt.clauseAt(m.index);
  const found = findCount(
    rt.low,
    `${TIMES}|(?:all[- ]?caps?\\s+|capitali[sz]ed\\s+|upper[- ]?case\\s+)?words?|such\\s+words`,
    'at_least',
    s,
    e,
  );
  if (!found) return undefined;
  rt.consume(s, e);
  return { kind: 'capital_words', count: found.count };
};

export const keywordFrequency: Reader = (rt) => {
  const patterns = [
    new RegExp(
      `\\b(?:the\\s+)?(?:key)?(?:word|term|phrase|keyword|name|token)\\s+(${Q}|[\\p{L}\\p{N}][\\p{L}\\p{N}'’-]*)`,
      'u',
    ),
    new RegExp(
      `\\b(?:use|mention|include|repeat|say|write|put|feature)\\s+(?:the\\s+)?(?:(?:key)?(?:word|term|phrase|keyword)\\s+)?(${Q}|[\\p{L}\\p{N}][\\p{L}\\p{N}'’-]*)(?=\\s+(?:[\\p{L}]+\\s+){0,3}?\\d)`,
      'u',
    ),
    new RegExp(
      `(${Q})\\s+(?:should|must|has\\s+to|needs\\s+to|is\\s+to|shall|will|may|can|to)?\\s*(?:\\w+\\s+){0,2}?(?:appear|occur|be\\s+used|be\\s+mentioned|be\\s+included|show\\s+up|be\\s+repeated|be\\s+present|feature)`,
      'u',
    ),
  ];
  // Mentions in one clause share its count: each clause is read once, however many mentions it has.
  const counts = new Map<number, ReturnType<typeof findCount>>();
  for (const re of patterns) {
    for (let m = find(rt, re); m; m = find(rt, re, m.index + 1)) {
      const [s, e] = rt.clauseAt(m.index);
      if (!counts.has(s)) counts.set(s, findCount(rt.low, TIMES, 'exactly', s, e));
      const found = counts.get(s);
      if (!found) continue;
      const word = unquote(rt, m[1]).trim();
      if (!word || /^(?:count|limit|length|number)$/.test(word)) continue;
      rt.consume(Math.min(m.index, found.start), Math.max(end(m), found.end));
      return { kind: 'keyword_frequency', word, count: found.count };
    }
  }
  return undefined;
};

export const letterCase: Reader = (rt) => {
  const lowerCue = find(rt, /\blower[- ]?case\b|\bsmall\s+letters\b|\bnon-capitali[sz]ed\b/);
  const noUpper = find(
    rt,
    /\b(?:no|without|not\s+(?:use|contain|include|have)|zero|avoid|never\s+use)\s+(?:any\s+)?(?:capital|upper[- ]?case)(?:\s+letters?|s)?\b|\bcapital(?:\s+letters?|s)?\s+(?:are|is)\s+(?:not\s+allowed|forbidden|prohibited|banned|not\s+permitted)|\bnot\s+capitali[sz]e|\bno\s+capitali[sz]ation/,
  );
  const upperCue = find(
    rt,
    /\b(?:(?:in|using|use|with|written\s+in|write\s+in|all|entirely|only|completely|exclusively|whole)\s+)+(?:capital\s+letters|capitals|caps|upper[- ]?case(?:\s+letters)?|block\s+(?:capitals|letters))\b|\ball[- ]caps\b|\b(?:capital\s+letters|caps|upper[- ]?case)\s+only\b|\bcapitali[sz]e\s+(?:every|all|each)\s+(?:letter|word)|\b(?:every|each|all)\s+letters?\s+(?:(?:is|are|in|should\s+be|must\s+be)\s+)?(?:capitali[sz]ed|upper[- ]?case|capitals?)\b/,
  );
  const noLower = find(
    rt,
    /\b(?:no|without|not\s+(?:use|contain|include|have)|zero|avoid)\s+(?:any\s+)?lower[- ]?case(?:\s+letters?)?\b|\blower[- ]?case(?:\s+letters?)?\s+(?:are|is)\s+(?:not\s+allowed|forbidden|prohibited|banned)/,
  );
  const lower = (lowerCue && !noLower) || noUpper;
  const upper = upperCue || noLower;
  if (!lower === !upper) return undefined;
  for (const m of [lowerCue, noUpper, upperCue, noLower]) if (m) rt.consume(m.index, end(m));
  return { kind: lower ? 'lowercase' : 'uppercase' };
};

const LANGS = Object.keys(LANGUAGE_CODES).join('|');
const WHO = '(?:user|customer|client|requester|asker|person|human|sender)';
const WHAT = '(?:question|request|message|input|prompt|conversation|query|turn|ticket)';
/** "the user's last message", "the question", "the customer": whose language a same-language rule names. */
const WHOSE = String.raw`(?:the\s+|their\s+)?(?:${WHO}(?:'s|s'|’s)?\s+)?(?:(?:last|latest|most\s+recent|own|original|first|current)\s+)?(?:${WHO}|${WHAT})s?`;
const SAME_LANGUAGE = new RegExp(
  [
    String.raw`\bsame\s+language\s+(?:as|that)\s+(?:(?:used|written)\s+(?:in|by)\s+|of\s+)?${WHOSE}\b(?:\s+(?:is\s+)?(?:written|used|asked)(?:\s+in)?)?`,
    String.raw`\b${WHO}(?:'s|s'|’s)\s+(?:own\s+)?language\b`,
    String.raw`\blanguage\s+(?:of|used\s+(?:in|by))\s+${WHOSE}\b`,
    String.raw`\blanguage\s+(?:they|the\s+${WHO})\s+(?:wrote|write|writes|used|uses|asked|speaks?)(?:\s+in)?\b`,
  ].join('|'),
);

/**
 * "The answer is written in the same language as the user's last message", "reply in the
 * customer's language", "answer in the language of the question": the output's language must be
 * the request's. Read before `language`, which takes a named language.
 */
export const sameLanguage: Reader = (rt) => {
  const m = find(rt, SAME_LANGUAGE);
  if (!m || negated(rt, m.index, end(m))) return undefined;
  rt.consume(m.index, end(m));
  return { kind: 'same_language' };
};

const ON_TOPIC = new RegExp(
  [
    String.raw`\b(?:stays?|remains?|keeps?|be|is|are)\s+(?:strictly\s+|closely\s+)?on[-\s]topic\b`,
    String.raw`\bon[-\s]topic\b`,
    String.raw`\b(?:stays?|remains?|keeps?|sticks?)\s+(?:(?:strictly|closely)\s+)?(?:on|to)\s+${WHOSE}\b`,
    String.raw`\b(?:relevant|related)\s+to\s+${WHOSE}\b`,
    String.raw`\b(?:off[-\s]topic|unrelated\s+(?:topics?|subjects?|matters?)|drifts?|digress(?:es|ions?)?|tangents?)\b`,
  ].join('|'),
);

/**
 * "The answer stays on the user's question and does not drift to unrelated topics", "Stay on
 * topic", "Keep the reply relevant to the question": the output must be about what the user asked.
 * Every phrase of the kind is taken (a rule often says it twice, as a must and a must-not).
 */
export const onTopic: Reader = (rt) => {
  let m = find(rt, ON_TOPIC);
  if (!m) return undefined;
  for (; m; m = find(rt, ON_TOPIC, end(m))) rt.consume(m.index, end(m));
  return { kind: 'on_topic' };
};

export const language: Reader = (rt) => {
  const m = find(
    rt,
    new RegExp(
      `\\b(?:in|into|to|using|use|speak|speaking|only|entirely|purely|solely|exclusively)\\s+(?:[\\p{L}]+\\s+){0,2}?(${LANGS})\\b|\\b(${LANGS})\\s+(?:language|only)\\b|\\blanguage\\s*(?:should|must|has\\s+to|needs\\s+to|will)?\\s*(?:be|is|:)\\s*(${LANGS})\\b|\\b(?:be|is|are)\\s+(?:written\\s+)?(?:entirely\\s+|only\\s+|fully\\s+|all\\s+)?(${LANGS})\\b`,
      'u',
    ),
  );
  if (!m) return undefined;
  const before = rt.low.slice(Math.max(0, m.index - 25), m.index + m[0].length);
  if (
    /\b(?:not|never|other\s+than|except|besides|no)\s+(?:\w+\s+){0,2}(?:in\s+)?[\p{L}]+$/u.test(before) &&
    !/\bno other\b/.test(before)
  )
    return undefined;
  const code = LANGUAGE_CODES[(m[1] ?? m[2] ?? m[3] ?? m[4]).toLowerCase()];
  rt.consume(m.index, end(m));
  consumeSentencesMatching(rt, /\bno\s+other\s+language|\blanguage\s+is\s+(?:allowed|permitted)/);
  return { kind: 'language', code };
};

// --- support-specific -------------------------------------------------------------------------

/** "Never ask for the password" is about behaviour, not about what the output contains. */
const asksFor = (rt: RuleText, pos: number) =>
  /\b(?:ask|asks|asking|request|requesting|collect|collecting|prompt|store|storing|verify|verifying|accept|accepting)\b/.test(
    rt.low.slice(rt.clauseAt(pos)[0], pos),
  );

/** "no X" families: a noun that must be negated to make a rule. */
export function absence(nounRe: RegExp, kind: 'no_emails' | 'no_phones' | 'no_card_numbers' | 'no_secrets'): Reader {
  return (rt) => {
    const m = find(rt, nounRe);
    if (!m || !negated(rt, m.index, end(m)) || asksFor(rt, m.index)) return undefined;
    rt.consume(m.index, end(m));
    return { kind };
  };
}

export const links: Reader = (rt) => {
  const m = find(rt, /\b(?:hyper)?links?\b|\burls?\b|\bweb\s*(?:links?|addresses|address)\b/);
  if (!m) return undefined;
  const [cs, ce] = rt.clauseAt(m.index);
  if (
    /\b(?:only|must|should)\b[^¦]*\b(?:appear|given|provided|present|found|mentioned|come|taken)\b[^¦]*\b(?:conversation|input|messages?|prompt|sources?|context|question|request)\b|\b(?:from|in)\s+the\s+(?:conversation|input|messages?|prompt|sources?|context)\b/.test(
      rt.low.slice(cs, ce),
    )
  ) {
    rt.consume(cs, ce);
    return { kind: 'links_grounded' };
  }
  if (negated(rt, m.index, end(m))) {
    rt.consume(m.index, end(m));
    return { kind: 'links', required: false };
  }
  const [s] = rt.sentenceAt(m.index);
  if (!/\b(?:include|contain|provide|add|have|give|share|cite|insert|with|point)\w*\b/.test(rt.low.slice(s, m.index)))
    return undefined;
  rt.consume(m.index, end(m));
  return { kind: 'links', required: true };
};

export const mentions: Reader = (rt) => {
  const m = find(
    rt,
    new RegExp(
      `\\b(?:mention|reference|name|cite|include|refer\\s+to|talk\\s+about|recommend)(?:s|ing|ed)?\\s+(?:the\\s+|our\\s+|a\\s+)?(?:product|brand|service|app|application|tool|plan|offering|solution|feature)(?:\\s+name)?\\s*:?\\s*(?:called\\s+|named\\s+)?(${Q}|[\\p{L}\\p{N}][\\w&+.-]*(?:\\s+[\\p{L}\\p{N}][\\w&+.-]*){0,3})`,
      'u',
    ),
  );
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
export const forbiddenWords: Reader = (rt) => {
  const negv =
    "(?:do\\s+not|don't|never|must\\s+not|should\\s+not|cannot|can't|without|avoid(?:ing)?|refrain\\s+from|exclude|excluding|omit|no)";
  const a = find(
    rt,
    new RegExp(
      `\\b${negv}\\s+(?:[\\p{L}']+\\s+){0,3}?(?:the\\s+|any\\s+(?:of\\s+)?(?:the\\s+)?)?(?:following\\s+)?${KEYWORDS}\\s*(?:like\\s+|such\\s+as\\s+)?:?`,
      'u',
    ),
  );
  const c = find(
    rt,
    new RegExp(
      `\\b${negv}\\s+(?:[\\p{L}']+\\s+){0,2}?(?:mention(?:ing)?|say(?:ing)?|us(?:e|ing)|includ(?:e|ing)|writ(?:e|ing)|utter(?:ing)?|contain(?:ing)?|featur(?:e|ing)|hav(?:e|ing)|incorporat(?:e|ing)|employ(?:ing)?)\\s+(?:any\\s+of\\s+)?(?=${Q})`,
      'u',
    ),
  );
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
    if (
      list &&
      /^\s*(?:(?:must|should|may|can|are|is|shall)\s*(?:not|never|n't)|(?:are|is)\s+(?:forbidden|banned|not\s+allowed|prohibited|off-limits))/.test(
        rt.low.slice(list.end),
      )
    ) {
      rt.consume(b.index, list.end);
      return { kind: 'forbidden_words', words: list.items };
    }
  }
  return undefined;
};

export const keywords: Reader = (rt) => {
  const verbs =
    '(?:include|use|mention|contain|incorporate|feature|add|insert|have|with|containing|including|using|featuring|integrate|work|weave|put|drop)';
  const a = find(
    rt,
    new RegExp(`\\b${verbs}\\w*\\s+(?:[\\p{L}']+\\s+){0,3}?(?:the\\s+)?(?:following\\s+)?${KEYWORDS}\\s*:?`, 'u'),
  );
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
    if (
      list &&
      /^\s*(?:(?:must|should|need\s+to|needs\s+to|have\s+to|has\s+to|are\s+to|to)\s+)?(?:\w+\s+)?(?:appear|appears|be\s+included|be\s+used|be\s+present|be\s+mentioned|feature|show\s+up|occur)/.test(
        rt.low.slice(list.end),
      )
    ) {
      rt.consume(b.index, list.end);
      return { kind: 'keywords', words: list.items };
    }
  }
  return undefined;
};

// --- lengths --------------------------------------------------------------------------------

export function length(kind: 'words' | 'sentences' | 'characters', noun: string): Reader {
  return (rt) => {
    const found = findCount(rt.low, noun, 'exactly');
    if (!found) return undefined;
    rt.consume(found.start, found.end);
    return { kind, count: found.count };
  };
}
