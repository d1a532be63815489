/**
 * Reports of batch evaluation: per model, the calls graded, the mean correctness score and the
 * defect rate, and per rule the pass rate over the calls it applied to (not_applicable excluded)
 * with a 95 % Wilson interval, the calls it could not grade, and the critical failures first.
 * `renderMarkdown` is for the terminal; `renderHtml` is a standalone page with charts drawn by
 * Chart.js, whose code is inlined (no network needed to open it). Every text from the data is
 * escaped: rule ids, models, explanations and metadata come from imported files (in the markdown,
 * their control characters too: it goes to a terminal).
 */
import { terminalText } from '../text/terminal-text';
import type { EvalResult } from '../weaviate/eval-results';

export interface ReportScope {
  tenant: string;
  useCase?: string;
  /** Epoch ms, inclusive / exclusive. */
  from?: number;
  to?: number;
  /** Metadata conditions, all of which must hold (`key=value`, compared as text). */
  where: [string, string][];
}

export interface RuleStat {
  ruleId: string;
  category: string;
  severity: string;
  pass: number;
  fail: number;
  notGradable: number;
  /** Pass rate over pass + fail, null when the rule never applied. */
  passRate: number | null;
  /** 95 % Wilson score interval of the pass rate. */
  interval: [number, number] | null;
}

export interface CriticalFailure {
  recordId: string;
  ruleId: string;
  explanation: string;
}

export interface ModelReport {
  model: string;
  calls: number;
  correctnessMean: number;
  defectRate: number;
  notGradable: number;
  rules: RuleStat[];
  criticalFailures: number;
  /** The first critical failures, newest first. */
  examples: CriticalFailure[];
}

export interface EvalReport {
  scope: ReportScope;
  generatedAt: string;
  calls: number;
  models: ModelReport[];
}

const EXAMPLES = 10;
const SEVERITY_ORDER: Record<string, number> = { critical: 0, warning: 1, info: 2 };

/** The 95 % Wilson score interval of `successes` out of `n`. */
export function wilson(successes: number, n: number, z = 1.96): [number, number] | null {
  if (n === 0) return null;
  const p = successes / n;
  const denominator = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / denominator;
  const margin = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / denominator;
  return [Math.max(0, centre - margin), Math.min(1, centre + margin)];
}

export function matchesScope(r: EvalResult, scope: ReportScope): boolean {
  if (scope.useCase && r.useCase !== scope.useCase) return false;
  if (scope.from !== undefined && r.loggedAt < scope.from) return false;
  if (scope.to !== undefined && r.loggedAt >= scope.to) return false;
  return scope.where.every(([key, value]) => Object.hasOwn(r.metadata, key) && String(r.metadata[key]) === value);
}

export function buildReport(results: readonly EvalResult[], scope: ReportScope, now = new Date()): EvalReport {
  const inScope = results.filter((r) => matchesScope(r, scope));
  const byModel = new Map<string, EvalResult[]>();
  for (const r of inScope) byModel.set(r.model, [...(byModel.get(r.model) ?? []), r]);
  const models = [...byModel].map(([model, calls]): ModelReport => {
    const rules = new Map<string, RuleStat>();
    const failures: (CriticalFailure & { at: number })[] = [];
    for (const call of calls) {
      for (const r of call.rules) {
        const stat = rules.get(r.ruleId) ?? {
          ruleId: r.ruleId,
          category: r.category,
          severity: r.severity,
          pass: 0,
          fail: 0,
          notGradable: 0,
          passRate: null,
          interval: null,
        };
        rules.set(r.ruleId, stat);
        if (r.outcome === 'pass') stat.pass += 1;
        else if (r.outcome === 'fail') stat.fail += 1;
        else stat.notGradable += 1;
        if (r.outcome === 'fail' && r.severity === 'critical')
          failures.push({ recordId: call.recordId, ruleId: r.ruleId, explanation: r.explanation, at: call.loggedAt });
      }
    }
    for (const stat of rules.values()) {
      const n = stat.pass + stat.fail;
      stat.passRate = n ? stat.pass / n : null;
      stat.interval = wilson(stat.pass, n);
    }
    return {
      model,
      calls: calls.length,
      correctnessMean: calls.reduce((s, c) => s + (c.correctness?.score ?? 0), 0) / calls.length,
      defectRate: calls.filter((c) => c.correctness?.verdict === 'defect').length / calls.length,
      notGradable: [...rules.values()].reduce((s, r) => s + r.notGradable, 0),
      rules: [...rules.values()].sort(
        (a, b) =>
          (SEVERITY_ORDER[a.severity] ?? 1) - (SEVERITY_ORDER[b.severity] ?? 1) || (a.ruleId < b.ruleId ? -1 : 1),
      ),
      criticalFailures: failures.length,
      examples: failures
        .sort((a, b) => b.at - a.at)
        .slice(0, EXAMPLES)
        .map(({ at: _at, ...f }) => f),
    };
  });
  models.sort((a, b) => (a.model < b.model ? -1 : 1));
  return { scope, generatedAt: now.toISOString(), calls: inScope.length, models };
}

const pct = (x: number | null) => (x === null ? 'n/a' : `${(x * 100).toFixed(1)} %`);
const interval = (i: [number, number] | null) => (i ? `${(i[0] * 100).toFixed(1)}–${(i[1] * 100).toFixed(1)} %` : '');
/** A text from the data in a markdown cell for the terminal: markdown escaped, on one line, controls escaped. */
const mdCell = (s: string) => terminalText(s.replace(/[\\|`*_[\]<>]/g, (c) => `\\${c}`).replace(/\s+/g, ' '));

function scopeLine(scope: ReportScope): string {
  const parts = [`tenant ${scope.tenant}`, `use case ${scope.useCase ?? 'all'}`];
  if (scope.from !== undefined) parts.push(`from ${new Date(scope.from).toISOString()}`);
  if (scope.to !== undefined) parts.push(`to ${new Date(scope.to).toISOString()}`);
  for (const [k, v] of scope.where) parts.push(`${k}=${v}`);
  return parts.join(', ');
}

/** All rule ids of the report, critical first, in the order of the first model that has them. */
function ruleIds(report: EvalReport): RuleStat[] {
  const seen = new Map<string, RuleStat>();
  for (const m of report.models) for (const r of m.rules) if (!seen.has(r.ruleId)) seen.set(r.ruleId, r);
  return [...seen.values()].sort(
    (a, b) => (SEVERITY_ORDER[a.severity] ?? 1) - (SEVERITY_ORDER[b.severity] ?? 1) || (a.ruleId < b.ruleId ? -1 : 1),
  );
}

export function renderMarkdown(report: EvalReport): string {
  const lines = [
    `# Evaluation report`,
    '',
    `${mdCell(scopeLine(report.scope))}; ${report.calls} graded calls; generated ${report.generatedAt}`,
    '',
  ];
  if (report.calls === 0) return [...lines, 'No graded calls match.', ''].join('\n');
  const models = report.models;
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
    `| | ${models.map((m) => mdCell(m.model)).join(' | ')} |`,
    `|---|${models.map(() => '---|').join('')}`,
  );
  lines.push(`| calls graded | ${models.map((m) => m.calls).join(' | ')} |`);
  lines.push(`| correctness mean (0–5) | ${models.map((m) => m.correctnessMean.toFixed(2)).join(' | ')} |`);
  lines.push(`| defect rate | ${models.map((m) => pct(m.defectRate)).join(' | ')} |`);
  lines.push(`| not gradable (rule results) | ${models.map((m) => m.notGradable).join(' | ')} |`);
  lines.push(
    '',
    '## Rules: pass rate (95 % interval), over the calls each rule applied to',
    '',
    `| rule | severity | ${models.map((m) => mdCell(m.model)).join(' | ')} |`,
    `|---|---|${models.map(() => '---|').join('')}`,
  );
  for (const rule of ruleIds(report)) {
    const cells = models.map((m) => {
      const s = m.rules.find((r) => r.ruleId === rule.ruleId);
      if (!s) return '';
      return s.passRate === null
        ? `not gradable (${s.notGradable})`
        : `${pct(s.passRate)} (${interval(s.interval)}), n=${s.pass + s.fail}${s.notGradable ? `, not gradable ${s.notGradable}` : ''}`;
    });
    lines.push(`| ${mdCell(rule.ruleId)} | ${mdCell(rule.severity)} | ${cells.join(' | ')} |`);
  }
  return [...lines, ''].join('\n');
}

const html = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
/** JSON inside a <script> element: `<` escaped so no text can close the element. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

const PAGE_SCRIPT = `
(function () {
  var errors = [];
  window.addEventListener('error', function (e) { errors.push(String(e.message)); document.body.dataset.errors = errors.join('; '); });
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var colours = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7'];
  var models = data.models.map(function (m) { return m.model; });
  var common = { animation: false, responsive: false, plugins: { legend: { display: true } } };
  var drawn = 0;
  function bar(id, label, values, max, horizontal) {
    new Chart(document.getElementById(id), {
      type: 'bar',
      data: { labels: models, datasets: [{ label: label, data: values, backgroundColor: models.map(function (_, i) { return colours[i % colours.length]; }) }] },
      options: Object.assign({}, common, { indexAxis: horizontal ? 'y' : 'x', scales: { y: { beginAtZero: true, max: max } }, plugins: { legend: { display: false }, title: { display: true, text: label } } })
    });
    drawn++;
  }
  bar('defects', 'defect rate (%)', data.models.map(function (m) { return +(m.defectRate * 100).toFixed(1); }), 100);
  bar('correctness', 'correctness mean (0-5)', data.models.map(function (m) { return +m.correctnessMean.toFixed(2); }), 5);
  new Chart(document.getElementById('rules'), {
    type: 'bar',
    data: {
      labels: data.rules,
      datasets: data.models.map(function (m, i) {
        return { label: m.model, backgroundColor: colours[i % colours.length], data: data.rules.map(function (id) {
          var s = m.rules.find(function (r) { return r.ruleId === id; });
          return s && s.passRate !== null ? +(s.passRate * 100).toFixed(1) : null;
        }) };
      })
    },
    options: Object.assign({}, common, { indexAxis: 'y', scales: { x: { beginAtZero: true, max: 100, title: { display: true, text: 'pass rate (%)' } } } })
  });
  drawn++;
  document.body.dataset.chartsRendered = String(drawn);
})();
`;

export function renderHtml(report: EvalReport, o: { chartJs: string }): string {
  const models = report.models;
  const rules = ruleIds(report);
  // The chart shows the rules some call could be graded on; the table lists them all.
  const gradable = rules
    .map((r) => r.ruleId)
    .filter((id) => models.some((m) => m.rules.some((r) => r.ruleId === id && r.passRate !== null)));
  const rows = rules
    .map((rule) => {
      const cells = models.map((m) => {
        const s = m.rules.find((r) => r.ruleId === rule.ruleId);
        if (!s) return '<td></td>';
        if (s.passRate === null) return `<td>not gradable (${s.notGradable})</td>`;
        return `<td>${pct(s.passRate)} <small>(${interval(s.interval)}, n=${s.pass + s.fail})</small>${s.notGradable ? ` <small>not gradable ${s.notGradable}</small>` : ''}</td>`;
      });
      return `<tr class="${html(rule.severity)}"><th>${html(rule.ruleId)}</th><td>${html(rule.severity)}</td>${cells.join('')}</tr>`;
    })
    .join('\n');
  const failures = models
    .map(
      (m) =>
        `<li><b>${html(m.model)}</b>: ${m.criticalFailures} critical failures<ul>${m.examples.map((f) => `<li>${html(f.recordId)}, ${html(f.ruleId)}: ${html(f.explanation.slice(0, 200))}</li>`).join('')}</ul></li>`,
    )
    .join('\n');
  const height = Math.max(200, gradable.length * Math.max(1, models.length) * 18 + 80);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>Evaluation report: ${html(report.scope.tenant)}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 24px; color: #222; }
table { border-collapse: collapse; margin: 12px 0; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; }
tr.critical th { color: #b00; }
.charts { display: flex; flex-wrap: wrap; gap: 24px; }
small { color: #666; }
</style>
</head>
<body>
<h1>Evaluation report</h1>
<p>${html(scopeLine(report.scope))}; ${report.calls} graded calls; generated ${html(report.generatedAt)}</p>
${
  report.calls === 0
    ? '<p>No graded calls match.</p>'
    : `<h2>Critical failures</h2>
<ul>${failures}</ul>
<h2>Models</h2>
<table>
<tr><th></th>${models.map((m) => `<th>${html(m.model)}</th>`).join('')}</tr>
<tr><th>calls graded</th>${models.map((m) => `<td>${m.calls}</td>`).join('')}</tr>
<tr><th>correctness mean (0–5)</th>${models.map((m) => `<td>${m.correctnessMean.toFixed(2)}</td>`).join('')}</tr>
<tr><th>defect rate</th>${models.map((m) => `<td>${pct(m.defectRate)}</td>`).join('')}</tr>
<tr><th>not gradable (rule results)</th>${models.map((m) => `<td>${m.notGradable}</td>`).join('')}</tr>
</table>
<div class="charts">
<canvas id="defects" width="420" height="260"></canvas>
<canvas id="correctness" width="420" height="260"></canvas>
</div>
<h2>Rules: pass rate over the calls each rule applied to</h2>
<canvas id="rules" width="880" height="${height}"></canvas>
<table>
<tr><th>rule</th><th>severity</th>${models.map((m) => `<th>${html(m.model)}</th>`).join('')}</tr>
${rows}
</table>
<script type="application/json" id="report-data">${scriptJson({ models, rules: gradable })}</script>
<script>${o.chartJs.replace(/<\/script/gi, '<\\/script')}</script>
<script>${PAGE_SCRIPT}</script>`
}
</body>
</html>
`;
}
