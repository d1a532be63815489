/**
 * A rewording of IFEval rules made by a different method than the hand-written wordings the rule
 * reader was tuned on (ifeval-rules.ts: `project`, `alt`, `heldout`): mechanical edits of those
 * wordings, chosen pseudo-randomly per instruction (a fixed seed, so every run makes the same
 * text), several per rule:
 * - synonyms of the words rules are made of (response → reply or output, at least → no fewer
 *   than or a minimum of, must → has to, include → contain, capital → uppercase, …);
 * - numbers written as words and number words written as digits;
 * - a framing around the rule ("Requirement: …", "Please make sure of the following: …");
 * - the leading "In your response," moved to the end of the sentence.
 * The edits were written before the reader saw any of their output; the rules are split by prompt
 * key into a tuning half (even keys) and a test half (odd keys), and only the tuning half may be
 * looked at to improve the reader.
 */
import { seeded } from '../../domain/tags/softmax';
import { type IfevalItem, type Phrasing, renderRules, type RuleLine } from './ifeval-rules';

/** Whole-phrase synonyms, matched case-insensitively on word boundaries; the first letter's case is kept. */
const SYNONYMS: [RegExp, string[]][] = [
  [/\byour (?:entire |whole )?(?:response|answer|reply)\b/i, ['your output', 'the reply you give', 'what you write']],
  [/\bthe (?:response|answer|reply)\b/i, ['the output', 'your reply', 'the text you produce']],
  [/\bresponses\b/i, ['replies', 'answers']],
  [/\bat least\b/i, ['no fewer than', 'a minimum of', 'not less than']],
  [/\bless than\b/i, ['fewer than', 'under', 'below']],
  [/\bat most\b/i, ['no more than', 'a maximum of', 'not more than']],
  [/\bexactly\b/i, ['precisely', 'just']],
  [/\bmust\b/i, ['has to', 'needs to', 'is required to']],
  [/\bshould\b/i, ['must', 'ought to', 'needs to']],
  [/\binclude\b/i, ['contain', 'feature', 'use']],
  [/\bcontain\b/i, ['include', 'have']],
  [/\bcapital letters\b/i, ['uppercase letters', 'upper-case letters', 'block capitals']],
  [/\blowercase letters\b/i, ['small letters', 'lower-case letters']],
  [/\bentire\b/i, ['whole', 'complete']],
  [/\bwrap\b/i, ['enclose', 'put']],
  [/\bfinish\b/i, ['end', 'conclude']],
  [/\bhighlight\b/i, ['emphasize', 'mark']],
  [/\bbullet points\b/i, ['bulleted items', 'bullets', 'list items with bullets']],
  [/\bkeywords\b/i, ['words', 'terms']],
  [/\bappear\b/i, ['occur', 'show up', 'be used']],
  [/\bparagraphs\b/i, ['blocks of text', 'paragraphs']],
  [/\bsections\b/i, ['parts', 'sections']],
  [/\bdo not\b/i, ["don't", 'never']],
  [/\bwrite\b/i, ['compose', 'produce']],
  [/\banswer with\b/i, ['reply using', 'respond with']],
];

const NUMBER_WORDS = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
  'twenty',
];

const FRAMES: ((rule: string) => string)[] = [
  (r) => `Requirement: ${r}`,
  (r) => `Please make sure of the following: ${r}`,
  (r) => `Constraint for the assistant - ${r}`,
  (r) => `${r} This is mandatory.`,
  (r) => `Important: ${r}`,
];

const keepCase = (from: string, to: string) => (/^[A-Z]/.test(from) ? to[0].toUpperCase() + to.slice(1) : to);

type Edit = (rule: string, rnd: () => number) => string;
const choose = <T>(xs: T[], rnd: () => number) => xs[Math.floor(rnd() * xs.length)];

const EDITS: Edit[] = [
  // up to three synonyms
  (rule, rnd) => {
    let out = rule;
    const candidates = SYNONYMS.filter(([re]) => re.test(out));
    for (let i = 0; i < 3 && candidates.length; i++) {
      const [re, alternatives] = candidates.splice(Math.floor(rnd() * candidates.length), 1)[0];
      out = out.replace(re, (m) => keepCase(m, choose(alternatives, rnd)));
    }
    return out;
  },
  // numbers to words, or number words to digits (not inside quotes)
  (rule) => {
    if (/\b\d{1,2}\b/.test(rule))
      return rule.replace(/(^|[^"'\w*#\\])(\d{1,2})(?=\s+[a-z])/gi, (m, pre: string, n: string) =>
        Number(n) <= 20 ? `${pre}${NUMBER_WORDS[Number(n)]}` : m,
      );
    return rule.replace(/\b(one|two|three|four|five|six|seven|eight|nine|ten)\b/gi, (w) =>
      String(NUMBER_WORDS.indexOf(w.toLowerCase())),
    );
  },
  // a frame around the rule
  (rule, rnd) => choose(FRAMES, rnd)(rule),
  // "In your response, X." → "X in your response."
  (rule) => {
    const m = /^In your (entire )?(response|answer|reply), (.)(.*?)([.!]?)$/s.exec(rule);
    if (!m) return rule;
    return `${m[3].toUpperCase()}${m[4]} ${m[1] ? 'throughout' : 'in'} your ${m[2]}${m[5] || '.'}`;
  },
];

/** The reworded rules: each source rule edited by two to four of the edits above, in a random order. */
export function rewordRules(items: IfevalItem[], source: Phrasing[] = ['project', 'alt', 'heldout']): RuleLine[] {
  const sources = source.map((p) => renderRules(items, p));
  return sources[0].map((rule, i) => {
    const rnd = seeded(rule.key * 131 + rule.index * 7919 + 17);
    let description = choose(sources, rnd)[i].description;
    const edits = [...EDITS].sort(() => rnd() - 0.5).slice(0, 2 + Math.floor(rnd() * 3));
    for (const edit of edits) description = edit(description, rnd);
    return { key: rule.key, index: rule.index, description };
  });
}

/** The half of the rules the reader may be tuned on (even prompt keys); the other half is the test. */
export const isTuningRule = (r: { key: number }) => r.key % 2 === 0;
