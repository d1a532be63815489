/**
 * Reads a rule's description into a typed check the built-in judge can grade, or
 * `undefined` when it cannot read it (such a rule needs a model judge). The readers
 * (readers-structure.ts, readers-content.ts) understand English variants of each family, not one template: "Answer with
 * at least 300 words", "no fewer than 300 words", "Use 300+ words" and "Keep it under 50 words" are
 * all length rules. A description that states several checkable things ("in English and in all
 * capital letters") becomes one check of kind `all`. What the readers leave over is looked at
 * too: a clause that still reads like an instruction ("… and mention the ticket ID") is returned as
 * `unread`, so the judge never passes a rule it only partly understood.
 *
 * A rule in Spanish, German, French, Portuguese or Italian is read by the reader by meaning
 * (meaning/reader.ts) alone; an English one by it too when the family readers read nothing, leave
 * clauses about the family it read, or miss a family whose words are unmistakable.
 */
import type { Check } from './checks';
import * as c from './readers-content';
import * as s from './readers-structure';
import { type MeaningReading, missesFamily, readByMeaning, readsClauses } from './meaning/reader';
import { type Reader, RuleText } from './rule-text';

export type { Check } from './checks';

/** The readers in the order they run: the most specific families claim their words first. */
const READERS: Reader[] = [
  s.repeatRequest,
  s.twoResponses,
  s.options,
  s.sections,
  s.postscript,
  s.title,
  s.paragraphFirstWord,
  s.paragraphs,
  s.bullets,
  c.capitalWords,
  s.highlights,
  s.placeholders,
  c.letterFrequency,
  c.keywordFrequency,
  c.letterCase,
  c.sameLanguage,
  c.onTopic,
  c.language,
  s.json,
  s.quotation,
  s.endsWith,
  s.startsWith,
  s.noCommas,
  c.absence(/\be-?mail\s+(?:addresses|address|ids?)\b|\be-?mails\b/, 'no_emails'),
  c.absence(
    /\b(?:(?:tele)?phone|mobile|cell(?:ular)?|contact|fax)\s*(?:phone\s*)?(?:numbers?|#)\b|\bphones?\b/,
    'no_phones',
  ),
  c.absence(
    /\b(?:(?:credit|debit|payment|bank|customer)\s+)?card\s*(?:numbers?|details|data|info(?:rmation)?)\b|\bcredit\s+cards?\b|\bpans?\b/,
    'no_card_numbers',
  ),
  c.absence(
    /\b(?:secrets?|api[- ]?keys?|access\s+keys?|secret\s+keys?|private\s+keys?|(?:access|auth|api|bearer)\s+tokens?|tokens?|passwords?|passphrases?|credentials?)\b/,
    'no_secrets',
  ),
  c.links,
  c.mentions,
  c.forbiddenWords,
  c.keywords,
  c.length('words', 'words?'),
  c.length('sentences', 'sentences?'),
  c.length('characters', 'characters?|chars'),
];

export interface ReadRule {
  /** What could be read, if anything. */
  check?: Check;
  /** Clauses left over that still read like instructions the judge cannot check. */
  unread: string[];
  /** The reading by meaning, kept to tell the author of a rule not understood what is closest. */
  meaning: MeaningReading;
}

/** Words that state an instruction. */
const INSTRUCTION =
  /\b(?:must|should|shall|needs?\s+to|has\s+to|have\s+to|ensure|make\s+sure|always|never|do\s+not|don't|avoid|include|mention|use|write|say|add|answer|respond|reply|keep|refer|ask|greet|thank|apologi[sz]e|explain|provide|give|list|describe|summari[sz]e|state|offer|suggest|recommend|cite|stay|start|end|begin|finish|wrap|format|put|contain|written|writing|be)\b/;
/** Words that carry no requirement of their own once the readers have taken theirs. */
const FILLER = new Set(
  [
    'a an the your you my our it its this that these those in on of to with for by as at from and or but then also please only just',
    'entire whole full all any every each everything anything response responses answer answers reply replies output text message content part',
    'must should shall need needs has have be is are was were will would can could may might do does not no never always avoid dont make sure ensure',
    'use using used write written say include included mention keep give provide put add format wrap start end begin finish contain contains containing',
    'respond stay divide into appear appears share reveal leak expose disclose show print send display redact mask hide remove strip omit exclude',
    'there here such like example following exact exactly separated separate other allowed way throughout anywhere somewhere total number times',
    'words word characters letters letter sentence sentences paragraph paragraphs markdown bullet bullets point points list item items section sections',
    'title double quotation quote quotes mark marks language case entirely fully completely solely exclusively strictly',
    'one two three four five six seven eight nine ten least most more fewer less than once twice',
    'summary email essay story poem post article note description explanation bio review tweet blog speech script',
  ]
    .join(' ')
    .split(' '),
);
const PERMISSION =
  /^\s*(?:you\s+(?:can|may)|feel\s+free|it\s+is\s+(?:ok|fine)|(?:for\s+example|e\.g\.?|i\.e\.?|such\s+as|like)\b)/;

/** Where a run of characters of `is` that contains position i ends, for every i (i itself when not in one). */
function runEnds(text: string, is: (c: string) => boolean): Int32Array {
  const ends = new Int32Array(text.length + 1);
  ends[text.length] = text.length;
  for (let i = text.length - 1; i >= 0; i--) ends[i] = is(text[i]) ? (is(text[i + 1] ?? '') ? ends[i + 1] : i + 1) : i;
  return ends;
}

const BLANK = /^\s$/;
const STOP = new Set(['.', ';', '!', '?', '\n', '(', ')']);
const CONJUNCTION = /(?:and|but|then)/iy;

/**
 * The pieces `text.split(/[.;!?\n()]+(?=\s|$)|[\n()]|¦+|,?\s+(?:and|but|then)\s+/i)` returns, in
 * linear time: where the regex rescans a run of stops or of blanks from each of its characters, the
 * runs' ends are known in advance (a run of stops ends a piece where a blank or a line break follows
 * it; blanks and a comma end one before "and", "but" or "then").
 */
export function clausePieces(text: string): string[] {
  const blankEnd = runEnds(text, (c) => BLANK.test(c));
  const stopEnd = runEnds(text, (c) => STOP.has(c));
  const barEnd = runEnds(text, (c) => c === '¦');
  // The last line break after i within its run of stops (-1: none).
  const lastBreak = new Int32Array(text.length + 1).fill(-1);
  for (let i = text.length - 2; i >= 0; i--) {
    if (!STOP.has(text[i]) || !STOP.has(text[i + 1])) continue;
    lastBreak[i] = lastBreak[i + 1] >= 0 ? lastBreak[i + 1] : text[i + 1] === '\n' ? i + 1 : -1;
  }
  const blank = (i: number) => i < text.length && BLANK.test(text[i]);
  const separatorEnd = (p: number): number | undefined => {
    const c = text[p];
    if (STOP.has(c)) {
      const end = stopEnd[p];
      if (end === text.length || blank(end)) return end;
      if (lastBreak[p] > p) return lastBreak[p];
      if (c === '\n' || c === '(' || c === ')') return p + 1;
      return undefined;
    }
    if (c === '¦') return barEnd[p];
    const from = c === ',' ? p + 1 : p;
    if (!blank(from)) return undefined;
    CONJUNCTION.lastIndex = blankEnd[from];
    if (!CONJUNCTION.test(text) || !blank(CONJUNCTION.lastIndex)) return undefined;
    return blankEnd[CONJUNCTION.lastIndex];
  };
  const pieces: string[] = [];
  let start = 0;
  for (let p = 0; p < text.length;) {
    const end = separatorEnd(p);
    if (end === undefined) {
      p += 1;
      continue;
    }
    pieces.push(text.slice(start, p));
    start = p = end;
  }
  pieces.push(text.slice(start));
  return pieces;
}

function unreadClauses(rt: RuleText): string[] {
  const out: string[] = [];
  for (const piece of clausePieces(rt.written)) {
    const clause = piece.replace(/⟦\d+⟧/g, ' ').replace(/\s+/g, ' ').trim();
    const low = clause.toLowerCase();
    if (!clause || PERMISSION.test(low) || !INSTRUCTION.test(low)) continue;
    const content = (low.match(/[\p{L}'’]+/gu) ?? [])
      .map((w) => w.replace(/['’]/g, ''))
      .filter((w) => w.length > 2 && !FILLER.has(w));
    if (content.length) out.push(clause);
  }
  return out;
}

/**
 * Checks that one family's words made another reader see a family of its own: "3 words in all
 * capital letters" is a count of words, not a response in capitals; "each section starting with
 * "Section"" names the sections' marker, not how the response starts.
 */
function withoutEchoes(checks: Check[]): Check[] {
  const counted = checks.some((c) => c.kind === 'capital_words');
  const markers = checks.flatMap((c) => (c.kind === 'sections' ? [c.marker.toLowerCase()] : []));
  return checks.filter(
    (c) =>
      !(counted && c.kind === 'uppercase') &&
      !(c.kind === 'starts_with' && markers.some((m) => c.phrase.toLowerCase().startsWith(m))),
  );
}

export function readRule(description: string): ReadRule {
  const rt = new RuleText(description);
  const byMeaning = readByMeaning({ masked: rt.written, quotes: rt.quotes });
  const meant: ReadRule | undefined = byMeaning.check
    ? { check: byMeaning.check, unread: [], meaning: byMeaning }
    : undefined;
  // A rule in another language is read by meaning only: the family readers know English words.
  if (byMeaning.lang !== 'en') return meant ?? { unread: [description.trim()], meaning: byMeaning };
  const checks: Check[] = [];
  for (const read of READERS) {
    const found = read(rt);
    if (found) checks.push(...(Array.isArray(found) ? found : [found]));
  }
  const kept = withoutEchoes(checks);
  const unread = kept.length ? unreadClauses(rt) : [description.trim()];
  // What the family readers did not read, the reader by meaning may: all of it, or the clauses
  // they left, when those are about the family it read.
  if (
    meant &&
    (!kept.length ||
      (unread.length && readsClauses({ family: byMeaning.family!, clauses: unread })) ||
      missesFamily({ family: byMeaning.family!, checks: kept }))
  )
    return meant;
  if (!kept.length) return { unread, meaning: byMeaning };
  return { check: kept.length === 1 ? kept[0] : { kind: 'all', checks: kept }, unread, meaning: byMeaning };
}

/** The check a description reads as (possibly only part of it: see `readRule`), or undefined. */
export const parseRule = (description: string): Check | undefined => readRule(description).check;
