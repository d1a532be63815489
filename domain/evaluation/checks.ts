/**
 * The typed checks a rule description is read into (rule-parser.ts), and how each is graded
 * against a response. Every outcome comes with a concrete explanation ("312 words; at least 300
 * required").
 */
import { excerpt, listed, quoted } from './evidence';
import { detectLanguages, languageName } from './language';
import { findCardNumbers, findEmails, findLinks, findPhones, findSecrets, mask } from './sensitive-data';
import { occurIn } from './substrings';
import * as m from './text-measures';

export type Relation = 'at_least' | 'at_most' | 'less_than' | 'more_than' | 'exactly';
export type Count = { relation: Relation; n: number } | { relation: 'between'; min: number; max: number };

export type Check =
  | {
      kind: 'words' | 'sentences' | 'characters' | 'bullets' | 'highlights' | 'placeholders' | 'capital_words';
      count: Count;
    }
  | { kind: 'paragraphs'; count: Count; separator: 'divider' | 'blank_line' }
  | { kind: 'paragraph_first_word'; nth: number; word: string }
  | { kind: 'keywords' | 'forbidden_words' | 'mentions'; words: string[] }
  | { kind: 'keyword_frequency'; word: string; count: Count }
  | { kind: 'letter_frequency'; letter: string; count: Count }
  | { kind: 'language'; code: string }
  /** The output in the language of the last user message. */
  | { kind: 'same_language' }
  /** The output about what the last user message asks (their embeddings' similarity, measured before grading). */
  | { kind: 'on_topic' }
  | { kind: 'sections'; marker: string; count: Count }
  | { kind: 'postscript'; marker: string }
  | { kind: 'starts_with' | 'ends_with'; phrase: string; loose?: boolean }
  | { kind: 'repeat_request'; text?: string }
  | { kind: 'options'; options: string[] }
  | { kind: 'two_responses'; separator: string }
  | { kind: 'links'; required: boolean }
  | { kind: 'links_grounded' }
  | {
      kind:
        | 'lowercase'
        | 'uppercase'
        | 'json'
        | 'title'
        | 'quotation'
        | 'no_commas'
        | 'no_emails'
        | 'no_phones'
        | 'no_card_numbers'
        | 'no_secrets';
    }
  | { kind: 'all'; checks: Check[] };

export interface Message {
  role: string;
  content: string;
}

export interface CheckContext {
  output: string;
  messages: Message[];
  /** The cosine similarity of the last user message (as a query) and the output (as a passage), when measured. */
  topicSimilarity?: number;
  /**
   * The results of the checks already run on this output and these messages, by check: the same
   * check (a repeated rule, a detector inside several combined rules) then runs once per grading,
   * so a hundred rules cost what their distinct checks cost.
   */
  memo?: Map<string, CheckResult>;
}

/**
 * The similarity an on-topic output reaches at least: chosen on StackFAQ's tuning queries (a
 * query and an answer of its own thread, against an answer of another thread), with E5
 * (docs/benchmarks.md, bench:judge, "On topic").
 */
export const ON_TOPIC_THRESHOLD = 0.85;

export interface CheckResult {
  outcome: 'pass' | 'fail' | 'not_applicable';
  explanation: string;
}

export function satisfies(actual: number, c: Count): boolean {
  switch (c.relation) {
    case 'at_least':
      return actual >= c.n;
    case 'at_most':
      return actual <= c.n;
    case 'less_than':
      return actual < c.n;
    case 'more_than':
      return actual > c.n;
    case 'exactly':
      return actual === c.n;
    case 'between':
      return actual >= c.min && actual <= c.max;
  }
}

const RELATION_TEXT: Record<Relation, string> = {
  at_least: 'at least',
  at_most: 'at most',
  less_than: 'fewer than',
  more_than: 'more than',
  exactly: 'exactly',
};

/** "at least 300", "between 2 and 4". */
export const describeCount = (c: Count): string =>
  c.relation === 'between' ? `between ${c.min} and ${c.max}` : `${RELATION_TEXT[c.relation]} ${c.n}`;

const plural = (n: number, unit: string, units = `${unit}s`) => `${n} ${n === 1 ? unit : units}`;
const verdict = (pass: boolean, explanation: string): CheckResult => ({ outcome: pass ? 'pass' : 'fail', explanation });
const counted = (actual: number, c: Count, unit: string) =>
  verdict(satisfies(actual, c), `${plural(actual, unit)}; ${describeCount(c)} required`);
/** Masked values found (email addresses, phone numbers...): a few shown, the others counted. */
const masked = (found: string[]) => listed(found.map(mask), { quote: false });

/** The request a "repeat the request" rule refers to: the last user message without the repeat instruction. */
export function requestToRepeat(messages: Message[]): string | undefined {
  const user = [...messages].reverse().find((msg) => msg.role === 'user' && msg.content.trim());
  if (!user) return undefined;
  const text = user.content.trim();
  const cue = /\b(?:repeat|repleat|restate|reproduce|echo|recite)\b/i;
  const blocks = text.split(/\n\s*\n/);
  if (blocks.length > 1 && cue.test(blocks[0]) && /\b(?:below|following)\b/i.test(blocks[0]))
    return blocks.slice(1).join('\n\n').trim();
  const lines = text.split('\n');
  const at = lines.findIndex((line) => cue.test(line));
  if (at > 0) return lines.slice(0, at).join('\n').trim();
  if (at === 0 && lines.length > 1) return lines.slice(1).join('\n').trim();
  return text;
}

export function runCheck(check: Check, ctx: CheckContext): CheckResult {
  if (!ctx.memo) return evaluate(check, ctx);
  const key = JSON.stringify(check);
  let result = ctx.memo.get(key);
  if (!result) {
    result = evaluate(check, ctx);
    ctx.memo.set(key, result);
  }
  return result;
}

function evaluate(check: Check, ctx: CheckContext): CheckResult {
  const out = ctx.output;
  switch (check.kind) {
    case 'all': {
      const results = check.checks.map((c) => runCheck(c, ctx));
      const failed = results.filter((r) => r.outcome === 'fail');
      const shown = [...failed, ...results.filter((r) => r.outcome !== 'fail')];
      return {
        outcome: failed.length
          ? 'fail'
          : results.every((r) => r.outcome === 'not_applicable')
            ? 'not_applicable'
            : 'pass',
        explanation: shown.map((r) => r.explanation).join('; '),
      };
    }
    case 'words':
      return counted(m.countWords(out), check.count, 'word');
    case 'sentences':
      return counted(m.countSentences(out), check.count, 'sentence');
    case 'characters':
      return counted([...out].length, check.count, 'character');
    case 'bullets':
      return counted(m.countBullets(out), check.count, 'bullet point');
    case 'highlights':
      return counted(m.countHighlights(out), check.count, 'highlighted section');
    case 'placeholders':
      return counted(m.countPlaceholders(out), check.count, 'placeholder in square brackets');
    case 'capital_words':
      return counted(m.capitalWords(out).length, check.count, 'all-capital word');
    case 'paragraphs': {
      if (check.separator === 'blank_line')
        return counted(m.blankLineParagraphs(out).length, check.count, 'paragraph (blank-line separated)');
      const n = m.dividerParagraphs(out);
      if (n === undefined) return verdict(false, 'an empty paragraph between two *** dividers');
      return counted(n, check.count, 'paragraph (*** separated)');
    }
    case 'paragraph_first_word': {
      const paragraphs = m.blankLineParagraphs(out);
      const p = paragraphs[check.nth - 1];
      if (!p)
        return verdict(
          false,
          `only ${plural(paragraphs.length, 'paragraph')}; paragraph ${check.nth} must start with ${quoted(check.word)}`,
        );
      const first = m.firstWord(p);
      return verdict(
        first === check.word.toLowerCase(),
        `paragraph ${check.nth} starts with ${quoted(first)}; ${quoted(check.word)} required`,
      );
    }
    case 'keywords': {
      const present = occurIn(
        out.toLowerCase(),
        check.words.map((w) => w.toLowerCase()),
      );
      const missing = check.words.filter((_, i) => !present[i]);
      return verdict(
        !missing.length,
        missing.length ? `missing ${listed(missing)}` : `contains ${listed(check.words)}`,
      );
    }
    case 'mentions': {
      const missing = check.words.filter((w) => !m.containsWord(out, w));
      return verdict(
        !missing.length,
        missing.length ? `does not mention ${listed(missing)}` : `mentions ${listed(check.words)}`,
      );
    }
    case 'forbidden_words': {
      const found = check.words.filter((w) => m.containsWord(out, w));
      return verdict(
        !found.length,
        found.length ? `uses forbidden ${listed(found)}` : `none of ${listed(check.words)} used`,
      );
    }
    case 'keyword_frequency': {
      const n = m.countOccurrences(out, check.word);
      return verdict(
        satisfies(n, check.count),
        `${quoted(check.word)} occurs ${plural(n, 'time')}; ${describeCount(check.count)} required`,
      );
    }
    case 'letter_frequency': {
      const n = m.countLetter(out, check.letter);
      return verdict(
        satisfies(n, check.count),
        `the letter ${quoted(check.letter)} occurs ${plural(n, 'time')}; ${describeCount(check.count)} required`,
      );
    }
    case 'language': {
      const found = detectLanguages(m.languageSample(out));
      const want = languageName(check.code);
      if (!found.length)
        return { outcome: 'not_applicable', explanation: `too little text to tell its language; ${want} required` };
      const names = found.map(languageName);
      const seen =
        found.length > 1
          ? `detected ${names[0]} (${names.slice(1).join(', ')} about as likely)`
          : `detected ${names[0]}`;
      return verdict(found.includes(check.code), `${seen}; ${want} required`);
    }
    case 'same_language': {
      const request = [...ctx.messages].reverse().find((msg) => msg.role === 'user' && msg.content.trim());
      if (!request) return { outcome: 'not_applicable', explanation: 'no user message to compare the language with' };
      const asked = detectLanguages(m.languageSample(request.content));
      const found = detectLanguages(m.languageSample(out));
      if (!asked.length || !found.length)
        return {
          outcome: 'not_applicable',
          explanation: `too little text to tell the language of the ${asked.length ? 'output' : 'user message'}`,
        };
      // Either side may be ambiguous (a short text, close languages): any language both could be passes.
      const same = found.some((code) => asked.includes(code));
      return verdict(same, `the user wrote ${languageName(asked[0])}, the output is ${languageName(found[0])}`);
    }
    case 'on_topic': {
      const s = ctx.topicSimilarity;
      if (s === undefined)
        return {
          outcome: 'not_applicable',
          explanation: "the output's similarity to the user's message could not be measured (no embedding server)",
        };
      return verdict(
        s >= ON_TOPIC_THRESHOLD,
        `similarity to the user's message ${s.toFixed(3)}; ${ON_TOPIC_THRESHOLD} or more is on topic`,
      );
    }
    case 'lowercase': {
      const upper = [...new Set(out.match(/\p{Lu}/gu) ?? [])];
      return verdict(
        m.isAllLower(out),
        m.isAllLower(out)
          ? 'all letters are lowercase'
          : upper.length
            ? `capital letters used: ${upper.slice(0, 5).join(' ')}`
            : 'no letters',
      );
    }
    case 'uppercase': {
      const lower = [...new Set(out.match(/\p{Ll}/gu) ?? [])];
      return verdict(
        m.isAllUpper(out),
        m.isAllUpper(out)
          ? 'all letters are capitals'
          : lower.length
            ? `lowercase letters used: ${lower.slice(0, 5).join(' ')}`
            : 'no letters',
      );
    }
    case 'json': {
      const parsed = m.parseJsonOutput(out);
      return verdict(
        parsed.ok,
        parsed.ok ? 'the output parses as JSON' : `not valid JSON: ${excerpt(parsed.error, 200)}`,
      );
    }
    case 'title': {
      const title = m.findTitle(out);
      return verdict(!!title, title ? `title <<${excerpt(title)}>>` : 'no title wrapped in << >>');
    }
    case 'quotation': {
      const t = out.trim();
      const ok = t.length > 1 && t[0] === '"' && t[t.length - 1] === '"';
      return verdict(
        ok,
        ok
          ? 'wrapped in double quotation marks'
          : `starts with ${JSON.stringify(t.slice(0, 1))} and ends with ${JSON.stringify(t.slice(-1))}, not both "`,
      );
    }
    case 'no_commas': {
      const n = (out.match(/,/g) ?? []).length;
      return verdict(n === 0, n ? `${plural(n, 'comma')} used` : 'no commas');
    }
    case 'two_responses': {
      const sep = excerpt(check.separator);
      const parts = m.splitTwoResponses(out, check.separator);
      if (!parts) return verdict(false, `an empty response between two ${sep} separators`);
      if (parts.length !== 2)
        return verdict(false, `${plural(parts.length, 'response')} separated by ${sep}; 2 required`);
      return verdict(
        parts[0].trim() !== parts[1].trim(),
        parts[0].trim() === parts[1].trim()
          ? 'the two responses are identical'
          : `two different responses separated by ${sep}`,
      );
    }
    case 'options': {
      const present = occurIn(out.trim(), check.options);
      const hit = check.options.find((_, i) => present[i]);
      return verdict(
        !!hit,
        hit ? `answers with ${quoted(hit)}` : `none of the options ${listed(check.options, { max: 5 })} in the answer`,
      );
    }
    case 'sections':
      return counted(m.countSections(out, check.marker), check.count, `section marked "${excerpt(check.marker)} N"`);
    case 'postscript': {
      const ok = m.hasPostscript(out, check.marker);
      return verdict(
        ok,
        ok
          ? `postscript starting with ${excerpt(check.marker)}`
          : `no postscript starting with ${excerpt(check.marker)}`,
      );
    }
    case 'starts_with': {
      const strip = (x: string) =>
        x
          .trim()
          .replace(/^[#>*_"'\s]+/, '')
          .toLowerCase();
      const ok = strip(out).startsWith(strip(check.phrase));
      return verdict(
        ok,
        ok
          ? `starts with ${quoted(check.phrase)}`
          : `starts with ${quoted(out.trim(), 40)}, not ${quoted(check.phrase)}`,
      );
    }
    case 'ends_with': {
      const loose = (x: string) => (check.loose ? x.replace(/(?<![.\s])[.\s]+$/, '') : x);
      const ok = loose(
        out
          .trim()
          .replace(/^"+|(?<!")"+$/g, '')
          .toLowerCase(),
      ).endsWith(loose(check.phrase.trim().toLowerCase()));
      return verdict(
        ok,
        ok
          ? `ends with ${quoted(check.phrase)}`
          : `ends with ${quoted(out.trim().slice(-40))}, not ${quoted(check.phrase)}`,
      );
    }
    case 'repeat_request': {
      // The request as the rule quotes it, or as the user sent it: a rule's own copy of the request
      // may differ from what the user sent (a typo, a dropped line), and a copy of either is a copy.
      const requests = [check.text, requestToRepeat(ctx.messages)].filter((r): r is string => r !== undefined);
      if (!requests.length)
        return { outcome: 'not_applicable', explanation: 'no user request in the messages to compare with' };
      const [request] = requests;
      const ok = requests.some((r) => out.trim().toLowerCase().startsWith(r.trim().toLowerCase()));
      return verdict(
        ok,
        ok
          ? 'starts by repeating the request word for word'
          : `does not start with the request word for word (${quoted(request, 40)})`,
      );
    }
    case 'links': {
      const links = findLinks(out);
      if (check.required)
        return verdict(links.length > 0, links.length ? `contains a link (${excerpt(links[0])})` : 'no link found');
      return verdict(
        !links.length,
        links.length ? `contains ${plural(links.length, 'link')}: ${listed(links)}` : 'no links',
      );
    }
    case 'links_grounded': {
      const input = ctx.messages
        .map((msg) => msg.content)
        .join('\n')
        .toLowerCase();
      const links = findLinks(out);
      const grounded = occurIn(
        input,
        links.map((l) => l.toLowerCase().replace(/(?<!\/)\/+$/, '')),
      );
      const invented = links.filter((_, i) => !grounded[i]);
      return verdict(
        !invented.length,
        invented.length ? `links not found in the input: ${listed(invented)}` : 'every link appears in the input',
      );
    }
    case 'no_emails': {
      const found = findEmails(out);
      return verdict(
        !found.length,
        found.length
          ? `contains ${plural(found.length, 'email address', 'email addresses')}: ${masked(found)}`
          : 'no email addresses',
      );
    }
    case 'no_phones': {
      const found = findPhones(out);
      return verdict(
        !found.length,
        found.length ? `contains ${plural(found.length, 'phone number')}: ${masked(found)}` : 'no phone numbers',
      );
    }
    case 'no_card_numbers': {
      const found = findCardNumbers(out);
      return verdict(
        !found.length,
        found.length
          ? `contains ${plural(found.length, 'card number')} passing the Luhn check: ${masked(found)}`
          : 'no card numbers',
      );
    }
    case 'no_secrets': {
      const found = findSecrets(out);
      return verdict(
        !found.length,
        found.length
          ? `contains ${plural(found.length, 'secret')}: ${listed(
              found.map((s) => `${s.kind} ${s.masked}`),
              { quote: false },
            )}`
          : 'no secrets such as keys, tokens or passwords',
      );
    }
  }
}
