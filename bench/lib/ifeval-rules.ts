/**
 * IFEval (see the `ifeval` folder's SOURCE.md) for the built-in judge's benchmark: the prompts,
 * the GPT-4 responses, the strict reference verdicts, and two renderings of each instruction as a
 * plain-English rule, generated from its `instruction_id` and `kwargs`:
 * - `project`: the project's own phrasing, close to IFEval's instruction texts;
 * - `alt`: differently worded paraphrases (two or three per instruction type, picked by prompt key
 *   and instruction index), to see how the rule reader copes with wording it was not written for.
 */
import fs from 'node:fs';
import { datasetFile, readJsonl } from './datasets';

export interface IfevalItem {
  key: number;
  prompt: string;
  response: string;
  instructions: { index: number; id: string; kwargs: Record<string, any>; reference: boolean }[];
}

export interface RuleLine {
  key: number;
  index: number;
  description: string;
}

/** Prompts joined with their response and strict verdicts by prompt text, as the official checker does (540 of 541). */
export function loadIfeval(root: string): IfevalItem[] {
  const inputs = readJsonl<{
    key: number;
    prompt: string;
    instruction_id_list: string[];
    kwargs: Record<string, any>[];
  }>(datasetFile(root, 'ifeval', 'input_data.jsonl'));
  const responses = new Map(
    readJsonl<{ prompt: string; response: string }>(
      datasetFile(root, 'ifeval', 'input_response_data_gpt4_20231107_145030.jsonl'),
    ).map((r) => [r.prompt, r.response]),
  );
  const verdicts = new Map(
    readJsonl<{ prompt: string; instruction_id_list: string[]; follow_instruction_list: boolean[] }>(
      datasetFile(root, 'ifeval', 'eval_results_strict_gpt4.jsonl'),
    ).map((r) => [r.prompt, r]),
  );
  const items: IfevalItem[] = [];
  for (const p of inputs) {
    const response = responses.get(p.prompt);
    const verdict = verdicts.get(p.prompt);
    if (response === undefined || !verdict) continue;
    if (verdict.instruction_id_list.join() !== p.instruction_id_list.join())
      throw new Error(`ifeval prompt ${p.key}: verdict instructions differ from the input's`);
    items.push({
      key: p.key,
      prompt: p.prompt,
      response,
      instructions: p.instruction_id_list.map((id, index) => ({
        index,
        id,
        kwargs: p.kwargs[index] ?? {},
        reference: verdict.follow_instruction_list[index],
      })),
    });
  }
  return items;
}

const LANGUAGES: Record<string, string> = {
  en: 'English',
  es: 'Spanish',
  pt: 'Portuguese',
  ar: 'Arabic',
  hi: 'Hindi',
  fr: 'French',
  ru: 'Russian',
  de: 'German',
  ja: 'Japanese',
  it: 'Italian',
  bn: 'Bengali',
  uk: 'Ukrainian',
  th: 'Thai',
  ur: 'Urdu',
  ta: 'Tamil',
  te: 'Telugu',
  bg: 'Bulgarian',
  ko: 'Korean',
  pl: 'Polish',
  he: 'Hebrew',
  fa: 'Persian',
  vi: 'Vietnamese',
  ne: 'Nepali',
  sw: 'Swahili',
  kn: 'Kannada',
  mr: 'Marathi',
  gu: 'Gujarati',
  pa: 'Punjabi',
  ml: 'Malayalam',
  fi: 'Finnish',
};
const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
const ORDINAL = [
  'zeroth',
  'first',
  'second',
  'third',
  'fourth',
  'fifth',
  'sixth',
  'seventh',
  'eighth',
  'ninth',
  'tenth',
];
const q = (s: string) => `"${s}"`;
const list = (xs: string[], joiner = 'and') =>
  xs.length < 2 ? xs.map(q).join('') : `${xs.slice(0, -1).map(q).join(', ')} ${joiner} ${q(xs[xs.length - 1])}`;
const word = (n: number) => WORDS[n] ?? String(n);

type Render = (k: Record<string, any>, pick: <T>(variants: T[]) => T) => string;

/** The project's phrasing: one rule per instruction type, close to IFEval's own instruction text. */
const PROJECT: Record<string, Render> = {
  'change_case:capital_word_frequency': (k) =>
    `In your response, words with all capital letters should appear ${k.capital_relation} ${k.capital_frequency} times.`,
  'change_case:english_capital': () => 'Your entire response should be in English, and in all capital letters.',
  'change_case:english_lowercase': () =>
    'Your entire response should be in English, and in all lowercase letters. No capital letters are allowed.',
  'combination:repeat_prompt': () =>
    'First repeat the request word for word without change, then give your answer (do not say any words or characters before repeating the request; the request you need to repeat does not include this sentence).',
  'combination:two_responses': () =>
    'Give two different responses. Responses and only responses should be separated by 6 asterisk symbols: ******.',
  'detectable_content:number_placeholders': (k) =>
    `The response must contain at least ${k.num_placeholders} placeholders represented by square brackets, such as [address].`,
  'detectable_content:postscript': (k) =>
    `At the end of your response, please explicitly add a postscript starting with ${k.postscript_marker}`,
  'detectable_format:constrained_response': () =>
    'Answer with one of the following options: "My answer is yes.", "My answer is no.", "My answer is maybe."',
  'detectable_format:json_format': () =>
    'Entire output should be wrapped in JSON format. You can use markdown ticks such as ```.',
  'detectable_format:multiple_sections': (k) =>
    `Your response must have ${k.num_sections} sections. Mark the beginning of each section with ${k.section_spliter} X, such as:\n${k.section_spliter} 1\n[content of section 1]\n${k.section_spliter} 2\n[content of section 2]`,
  'detectable_format:number_bullet_lists': (k) =>
    `Your answer must contain exactly ${k.num_bullets} bullet points. Use the markdown bullet points such as:\n* This is point 1. \n* This is point 2`,
  'detectable_format:number_highlighted_sections': (k) =>
    `Highlight at least ${k.num_highlights} sections in your answer with markdown, i.e. *highlighted section*.`,
  'detectable_format:title': () =>
    'Your answer must contain a title, wrapped in double angular brackets, such as <<poem of joy>>.',
  'keywords:existence': (k) => `Include the keywords ${list(k.keywords)} in the response.`,
  'keywords:forbidden_words': (k) => `Do not include the keywords ${list(k.forbidden_words)} in the response.`,
  'keywords:frequency': (k) =>
    `In your response, the word ${q(k.keyword)} should appear ${k.relation} ${k.frequency} times.`,
  'keywords:letter_frequency': (k) =>
    `In your response, the letter ${q(k.letter)} should appear ${k.let_relation} ${k.let_frequency} times.`,
  'language:response_language': (k) =>
    `Your ENTIRE response should be in ${LANGUAGES[k.language] ?? k.language} language, no other language is allowed.`,
  'length_constraints:nth_paragraph_first_word': (k) =>
    `There should be ${k.num_paragraphs} paragraphs. Paragraphs and only paragraphs are separated with each other by two new lines as if it was '\\n\\n' in python. Paragraph ${k.nth_paragraph} must start with word ${q(k.first_word)}.`,
  'length_constraints:number_paragraphs': (k) =>
    `There should be ${k.num_paragraphs} paragraphs. Paragraphs are separated with the markdown divider: ***`,
  'length_constraints:number_sentences': (k) =>
    `Your response should contain ${k.relation} ${k.num_sentences} sentences.`,
  'length_constraints:number_words': (k) => `Answer with ${k.relation} ${k.num_words} words.`,
  'punctuation:no_comma': () => 'In your entire response, refrain from the use of any commas.',
  'startend:end_checker': (k) =>
    `Finish your response with this exact phrase ${q(k.end_phrase)}. No other words should follow this phrase.`,
  'startend:quotation': () => 'Wrap your entire response with double quotation marks.',
};

const atLeast = (k: Record<string, any>, key = 'relation') => k[key] === 'at least';

/** Paraphrases written independently of the project's templates (and of the reader's patterns). */
const ALT: Record<string, Render> = {
  'change_case:capital_word_frequency': (k, pick) =>
    atLeast(k, 'capital_relation')
      ? pick([
          `Use at least ${k.capital_frequency} words written entirely in capital letters.`,
          `Include ${k.capital_frequency} or more all-caps words.`,
          `There must be a minimum of ${k.capital_frequency} fully capitalized words.`,
        ])
      : pick([
          `Use fewer than ${k.capital_frequency} all-caps words.`,
          `Words in all caps must appear less than ${k.capital_frequency} times.`,
          `No more than ${k.capital_frequency - 1} words may be in uppercase.`,
        ]),
  'change_case:english_capital': (_k, pick) =>
    pick([
      'Write the whole answer in English using only capital letters.',
      'Respond in English, in ALL CAPS.',
      'The reply must be English and entirely uppercase.',
    ]),
  'change_case:english_lowercase': (_k, pick) =>
    pick([
      'Respond only in English and use lowercase letters throughout; capital letters are not allowed.',
      'The reply must be English, written entirely in lower case.',
      'Answer in English without any capital letters.',
    ]),
  'combination:repeat_prompt': (_k, pick) =>
    pick([
      "Before answering, restate the user's request exactly as written, then respond.",
      'Begin your reply by copying the request verbatim (nothing before it), and only then answer it.',
      'Echo the request word for word at the very start of your response before you answer.',
    ]),
  'combination:two_responses': (_k, pick) =>
    pick([
      'Provide 2 distinct answers, separated by a line of six asterisks (******).',
      'Write two alternative responses and put ****** between them.',
    ]),
  'detectable_content:number_placeholders': (k, pick) =>
    pick([
      `Include at least ${k.num_placeholders} placeholders in square brackets, like [name].`,
      `Use no fewer than ${word(k.num_placeholders)} bracketed placeholders such as [address].`,
      `Leave ${k.num_placeholders} or more fill-in fields written in square brackets, e.g. [date].`,
    ]),
  'detectable_content:postscript': (k, pick) =>
    pick([
      `End with a postscript that begins with "${k.postscript_marker}".`,
      `Add a note at the bottom starting with ${k.postscript_marker}`,
      `Close with a P.S.-style note introduced by "${k.postscript_marker}".`,
    ]),
  'detectable_format:constrained_response': (_k, pick) =>
    pick([
      'Reply with exactly one of these: "My answer is yes.", "My answer is no.", "My answer is maybe."',
      'Choose from the following options: My answer is yes., My answer is no., My answer is maybe.',
    ]),
  'detectable_format:json_format': (_k, pick) =>
    pick([
      'Format the whole reply as valid JSON.',
      'Return only JSON; markdown code fences are fine.',
      'Your output must be a JSON object.',
    ]),
  'detectable_format:multiple_sections': (k, pick) =>
    pick([
      `Split the answer into ${k.num_sections} sections, labelling each one "${k.section_spliter} 1", "${k.section_spliter} 2" and so on.`,
      `Organise your response in ${word(k.num_sections)} parts; start every part with ${k.section_spliter} X.`,
      `Use ${k.section_spliter} X headers to mark the beginning of each of the ${k.num_sections} sections.`,
    ]),
  'detectable_format:number_bullet_lists': (k, pick) =>
    pick([
      `Use exactly ${k.num_bullets} markdown bullet points (lines starting with "* ").`,
      `Format the answer as a bulleted list of ${k.num_bullets} items, no more and no less.`,
      `Include precisely ${word(k.num_bullets)} bullets.`,
    ]),
  'detectable_format:number_highlighted_sections': (k, pick) =>
    pick([
      `Use markdown to emphasise at least ${k.num_highlights} parts of the answer, for example *like this*.`,
      `Mark ${k.num_highlights} or more sections as highlighted with single asterisks, e.g. *important part*.`,
      `Italicize no fewer than ${word(k.num_highlights)} phrases using *asterisks*.`,
    ]),
  'detectable_format:title': (_k, pick) =>
    pick([
      'Give the answer a title and put it in double angle brackets, e.g. <<my title>>.',
      'Start with a title wrapped in << and >>.',
    ]),
  'keywords:existence': (k, pick) =>
    pick([
      `Make sure the words ${list(k.keywords)} appear somewhere in your answer.`,
      `Your response has to mention ${list(k.keywords)}.`,
      `Work the terms ${list(k.keywords)} into the text.`,
    ]),
  'keywords:forbidden_words': (k, pick) =>
    pick([
      `Never use the words ${list(k.forbidden_words, 'or')}.`,
      `Your answer must not contain ${list(k.forbidden_words, 'or')}.`,
      `Avoid these words: ${list(k.forbidden_words)}.`,
    ]),
  'keywords:frequency': (k, pick) =>
    atLeast(k)
      ? pick([
          `Use the word "${k.keyword}" ${k.frequency} or more times.`,
          `"${k.keyword}" must occur at least ${k.frequency} times.`,
          `Mention ${k.keyword} no fewer than ${word(k.frequency)} times.`,
        ])
      : pick([
          `Mention "${k.keyword}" fewer than ${k.frequency} times.`,
          `Keep the number of times the word "${k.keyword}" appears below ${k.frequency}.`,
          `The term "${k.keyword}" may be used at most ${k.frequency - 1} times.`,
        ]),
  'keywords:letter_frequency': (k, pick) =>
    atLeast(k, 'let_relation')
      ? pick([
          `The letter ${k.letter} should be used at least ${k.let_frequency} times.`,
          `Make sure the letter '${k.letter}' occurs ${k.let_frequency}+ times.`,
        ])
      : pick([
          `Use the letter ${k.letter} fewer than ${k.let_frequency} times.`,
          `The character "${k.letter}" may appear at most ${k.let_frequency - 1} times.`,
        ]),
  'language:response_language': (k, pick) => {
    const lang = LANGUAGES[k.language] ?? k.language;
    return pick([
      `Respond only in ${lang}; no other language.`,
      `Your whole answer must be written in ${lang}.`,
      `Use ${lang} for the entire reply.`,
    ]);
  },
  'length_constraints:nth_paragraph_first_word': (k, pick) =>
    pick([
      `Write exactly ${k.num_paragraphs} paragraphs separated by blank lines, and start paragraph ${k.nth_paragraph} with the word "${k.first_word}".`,
      `The ${ORDINAL[k.nth_paragraph] ?? `${k.nth_paragraph}th`} paragraph must begin with "${k.first_word}"; there must be ${k.num_paragraphs} paragraphs in total, separated by empty lines.`,
    ]),
  'length_constraints:number_paragraphs': (k, pick) =>
    pick([
      `Write ${k.num_paragraphs} paragraphs separated by the markdown divider ***.`,
      `Your answer needs ${word(k.num_paragraphs)} paragraphs, with *** between consecutive paragraphs.`,
    ]),
  'length_constraints:number_sentences': (k, pick) =>
    atLeast(k)
      ? pick([
          `Write no fewer than ${word(k.num_sentences)} sentences.`,
          `Use ${k.num_sentences} or more sentences.`,
          `The answer should be at least ${k.num_sentences} sentences long.`,
        ])
      : pick([
          `Keep it under ${k.num_sentences} sentences.`,
          `Your answer must have fewer than ${k.num_sentences} sentences.`,
          `Use at most ${k.num_sentences - 1} sentences.`,
        ]),
  'length_constraints:number_words': (k, pick) =>
    atLeast(k)
      ? pick([
          `Use ${k.num_words}+ words.`,
          `The response must contain no fewer than ${k.num_words} words.`,
          `Write a minimum of ${k.num_words} words.`,
        ])
      : pick([
          `Keep it under ${k.num_words} words.`,
          `Write fewer than ${k.num_words} words in total.`,
          `The answer must not exceed ${k.num_words - 1} words.`,
        ]),
  'punctuation:no_comma': (_k, pick) =>
    pick(['No commas allowed.', 'Do not use any commas anywhere in the reply.', 'Write without a single comma.']),
  'startend:end_checker': (k, pick) =>
    pick([
      `End your response with "${k.end_phrase}"`,
      `The last words of your answer must be: ${k.end_phrase}`,
      `Conclude with the exact sentence "${k.end_phrase}" and nothing after it.`,
    ]),
  'startend:quotation': (_k, pick) =>
    pick([
      'Put your whole answer inside double quotes.',
      'Enclose the entire reply in double quotation marks.',
      'The response should start and end with a double quotation mark.',
    ]),
};

/**
 * A third wording, written after the reader was tuned on `project` and `alt` and scored once
 * without changing the reader afterwards: the honest check of unseen phrasing.
 */
const HELDOUT: Record<string, Render> = {
  'change_case:capital_word_frequency': (k, pick) =>
    atLeast(k, 'capital_relation')
      ? pick([
          `Put at least ${k.capital_frequency} words in all capitals for emphasis.`,
          `Your text needs ${k.capital_frequency} or more words in uppercase.`,
        ])
      : pick([
          `Limit fully uppercase words to fewer than ${k.capital_frequency}.`,
          `Use all-capital words less than ${k.capital_frequency} times.`,
        ]),
  'change_case:english_capital': (_k, pick) =>
    pick(['Answer in English, every letter capitalized.', 'English only, and the whole reply in uppercase letters.']),
  'change_case:english_lowercase': (_k, pick) =>
    pick(['Write in English using only lowercase letters.', 'Reply in English; do not capitalize anything.']),
  'combination:repeat_prompt': (_k, pick) =>
    pick([
      'Open your reply with an exact copy of my request, then answer it.',
      'Repeat my question verbatim before you respond to it.',
    ]),
  'combination:two_responses': (_k, pick) =>
    pick([
      'Offer two different versions of the answer, divided by ******.',
      'I want 2 separate responses with six asterisks (******) between them.',
    ]),
  'detectable_content:number_placeholders': (k, pick) =>
    pick([
      `Add ${k.num_placeholders} or more placeholders such as [company name].`,
      `The template should have a minimum of ${k.num_placeholders} placeholders written like [this].`,
    ]),
  'detectable_content:postscript': (k, pick) =>
    pick([
      `Finish with a postscript marked ${k.postscript_marker}`,
      `Please append a ${k.postscript_marker} postscript at the very end.`,
    ]),
  'detectable_format:constrained_response': (_k, pick) =>
    pick([
      'Your entire answer must be one of: "My answer is yes.", "My answer is no.", "My answer is maybe."',
      'Pick one of these replies: My answer is yes. / My answer is no. / My answer is maybe.',
    ]),
  'detectable_format:json_format': (_k, pick) =>
    pick(['Output everything as JSON.', 'The response has to be valid JSON (code fences allowed).']),
  'detectable_format:multiple_sections': (k, pick) =>
    pick([
      `Structure the reply as ${k.num_sections} sections, each headed "${k.section_spliter} N".`,
      `Divide your answer into ${k.num_sections} sections and begin each section with ${k.section_spliter} followed by its number.`,
    ]),
  'detectable_format:number_bullet_lists': (k, pick) =>
    pick([
      `List exactly ${k.num_bullets} points as markdown bullets.`,
      `Give me ${k.num_bullets} bullet points, no more, no fewer.`,
    ]),
  'detectable_format:number_highlighted_sections': (k, pick) =>
    pick([
      `Highlight ${k.num_highlights} or more key sections using markdown italics like *this*.`,
      `At least ${k.num_highlights} parts should be highlighted with markdown, e.g. *highlighted*.`,
    ]),
  'detectable_format:title': (_k, pick) =>
    pick([
      'Include a title in double angle brackets like <<title>>.',
      'Put a title at the top, formatted as <<Title Here>>.',
    ]),
  'keywords:existence': (k, pick) =>
    pick([`Be sure to use the keywords ${list(k.keywords)}.`, `Incorporate the following words: ${list(k.keywords)}.`]),
  'keywords:forbidden_words': (k, pick) =>
    pick([`Don't mention ${list(k.forbidden_words, 'or')}.`, `The words ${list(k.forbidden_words)} are not allowed.`]),
  'keywords:frequency': (k, pick) =>
    atLeast(k)
      ? pick([
          `Repeat the word "${k.keyword}" at least ${k.frequency} times.`,
          `Use "${k.keyword}" ${k.frequency} times or more.`,
        ])
      : pick([
          `Use the word "${k.keyword}" less than ${k.frequency} times.`,
          `"${k.keyword}" should show up fewer than ${k.frequency} times.`,
        ]),
  'keywords:letter_frequency': (k, pick) =>
    atLeast(k, 'let_relation')
      ? pick([
          `Include the letter "${k.letter}" at least ${k.let_frequency} times.`,
          `The letter '${k.letter}' must be used ${k.let_frequency} times or more.`,
        ])
      : pick([
          `Use the letter "${k.letter}" less than ${k.let_frequency} times.`,
          `The letter '${k.letter}' should occur fewer than ${k.let_frequency} times.`,
        ]),
  'language:response_language': (k, pick) => {
    const lang = LANGUAGES[k.language] ?? k.language;
    return pick([
      `Please reply in ${lang}.`,
      `Write your answer entirely in ${lang}, without using any other language.`,
    ]);
  },
  'length_constraints:nth_paragraph_first_word': (k, pick) =>
    pick([
      `Use ${k.num_paragraphs} paragraphs separated by two line breaks; paragraph ${k.nth_paragraph} should begin with the word ${k.first_word}.`,
      `Write ${k.num_paragraphs} paragraphs (separate them with an empty line). The first word of paragraph ${k.nth_paragraph} must be "${k.first_word}".`,
    ]),
  'length_constraints:number_paragraphs': (k, pick) =>
    pick([
      `Separate ${k.num_paragraphs} paragraphs with the markdown divider ***.`,
      `Exactly ${k.num_paragraphs} paragraphs, divided by *** lines.`,
    ]),
  'length_constraints:number_sentences': (k, pick) =>
    atLeast(k)
      ? pick([`Include ${k.num_sentences} sentences or more.`, `Write at least ${k.num_sentences} sentences.`])
      : pick([
          `Use less than ${k.num_sentences} sentences.`,
          `Your reply must be shorter than ${k.num_sentences} sentences.`,
        ]),
  'length_constraints:number_words': (k, pick) =>
    atLeast(k)
      ? pick([`The answer should be ${k.num_words} words or longer.`, `Write at least ${k.num_words} words.`])
      : pick([`Stay below ${k.num_words} words.`, `Respond in less than ${k.num_words} words.`]),
  'punctuation:no_comma': (_k, pick) => pick(['Commas are not allowed.', 'Avoid using commas.']),
  'startend:end_checker': (k, pick) =>
    pick([
      `Your reply must end with the phrase "${k.end_phrase}"`,
      `Close your response with exactly these words: "${k.end_phrase}"`,
    ]),
  'startend:quotation': (_k, pick) =>
    pick([
      'Surround your entire response with double quotes.',
      'The whole reply should be wrapped in double quotation marks.',
    ]),
};

export const PHRASINGS = { project: PROJECT, alt: ALT, heldout: HELDOUT } as const;
export type Phrasing = keyof typeof PHRASINGS;

/** One rule per instruction, rendered in the given phrasing. */
export function renderRules(items: IfevalItem[], phrasing: Phrasing): RuleLine[] {
  const templates = PHRASINGS[phrasing];
  return items.flatMap((item) =>
    item.instructions.map((ins) => {
      const render = templates[ins.id];
      if (!render) throw new Error(`no ${phrasing} template for ${ins.id}`);
      const pick = <T>(variants: T[]) => variants[(item.key + ins.index) % variants.length];
      return { key: item.key, index: ins.index, description: render(ins.kwargs, pick) };
    }),
  );
}

export const readRulesFile = (file: string): RuleLine[] => readJsonl<RuleLine>(file);

export function writeRulesFile(file: string, rules: RuleLine[]): void {
  fs.writeFileSync(file, rules.map((r) => JSON.stringify(r)).join('\n') + '\n');
}
