import { strict as assert } from 'node:assert';
import { describe, it } from 'mocha';
import { parseRule } from '../../domain/evaluation/rule-parser';

/** English variants of each family and the check they must read as. */
const VARIANTS: [string, object][] = [
  // Equivalent wordings (rule-wording.ts): framings, the response named otherwise, modal verbs, synonyms.
  [
    'Requirement: The text you produce ought to be 250 words or longer.',
    { kind: 'words', count: { relation: 'at_least', n: 250 } },
  ],
  [
    'Important: What you write has to have fewer than seven sentences. This is mandatory.',
    { kind: 'sentences', count: { relation: 'less_than', n: 7 } },
  ],
  ['Please make sure of the following: Enclose the reply you give with double quotes.', { kind: 'quotation' }],
  [
    'Constraint for the assistant - Make sure the words "cat" show up somewhere in your output.',
    { kind: 'keywords', words: ['cat'] },
  ],
  ['Answer with at least 300 words', { kind: 'words', count: { relation: 'at_least', n: 300 } }],
  ['The response must contain no fewer than 300 words', { kind: 'words', count: { relation: 'at_least', n: 300 } }],
  ['Use 300+ words.', { kind: 'words', count: { relation: 'at_least', n: 300 } }],
  ['Write 300 words or more.', { kind: 'words', count: { relation: 'at_least', n: 300 } }],
  ['Keep it under 50 words', { kind: 'words', count: { relation: 'less_than', n: 50 } }],
  ['The answer must not exceed fifty words.', { kind: 'words', count: { relation: 'at_most', n: 50 } }],
  ['Answer in no more than twenty-five words.', { kind: 'words', count: { relation: 'at_most', n: 25 } }],
  ['The word count should be below 1,000.', { kind: 'words', count: { relation: 'less_than', n: 1000 } }],
  [
    'Your response should contain less than 5 sentences.',
    { kind: 'sentences', count: { relation: 'less_than', n: 5 } },
  ],
  ['Respond in fewer than five sentences.', { kind: 'sentences', count: { relation: 'less_than', n: 5 } }],
  ['Do not use any commas', { kind: 'no_commas' }],
  ['no commas allowed', { kind: 'no_commas' }],
  ['In your entire response, refrain from the use of any commas.', { kind: 'no_commas' }],
  ['Wrap your entire response in double quotation marks', { kind: 'quotation' }],
  ['Put your whole answer inside double quotes.', { kind: 'quotation' }],
  ['Include the keywords X and Y', { kind: 'keywords', words: ['X', 'Y'] }],
  ["Include keywords ['talented', 'tianjin'] in the response.", { kind: 'keywords', words: ['talented', 'tianjin'] }],
  [
    'Make sure the words "mom" and "mother" appear somewhere in your answer.',
    { kind: 'keywords', words: ['mom', 'mother'] },
  ],
  [
    'Do not include keywords ["taylor", "swift"] in the response.',
    { kind: 'forbidden_words', words: ['taylor', 'swift'] },
  ],
  [
    'Your answer must not contain "bad" or "underperform".',
    { kind: 'forbidden_words', words: ['bad', 'underperform'] },
  ],
  [
    'The letter q should appear at least 5 times',
    { kind: 'letter_frequency', letter: 'q', count: { relation: 'at_least', n: 5 } },
  ],
  [
    'In your response, the word batted should appear less than 2 times.',
    { kind: 'keyword_frequency', word: 'batted', count: { relation: 'less_than', n: 2 } },
  ],
  [
    'Use the word "refund" at least twice.',
    { kind: 'keyword_frequency', word: 'refund', count: { relation: 'at_least', n: 2 } },
  ],
  ['Your answer must be in Spanish', { kind: 'language', code: 'es' }],
  ['respond only in German', { kind: 'language', code: 'de' }],
  ['Your ENTIRE response should be in Hindi language, no other language is allowed.', { kind: 'language', code: 'hi' }],
  [
    "End your response with 'Is there anything else I can help with?'",
    { kind: 'ends_with', phrase: 'Is there anything else I can help with?', loose: false },
  ],
  [
    'The last words of your answer must be: Which one do you choose?',
    { kind: 'ends_with', phrase: 'Which one do you choose?', loose: true },
  ],
  ['Include a postscript starting with P.S.', { kind: 'postscript', marker: 'P.S.' }],
  [
    'At the end of your response, please explicitly add a postscript starting with P.P.S',
    { kind: 'postscript', marker: 'P.P.S' },
  ],
  ['exactly 3 bullet points using markdown', { kind: 'bullets', count: { relation: 'exactly', n: 3 } }],
  ['Format the answer as a bulleted list of 4 items.', { kind: 'bullets', count: { relation: 'exactly', n: 4 } }],
  [
    'at least 2 placeholders in square brackets like [address]',
    { kind: 'placeholders', count: { relation: 'at_least', n: 2 } },
  ],
  [
    'highlight at least 3 sections with markdown, i.e. *highlighted section*',
    { kind: 'highlights', count: { relation: 'at_least', n: 3 } },
  ],
  [
    'Italicize no fewer than two phrases using *asterisks*.',
    { kind: 'highlights', count: { relation: 'at_least', n: 2 } },
  ],
  [
    'Your response should have 4 paragraphs separated by the markdown divider ***',
    { kind: 'paragraphs', count: { relation: 'exactly', n: 4 }, separator: 'divider' },
  ],
  ['The entire output should be in JSON format', { kind: 'json' }],
  ['in all lowercase letters', { kind: 'lowercase' }],
  ['No capital letters are allowed.', { kind: 'lowercase' }],
  ['Respond in ALL CAPS.', { kind: 'uppercase' }],
  [
    'words with all capital letters should appear at least 10 times',
    { kind: 'capital_words', count: { relation: 'at_least', n: 10 } },
  ],
  ['Use fewer than 4 all-caps words.', { kind: 'capital_words', count: { relation: 'less_than', n: 4 } }],
  ['First repeat the request word for word without change, then give your answer', { kind: 'repeat_request' }],
  ['Give two different responses separated by 6 asterisks ******', { kind: 'two_responses', separator: '******' }],
  [
    'Answer with one of the following options: My answer is yes., My answer is no., My answer is maybe.',
    { kind: 'options', options: ['My answer is yes.', 'My answer is no.', 'My answer is maybe.'] },
  ],
  ['title wrapped in double angular brackets, such as <<poem of joy>>', { kind: 'title' }],
  [
    'Your response must have 3 sections. Mark the beginning of each section with SECTION X',
    { kind: 'sections', marker: 'SECTION', count: { relation: 'at_least', n: 3 } },
  ],
  [
    'Split the answer into 4 sections, labelling each one "Part 1", "Part 2" and so on.',
    { kind: 'sections', marker: 'Part', count: { relation: 'at_least', n: 4 } },
  ],
  [
    'The second paragraph must start with the word "However".',
    { kind: 'paragraph_first_word', nth: 2, word: 'However' },
  ],
  ['Start your reply with "Hi there".', { kind: 'starts_with', phrase: 'Hi there', loose: false }],
  ['The answer must contain a link to the help center.', { kind: 'links', required: true }],
  ['Do not include any links.', { kind: 'links', required: false }],
  ['No email addresses.', { kind: 'no_emails' }],
  ['Phone numbers must not appear in the answer.', { kind: 'no_phones' }],
  ['Never include credit card numbers.', { kind: 'no_card_numbers' }],
  ['Do not leak API keys or tokens.', { kind: 'no_secrets' }],
  ['The response must mention product Acme Cloud Backup.', { kind: 'mentions', words: ['Acme Cloud Backup'] }],
];

describe('rule parser', () => {
  for (const [description, check] of VARIANTS) {
    it(`reads "${description.slice(0, 80)}"`, () => assert.deepEqual(parseRule(description), check));
  }

  it('reads several checkable statements in one rule as a conjunction', () => {
    assert.deepEqual(parseRule('Your entire response should be in English, and in all capital letters.'), {
      kind: 'all',
      checks: [{ kind: 'uppercase' }, { kind: 'language', code: 'en' }],
    });
    assert.deepEqual(parseRule('The answer should be no longer than 120 words and should not contain any commas.'), {
      kind: 'all',
      checks: [{ kind: 'no_commas' }, { kind: 'words', count: { relation: 'at_most', n: 120 } }],
    });
  });

  it('does not read quoted keywords as instructions', () => {
    assert.deepEqual(parseRule('Include the keywords "3 sentences" and "json".'), {
      kind: 'keywords',
      words: ['3 sentences', 'json'],
    });
  });

  it('returns undefined for rules that need judgement', () => {
    for (const d of [
      'Be polite and empathetic.',
      'Do not promise refunds.',
      'Answer the customer’s actual question.',
      'Use a friendly tone.',
    ])
      assert.equal(parseRule(d), undefined, d);
  });
});
