/**
 * An evaluation report as markdown, for the terminal. Every text from the data (rule ids, models,
 * record ids, explanations, metadata) is escaped: markdown, line breaks and control characters.
 */
import { terminalText } from '../text/terminal-text';
import { ALPHA, type EvalReport, type ModelReport, type RuleStat, severityOrder } from './report';

/** Periods of the pass-rate-over-time tables (the HTML page charts them all). */
const RECENT_PERIODS = 12;

export const pct = (x: number | null) => (x === null ? 'n/a' : `${(x * 100).toFixed(1)} %`);
export const interval = (i: [number, number] | null) =>
  i ? `${(i[0] * 100).toFixed(1)}–${(i[1] * 100).toFixed(1)} %` : '';
export const ms = (x: number) => `${Math.round(x)} ms`;
export const pValue = (p: number | null) => (p === null ? 'too few calls' : p < 0.001 ? '< 0.001' : p.toFixed(3));
/** A text from the data in a markdown cell for the terminal: markdown escaped, on one line, controls escaped. */
const mdCell = (s: string) => terminalText(s.replace(/[\\|`*_[\]<>]/g, (c) => `\\${c}`).replace(/\s+/g, ' '));

export function scopeLine(scope: EvalReport['scope']): string {
  const parts = [`tenant ${scope.tenant}`, `use case ${scope.useCase ?? 'all'}`];
  if (scope.from !== undefined) parts.push(`from ${new Date(scope.from).toISOString()}`);
  if (scope.to !== undefined) parts.push(`to ${new Date(scope.to).toISOString()}`);
  for (const [k, v] of scope.where) parts.push(`${k}=${v}`);
  return parts.join(', ');
}

/** All rules of the report, critical first, as the first model that has them describes them. */
export function reportRules(report: EvalReport): RuleStat[] {
  const seen = new Map<string, RuleStat>();
  for (const m of report.models) for (const r of m.rules) if (!seen.has(r.ruleId)) seen.set(r.ruleId, r);
  return [...seen.values()].sort(severityOrder);
}

/** The rows of the models table: label, then one cell per model. */
export function modelRows(models: ModelReport[]): [string, string[]][] {
  return [
    ['calls graded', models.map((m) => String(m.calls))],
    ['calls per day', models.map((m) => m.callsPerDay.toFixed(1))],
    ['latency p50', models.map((m) => (m.latency ? ms(m.latency.p50) : 'n/a'))],
    ['latency p95', models.map((m) => (m.latency ? ms(m.latency.p95) : 'n/a'))],
    ['correctness mean (0–5)', models.map((m) => m.correctnessMean.toFixed(2))],
    ['defect rate', models.map((m) => pct(m.defectRate))],
    ['not gradable (rule results)', models.map((m) => String(m.notGradable))],
  ];
}

/** A rule's cell: pass rate, interval, n, and what could not be graded. */
export function ruleCell(s: RuleStat | undefined): string {
  if (!s) return '';
  if (s.passRate === null) return `not gradable (${s.notGradable})`;
  return `${pct(s.passRate)} (${interval(s.interval)}), n=${s.pass + s.fail}${s.notGradable ? `, not gradable ${s.notGradable}` : ''}`;
}

/** What a comparison concludes, in words. */
export function verdict(c: EvalReport['comparisons'][number]): string {
  if (c.better) return `${c.better} better`;
  return c.pAdjusted === null ? 'too few calls to tell' : 'no significant difference';
}

/** A markdown table; an empty cell is one blank ("| | a |"). */
function table(header: string[], rows: string[][]): string[] {
  const row = (cells: string[]) => `|${cells.map((c) => (c ? ` ${c} ` : ' ')).join('|')}|`;
  return [row(header), `|${header.map(() => '---|').join('')}`, ...rows.map(row)];
}

export function renderMarkdown(report: EvalReport): string {
  const lines = [
    `# Evaluation report`,
    '',
    `${mdCell(scopeLine(report.scope))}; ${report.calls} graded calls over ${report.days} days; generated ${report.generatedAt}`,
    '',
  ];
  if (report.calls === 0) return [...lines, 'No graded calls match.', ''].join('\n');
  const models = report.models;
  const names = models.map((m) => mdCell(m.model));
  lines.push('## Critical failures', '');
  for (const m of models) {
    lines.push(
      `- **${mdCell(m.model)}**: ${m.criticalFailures} critical failure${m.criticalFailures === 1 ? '' : 's'}`,
    );
    for (const f of m.examples)
      lines.push(`  - ${mdCell(f.recordId)}, ${mdCell(f.ruleId)}: ${mdCell(f.explanation.slice(0, 200))}`);
  }
  lines.push(
    '',
    '## Models',
    '',
    ...table(
      ['', ...names],
      modelRows(models).map(([l, cells]) => [l, ...cells]),
    ),
  );
  const rules = reportRules(report);
  lines.push(
    '',
    '## Rules: pass rate (95 % interval), over the calls each rule applied to',
    '',
    ...table(
      ['rule', 'severity', ...names],
      rules.map((rule) => [
        mdCell(rule.ruleId),
        mdCell(rule.severity),
        ...models.map((m) => ruleCell(m.rules.find((r) => r.ruleId === rule.ruleId))),
      ]),
    ),
  );
  if (report.comparisons.length) {
    lines.push(
      '',
      `## Which model is better on which rule`,
      '',
      `Two-sided two-proportion z-test per rule, p-values Holm-adjusted over the rules of each pair of models; better means adjusted p < ${ALPHA}.`,
      '',
      ...table(
        ['rule', 'models', 'pass rates', 'p (adjusted)', 'verdict'],
        report.comparisons.map((c) => [
          mdCell(c.ruleId),
          `${mdCell(c.a)} vs ${mdCell(c.b)}`,
          `${pct(c.passRateA)} (n=${c.nA}) vs ${pct(c.passRateB)} (n=${c.nB})`,
          pValue(c.pAdjusted),
          mdCell(verdict(c)),
        ]),
      ),
    );
  }
  lines.push('', `## Pass rate by ${report.period}, the last ${RECENT_PERIODS} at most`);
  for (const rule of rules) {
    const stats = models.map((m) => m.rules.find((r) => r.ruleId === rule.ruleId));
    const starts = [...new Set(stats.flatMap((s) => s?.series.map((p) => p.start) ?? []))]
      .sort()
      .slice(-RECENT_PERIODS);
    if (starts.length === 0) continue;
    lines.push(
      '',
      `### ${mdCell(rule.ruleId)}`,
      '',
      ...table(
        [report.period, ...names],
        starts.map((start) => [
          start,
          ...stats.map((s) => {
            const p = s?.series.find((x) => x.start === start);
            return p ? `${pct(p.passRate)} (${interval(p.interval)}), n=${p.pass + p.fail}` : '';
          }),
        ]),
      ),
    );
  }
  return [...lines, ''].join('\n');
}
