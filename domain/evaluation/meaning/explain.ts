/**
 * What the judge understood of a rule, for its author: the reading as one canonical English
 * sentence ("The response has at least 300 words."), or, for a rule it could not read, the closest
 * family and a wording of it that would be read. `npm run eval:rules` prints it for every rule of a
 * use case; an evaluate result's explanation for a rule not understood says it in one line.
 */
import { describeCount, type Check } from '../checks';
import { languageName } from '../language';
import { readRule } from '../rule-parser';
import type { Concept } from './lexicon';
import type { Family, MeaningReading } from './reader';

const q = (s: string) => JSON.stringify(s);
const list = (words: string[]) => words.map(q).join(', ');

const COUNTED: Record<string, string> = {
  words: 'words',
  sentences: 'sentences',
  characters: 'characters',
  bullets: 'markdown bullet points',
  highlights: 'sections highlighted with markdown, like *this*',
  placeholders: 'placeholders in square brackets, like [name]',
  capital_words: 'words in capital letters',
};

const FIXED: Record<string, string> = {
  same_language: "The response is in the language of the user's last message.",
  on_topic: "The response is about what the user's last message asks.",
  repeat_request: 'The response first repeats the request word for word, then answers.',
  links_grounded: 'Every link in the response comes from the conversation.',
  lowercase: 'The response is in lowercase letters only.',
  uppercase: 'The response is in capital letters only.',
  json: 'The whole response is valid JSON.',
  title: 'The response has a title in double angular brackets, like <<title>>.',
  quotation: 'The whole response is wrapped in double quotation marks.',
  no_commas: 'The response uses no commas.',
  no_emails: 'The response contains no email addresses.',
  no_phones: 'The response contains no phone numbers.',
  no_card_numbers: 'The response contains no payment card numbers.',
  no_secrets: 'The response contains no secrets (keys, tokens, passwords).',
};

/** A check as one canonical English sentence (several for a rule read as several checks). */
export function describeCheck(check: Check): string {
  switch (check.kind) {
    case 'all':
      return check.checks.map(describeCheck).join(' ');
    case 'words':
    case 'sentences':
    case 'characters':
    case 'bullets':
    case 'highlights':
    case 'placeholders':
    case 'capital_words':
      return `The response has ${describeCount(check.count)} ${COUNTED[check.kind]}.`;
    case 'paragraphs':
      return `The response has ${describeCount(check.count)} paragraphs, separated by ${
        check.separator === 'divider' ? 'the markdown divider ***' : 'blank lines'
      }.`;
    case 'paragraph_first_word':
      return `Paragraph ${check.nth} starts with the word ${q(check.word)}.`;
    case 'keywords':
      return `The response includes ${list(check.words)}.`;
    case 'forbidden_words':
      return `The response does not use ${list(check.words)}.`;
    case 'mentions':
      return `The response mentions ${list(check.words)}.`;
    case 'keyword_frequency':
      return `The word ${q(check.word)} appears ${describeCount(check.count)} times.`;
    case 'letter_frequency':
      return `The letter ${q(check.letter)} appears ${describeCount(check.count)} times.`;
    case 'language':
      return `The response is in ${languageName(check.code)}.`;
    case 'sections':
      return `The response has ${describeCount(check.count)} sections, each starting with ${q(`${check.marker} N`)}.`;
    case 'postscript':
      return `The response ends with a postscript starting with ${q(check.marker)}.`;
    case 'starts_with':
      return `The response starts with ${q(check.phrase)}.`;
    case 'ends_with':
      return `The response ends with ${q(check.phrase)}.`;
    case 'options':
      return `The response is one of ${list(check.options)}.`;
    case 'two_responses':
      return `The response gives two different answers separated by ${q(check.separator)}.`;
    case 'links':
      return check.required ? 'The response includes a link.' : 'The response includes no links.';
    default:
      return FIXED[check.kind];
  }
}

/**
 * Each family the reader knows: what it is called, the concepts that point to it (any one of the
 * alternatives, all of its concepts), and a wording it reads.
 */
const FAMILIES: Record<Family, { name: string; cues: Concept[][]; example: string }> = {
  repeat_request: {
    name: 'repeat the request',
    cues: [['REPEAT']],
    example: 'First repeat the request word for word, then answer.',
  },
  two_responses: {
    name: 'two responses',
    cues: [],
    example: 'Give two different answers separated by six asterisks: ******.',
  },
  options: {
    name: 'one of fixed options',
    cues: [['ONE_OF']],
    example: 'Answer with one of "My answer is yes.", "My answer is no.".',
  },
  postscript: {
    name: 'postscript',
    cues: [['POSTSCRIPT']],
    example: 'End with a postscript starting with "P.S.".',
  },
  title: { name: 'title', cues: [['TITLE']], example: 'Include a title in double angular brackets, like <<title>>.' },
  sections: {
    name: 'sections',
    cues: [['SECTION']],
    example: 'Divide the answer into 3 sections, each starting with "SECTION X".',
  },
  paragraph_first_word: {
    name: "a paragraph's first word",
    cues: [['PARAGRAPH', 'START']],
    example: 'Write exactly 3 paragraphs separated by blank lines; the second starts with the word "however".',
  },
  paragraphs: {
    name: 'number of paragraphs',
    cues: [['PARAGRAPH']],
    example: 'Write exactly 3 paragraphs separated by the markdown divider ***.',
  },
  bullets: { name: 'bullet points', cues: [['BULLET']], example: 'Use exactly 4 markdown bullet points.' },
  capital_words: {
    name: 'words in capital letters',
    cues: [['CAPITAL', 'WORD']],
    example: 'Write at most 5 words in all capital letters.',
  },
  highlights: {
    name: 'highlighted sections',
    cues: [['HIGHLIGHT']],
    example: 'Highlight at least 2 parts with markdown, like *this*.',
  },
  placeholders: {
    name: 'placeholders',
    cues: [['PLACEHOLDER']],
    example: 'Include at least 2 placeholders in square brackets, like [name].',
  },
  letter_frequency: {
    name: 'how often a letter appears',
    cues: [['LETTER']],
    example: 'The letter "q" must appear at least 3 times.',
  },
  keyword_frequency: {
    name: 'how often a word appears',
    cues: [['WORD', 'TIMES']],
    example: 'The word "refund" must appear at least 2 times.',
  },
  letter_case: { name: 'letter case', cues: [['CAPITAL'], ['LOWERCASE']], example: 'Write in lowercase letters only.' },
  language: { name: 'language', cues: [], example: 'Answer in German.' },
  json: { name: 'JSON', cues: [['JSON']], example: 'The whole answer must be valid JSON.' },
  quotation: {
    name: 'wrapped in quotation marks',
    cues: [['QUOTES']],
    example: 'Wrap the whole answer in double quotation marks.',
  },
  ends_with: { name: 'ending phrase', cues: [['END']], example: 'End the answer with "Anything else?".' },
  no_commas: { name: 'no commas', cues: [['COMMA']], example: 'Do not use any commas.' },
  forbidden_words: {
    name: 'forbidden words',
    cues: [['NEG', 'WORD']],
    example: 'Do not use the words "cheap" or "free".',
  },
  keywords: { name: 'required words', cues: [['WORD']], example: 'Include the words "refund" and "order".' },
  length: {
    name: 'length',
    cues: [['SENTENCE'], ...(['AT_LEAST', 'AT_MOST', 'LESS', 'MORE'] as const).map((c): Concept[] => ['WORD', c])],
    example: 'Answer with at most 120 words.',
  },
};

export type RuleExplanation =
  | { understood: true; reading: string }
  | { understood: false; reason: string; closest?: { family: string; example: string } };

/** The family whose concepts the rule names most (its own words, in any of the six languages). */
function closestFamily(meaning: MeaningReading): Family | undefined {
  if (meaning.family) return meaning.family;
  const named = meaning.named();
  let best: Family | undefined;
  let bestScore = 0;
  for (const [name, f] of Object.entries(FAMILIES) as [Family, (typeof FAMILIES)[Family]][]) {
    const score = Math.max(0, ...f.cues.filter((all) => all.every((c) => named.has(c))).map((all) => all.length));
    if (score > bestScore) [best, bestScore] = [name, score];
  }
  return best;
}

/** How the judge reads `description`: its canonical sentence, or why not and what would be read. */
export function explainRule(description: string): RuleExplanation {
  const { check, unread, meaning } = readRule(description);
  if (check && !unread.length) return { understood: true, reading: describeCheck(check) };
  const reason = check
    ? `only part was read (${describeCheck(check)}); not read: ${unread.join('; ')}`
    : (meaning.reason ?? 'no rule family fits its words');
  const family = closestFamily(meaning);
  return {
    understood: false,
    reason,
    closest: family ? { family: FAMILIES[family].name, example: FAMILIES[family].example } : undefined,
  };
}

/**
 * One line for an evaluate result's rule not understood (`meaning`: readRule's reading of it by
 * meaning): the closest family and a wording that would be read.
 */
export function notUnderstoodHint(meaning: MeaningReading): string | undefined {
  const family = closestFamily(meaning);
  return family && `closest rule the judge reads: ${FAMILIES[family].name}, e.g. ${q(FAMILIES[family].example)}`;
}
