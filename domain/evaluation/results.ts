/** What a judge returns, and the order reports use. */
import type { Rule } from '../contracts/evaluation';

export interface RuleResult {
  ruleId: string;
  outcome: 'pass' | 'fail' | 'not_applicable';
  explanation: string;
}

export interface Grading {
  correctness: { verdict: 'correct' | 'defect'; score: number; explanation: string };
  rules: RuleResult[];
  /** Which judge graded: the model's name, or the built-in judge's. */
  judge: string;
}

const SEVERITY_RANK: Record<string, number> = { critical: 0, warning: 1, info: 2 };
const OUTCOME_RANK: Record<RuleResult['outcome'], number> = { fail: 0, pass: 1, not_applicable: 2 };

/**
 * Results in report order: failures first, critical ones before warnings and infos, then passes,
 * then rules that did not apply; the rules' own order otherwise.
 */
export function orderRuleResults(rules: Rule[], results: RuleResult[]): RuleResult[] {
  const severity = new Map(rules.map((r) => [r.id, SEVERITY_RANK[r.severity ?? 'warning'] ?? 1]));
  const position = new Map(rules.map((r, i) => [r.id, i]));
  const key = (r: RuleResult) => [
    OUTCOME_RANK[r.outcome],
    r.outcome === 'fail' ? (severity.get(r.ruleId) ?? 1) : 0,
    position.get(r.ruleId) ?? 0,
  ];
  return [...results].sort((a, b) => {
    const [ka, kb] = [key(a), key(b)];
    return ka[0] - kb[0] || ka[1] - kb[1] || ka[2] - kb[2];
  });
}
