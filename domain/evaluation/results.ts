/** What a judge returns, a stored result of batch evaluation, and the order reports use. */
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

/** A graded call as stored (domain/weaviate/eval-results.ts) and read by reports (report.ts). */
export interface EvalResult {
  recordId: string;
  runId: string;
  model: string;
  judge: string;
  useCase: string;
  /** The call's timestamp (epoch ms), or when it was imported when the record had none. */
  loggedAt: number;
  /** The call's latency, or null when the record had none. */
  latencyMs: number | null;
  metadata: Record<string, unknown>;
  messages: { role: string; content: string }[];
  output: string;
  correctness: Grading['correctness'];
  rules: (Grading['rules'][number] & { severity: string; category: string })[];
  /** Placeholders put in by redaction. */
  redactions: number;
  gradedAt: number;
}

/** What a report reads of a result (not the messages or the output). */
export type ReportRow = Pick<
  EvalResult,
  'recordId' | 'model' | 'useCase' | 'loggedAt' | 'latencyMs' | 'metadata' | 'correctness' | 'rules'
>;

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
