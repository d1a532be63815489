/**
 * The built-in judge: always available, pure and deterministic. Each rule's plain-English
 * description is read into a typed check (rule-parser.ts) and graded on the output; a rule it
 * cannot read is `not_applicable` with the reason, never silently passed. Correctness is an honest
 * estimate from what can be measured: the share of checkable rules passed and how much of the
 * output's content is grounded in the input messages. It cannot verify facts.
 */
import type { Rule } from '../contracts/evaluation';
import { contentTokens } from '../ask/sentences';
import { type CheckContext, type Message, runCheck } from './checks';
import { boundGrading, boundRuleResult, listed } from './evidence';
import { orderRuleResults, type Grading, type RuleResult } from './results';
import { notUnderstoodHint } from './meaning/explain';
import { readRule } from './rule-parser';

export const BUILTIN_JUDGE = 'builtin-rules-v1';
export const NEEDS_MODEL = 'this rule needs a model judge: the built-in judge cannot check it';

/**
 * Grades one rule; exported for the benchmark and the tests. A rule read only in part fails when
 * the part read fails; otherwise it is not_applicable, saying what was checked and what was not.
 */
export function gradeRule(rule: Pick<Rule, 'id' | 'description'>, ctx: CheckContext): RuleResult {
  return boundRuleResult(ruleResult(rule, ctx));
}

function ruleResult(rule: Pick<Rule, 'id' | 'description'>, ctx: CheckContext): RuleResult {
  const { check, unread, meaning } = readRule(rule.description);
  if (!check) {
    const hint = notUnderstoodHint(meaning);
    return { ruleId: rule.id, outcome: 'not_applicable', explanation: hint ? `${NEEDS_MODEL} (${hint})` : NEEDS_MODEL };
  }
  const r = runCheck(check, ctx);
  if (!unread.length || r.outcome === 'not_applicable')
    return { ruleId: rule.id, outcome: r.outcome, explanation: r.explanation };
  const rest = listed(unread);
  if (r.outcome === 'fail')
    return { ruleId: rule.id, outcome: 'fail', explanation: `${r.explanation} (not checked: ${rest})` };
  return {
    ruleId: rule.id,
    outcome: 'not_applicable',
    explanation: `partly checked (${r.explanation}); ${NEEDS_MODEL} for ${rest}`,
  };
}

/** Share of the output's distinct content words that also occur in the input messages (0..1). */
export function grounding(messages: Message[], output: string): number | undefined {
  const out = new Set(contentTokens(output));
  if (out.size === 0) return undefined;
  const input = new Set(messages.flatMap((m) => contentTokens(m.content)));
  let shared = 0;
  for (const t of out) if (input.has(t)) shared += 1;
  return shared / out.size;
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

/** A rule as the judge needs it: `category` and `severity` may be left to their defaults. */
export type JudgeRule = Pick<Rule, 'id' | 'description'> & Partial<Pick<Rule, 'category' | 'severity'>>;

/** The grading of an output by the built-in judge; every explanation within the bounds of evidence.ts. */
export function gradeWithBuiltinJudge(input: CheckContext & { rules: JudgeRule[] }): Grading {
  const { messages, output } = input;
  const ctx: CheckContext = { messages, output, topicSimilarity: input.topicSimilarity, memo: new Map() };
  const rules: Rule[] = input.rules.map((r) => ({
    ...r,
    category: r.category ?? 'Custom',
    severity: r.severity ?? 'warning',
  }));
  const results = rules.map((rule) => gradeRule(rule, ctx));
  const severity = new Map(rules.map((r) => [r.id, r.severity]));
  const gradable = results.filter((r) => r.outcome !== 'not_applicable');
  const passed = gradable.filter((r) => r.outcome === 'pass').length;
  const criticalFailed = results.filter((r) => r.outcome === 'fail' && severity.get(r.ruleId) === 'critical');
  const unreadable = results.length - gradable.length;

  const notes: string[] = [];
  let score: number;
  let verdict: Grading['correctness']['verdict'] = 'correct';
  if (!output.trim()) {
    score = 0;
    verdict = 'defect';
    notes.push('The output is empty.');
  } else {
    const share = gradable.length ? passed / gradable.length : 1;
    const g = grounding(messages, output);
    score = 5 * (0.8 * share + 0.2 * (g ?? 0.5));
    notes.push(
      gradable.length
        ? `${passed} of ${gradable.length} checkable rules passed.`
        : 'No rule could be checked by the built-in judge.',
    );
    if (g !== undefined)
      notes.push(`${pct(g)} of the output's content words also occur in the input (a rough grounding signal).`);
    if (criticalFailed.length) {
      verdict = 'defect';
      score = Math.min(score, 2);
      notes.push(
        `Critical rule${criticalFailed.length > 1 ? 's' : ''} failed: ${listed(
          criticalFailed.map((r) => r.ruleId),
          { quote: false },
        )}.`,
      );
    }
  }
  if (unreadable)
    notes.push(`${unreadable} rule${unreadable > 1 ? 's' : ''} need${unreadable > 1 ? '' : 's'} a model judge.`);
  notes.push(
    'The built-in judge checks verifiable form rules only; it cannot verify factual correctness or whether the output fully answers the request.',
  );

  return boundGrading({
    correctness: { verdict, score: Math.round(score * 10) / 10, explanation: notes.join(' ') },
    rules: orderRuleResults(rules, results),
    judge: BUILTIN_JUDGE,
  });
}
