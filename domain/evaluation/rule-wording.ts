/**
 * Rule text in the words the family readers know: before a rule is read, the many ways of saying
 * the same thing become one (RuleText applies this outside quotes). Each entry is a general
 * equivalence of English instruction wording, not a phrasing of one rule:
 * - framing that carries no instruction: a leading label ("Requirement:", "Important -",
 *   "Please make sure of the following:") and a closing "This is mandatory.";
 * - the response named any way ("what you write", "the text you produce", "your output", "the
 *   reply you give") → "your response";
 * - modal verbs ("ought to", "has to", "needs to", "is required to") → "must";
 * - synonyms of the nouns and verbs of rule families (uppercase, block capitals → capital letters;
 *   blocks of text → paragraphs; bulleted items → bullet points; enclose, surround → wrap;
 *   conclude → finish; show up, occur, be used → appear; compose, produce → write; …).
 * Patterns are linear: literal alternations with bounded gaps.
 */

const EQUIVALENT: [RegExp, string][] = [
  // framing
  [
    /^\s*(?:please\s+)?(?:(?:make\s+sure|ensure|note)\s+(?:of\s+)?(?:the\s+)?following|requirements?|important|note|nb|constraints?(?:\s+for\s+(?:the\s+)?(?:assistant|model|answer|response|reply|output))?|rules?|instructions?|guidelines?|formatting(?:\s+rule)?)\s*(?::|-|–|—)\s*/i,
    '',
  ],
  [/\bthis\s+is\s+(?:mandatory|required|compulsory|a\s+must|non-negotiable|essential|important)[.!]?\s*$/i, ''],
  // the response
  [
    /\b(?:what\s+you\s+write|the\s+text\s+you\s+(?:produce|write|return|give)|the\s+(?:reply|response|answer|output)\s+you\s+(?:give|write|produce|return)|your\s+output|the\s+output|your\s+reply|the\s+reply)\b/gi,
    'your response',
  ],
  [/\b(?:complete|whole|full)\s+(?=(?:response|answer|reply)\b)/gi, 'entire '],
  [/\b(?:never|do\s+not|don't)\s+capitali[sz]e\s+(?:anything|any\s+(?:letters?|words?))\b/gi, 'use no capital letters'],
  // modal verbs
  [/\b(?:ought\s+to|has\s+to|have\s+to|needs\s+to|need\s+to|is\s+required\s+to|are\s+required\s+to)\b/gi, 'must'],
  // nouns and verbs of the rule families
  [/\b(?:block\s+capitals|upper-?\s?case\s+letters|uppercase\s+characters)\b/gi, 'capital letters'],
  [/\b(?:small\s+letters|lower-\s?case\s+letters|lower\s+case\s+letters)\b/gi, 'lowercase letters'],
  [/\bblocks?\s+of\s+text\b/gi, 'paragraphs'],
  [/\b(?:bulleted\s+items|list\s+items\s+with\s+bullets|bullet\s+items)\b/gi, 'bullet points'],
  [/\b(?:enclose|surround)\b/gi, 'wrap'],
  [/\bconclude\b/gi, 'finish'],
  [/\b(?:show\s+up|occur|be\s+used)\b/gi, 'appear'],
  [/\b(?:compose|produce)\b/gi, 'write'],
  [/\b(?:reply|respond)\s+using\b/gi, 'answer with'],
];

/** The rule text with equivalent wordings replaced by the ones the readers know. */
export function plainWording(text: string): string {
  let out = text;
  for (const [re, to] of EQUIVALENT)
    out = out.replace(re, (m) => (/^[A-Z]/.test(m) && to ? to[0].toUpperCase() + to.slice(1) : to));
  return out.trimEnd();
}
