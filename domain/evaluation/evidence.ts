/**
 * The bounds of what a grading says. Explanations quote tenant text (what the output contains,
 * the rule's own words), and a grading travels as a Temporal payload (2 MiB at most) before it is
 * the response: so every quote is short, every list of evidence shows a few items and counts the
 * rest ("and 41 more"), and every explanation is cut to a size in bytes, whatever the output.
 * `MAX_GRADING_BYTES` follows from these caps and the input limits: the largest grading, as
 * JSON, for the most rules with the longest ids.
 */
import { MAX_RULES } from '../contracts/evaluation';
import { LIMITS } from '../contracts/common';
import type { Grading, RuleResult } from './results';

export const EVIDENCE = {
  /** Items quoted from one list of evidence (links, email addresses, words); the others are counted. */
  items: 3,
  /** Characters of one quoted item (a link, a phrase, a word); a longer one ends with `…`. */
  chars: 80,
};

/** Bytes (UTF-8 of the JSON string's contents) of what a grading says, each at most. */
export const TEXT_BYTES = {
  /** One rule's explanation. */
  explanation: 1024,
  /** The correctness explanation. */
  correctness: 2048,
  /** The judge's name (the configured model's). */
  judge: 256,
  /** Why a model judge fell back to the built-in one (in the workflow's result; it keeps 160 characters of it). */
  reason: 6 * 160,
};

const ELLIPSIS = '…';
const ELLIPSIS_BYTES = 3;

/** The bytes of one UTF-16 code unit in a JSON string (escapes included); a surrogate pair counts 4 for both. */
function unitBytes(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === 0x22 || c === 0x5c) return 2; // \" and \\
  if (c < 0x20) return c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6; // \n, or \u0001
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  if (c >= 0xd800 && c <= 0xdbff) {
    const next = s.charCodeAt(i + 1);
    return next >= 0xdc00 && next <= 0xdfff ? 4 : 6;
  }
  if (c >= 0xdc00 && c <= 0xdfff) {
    const prev = s.charCodeAt(i - 1);
    return prev >= 0xd800 && prev <= 0xdbff ? 0 : 6; // the pair's low half, counted with the high one
  }
  return 3;
}

/** `Buffer.byteLength(JSON.stringify(s)) - 2`, without building the JSON (and usable in a workflow). */
export function jsonBytes(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) n += unitBytes(s, i);
  return n;
}

/** The worst case of `jsonBytes` for a string of `chars` UTF-16 code units: a control character is 6 bytes (`\u0001`). */
export const worstJsonBytes = (chars: number) => 6 * chars;

/** `s` when its JSON takes at most `maxBytes`, else its longest start that fits with `…` after it (a surrogate pair kept whole). */
export function clipBytes(s: string, maxBytes: number): string {
  // Each code unit takes a byte at least: a longer text never fits, and only its start is looked at.
  if (s.length <= maxBytes && jsonBytes(s) <= maxBytes) return s;
  let n = 0;
  let end = 0;
  while (end < s.length) {
    const b = unitBytes(s, end);
    if (n + b > maxBytes - ELLIPSIS_BYTES) break;
    n += b;
    end += b === 4 ? 2 : 1; // a surrogate pair, whole
  }
  return s.slice(0, end) + ELLIPSIS;
}

/** `s`, or its first `chars - 1` code units and `…` (a surrogate pair kept whole). */
export function excerpt(s: string, chars = EVIDENCE.chars): string {
  if (s.length <= chars) return s;
  let end = chars - 1;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end -= 1;
  return s.slice(0, end) + ELLIPSIS;
}

/** A piece of tenant text shown in an explanation: an excerpt, in JSON quotes. */
export const quoted = (s: string, chars = EVIDENCE.chars): string => JSON.stringify(excerpt(s, chars));

/**
 * The first `max` items, each an excerpt (quoted unless `quote` is false: masked values are shown
 * as they are), then how many more: `"a", "b", "c" and 41 more`.
 */
export function listed(items: readonly string[], o: { max?: number; quote?: boolean } = {}): string {
  const max = o.max ?? EVIDENCE.items;
  const show = o.quote === false ? excerpt : (s: string) => quoted(s);
  const head = items.slice(0, max).map((s) => show(s));
  return head.join(', ') + (items.length > max ? ` and ${items.length - max} more` : '');
}

/** A rule's result with its explanation cut to `TEXT_BYTES.explanation`. */
export const boundRuleResult = (r: RuleResult): RuleResult => {
  const explanation = clipBytes(r.explanation, TEXT_BYTES.explanation);
  return explanation === r.explanation ? r : { ...r, explanation };
};

/** A grading whose every text is within TEXT_BYTES, so the whole is within MAX_GRADING_BYTES for up to MAX_RULES rules. */
export function boundGrading(g: Grading): Grading {
  return {
    correctness: { ...g.correctness, explanation: clipBytes(g.correctness.explanation, TEXT_BYTES.correctness) },
    rules: g.rules.map(boundRuleResult),
    judge: clipBytes(g.judge, TEXT_BYTES.judge),
  };
}

/** The fixed part of one rule's result as JSON, with the longest outcome and the comma between results. */
const RULE_RESULT_FRAME = JSON.stringify({ ruleId: '', outcome: 'not_applicable', explanation: '' }).length + 1;
/** The fixed part of a grading as JSON, with the workflow's fallback reason and a score of as many digits as a number has. */
const GRADING_FRAME = JSON.stringify({
  correctness: { verdict: 'correct', score: 0.0000012345678901234567, explanation: '' },
  rules: [],
  judge: '',
  fallback: { reason: '' },
}).length;

/** The most bytes one rule's result takes as JSON: the longest id (any characters), the longest explanation. */
export const MAX_RULE_RESULT_BYTES = RULE_RESULT_FRAME + worstJsonBytes(LIMITS.id) + TEXT_BYTES.explanation;

/**
 * The most bytes a grading (the workflow's result, the response's body) takes as JSON: MAX_RULES
 * results of MAX_RULE_RESULT_BYTES, the correctness, the judge and the fallback reason.
 */
export const MAX_GRADING_BYTES =
  GRADING_FRAME + TEXT_BYTES.correctness + TEXT_BYTES.judge + TEXT_BYTES.reason + MAX_RULES * MAX_RULE_RESULT_BYTES;
