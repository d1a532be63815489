/**
 * An evaluation report as a standalone HTML page with charts drawn by Chart.js, whose code is
 * inlined (no network needed to open it): defect rate, correctness, latency p50/p95, calls per
 * period, pass rate per rule, and each rule's pass rate over time with its 95 % interval as a band.
 * Every text from the data is escaped; the data reaches the page script as JSON in a script element.
 */
import type { EvalReport } from './report';
import { interval, modelRows, pct, pValue, reportRules, ruleCell, scopeLine, verdict } from './report-markdown';

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
  var colour = function (i) { return colours[i % colours.length]; };
  var band = function (i) { return colour(i) + '33'; };
  var models = data.models.map(function (m) { return m.model; });
  var common = { animation: false, responsive: false, plugins: { legend: { display: true } } };
  var drawn = 0;
  function chart(id, config) { new Chart(document.getElementById(id), config); drawn++; }
  function bar(id, label, values, max) {
    chart(id, {
      type: 'bar',
      data: { labels: models, datasets: [{ label: label, data: values, backgroundColor: models.map(function (_, i) { return colour(i); }) }] },
      options: Object.assign({}, common, { scales: { y: { beginAtZero: true, max: max } }, plugins: { legend: { display: false }, title: { display: true, text: label } } })
    });
  }
  bar('defects', 'defect rate (%)', data.models.map(function (m) { return +(m.defectRate * 100).toFixed(1); }), 100);
  bar('correctness', 'correctness mean (0-5)', data.models.map(function (m) { return +m.correctnessMean.toFixed(2); }), 5);
  chart('latency', {
    type: 'bar',
    data: { labels: models, datasets: ['p50', 'p95'].map(function (q, k) {
      return { label: 'latency ' + q + ' (ms)', backgroundColor: k ? '#999' : '#4e79a7', data: data.models.map(function (m) { return m.latency ? Math.round(m.latency[q]) : null; }) };
    }) },
    options: Object.assign({}, common, { scales: { y: { beginAtZero: true } }, plugins: { title: { display: true, text: 'latency (ms)' } } })
  });
  chart('volume', {
    type: 'line',
    data: { labels: data.periods, datasets: data.models.map(function (m, i) {
      return { label: m.model, borderColor: colour(i), backgroundColor: colour(i), spanGaps: false, data: data.periods.map(function (p) {
        var v = m.volume.find(function (x) { return x.start === p; });
        return v ? v.calls : 0;
      }) };
    }) },
    options: Object.assign({}, common, { scales: { y: { beginAtZero: true } }, plugins: { title: { display: true, text: 'calls per ' + data.period } } })
  });
  chart('rules', {
    type: 'bar',
    data: {
      labels: data.rules,
      datasets: data.models.map(function (m, i) {
        return { label: m.model, backgroundColor: colour(i), data: data.rules.map(function (id) {
          var s = m.rules.find(function (r) { return r.ruleId === id; });
          return s && s.passRate !== null ? +(s.passRate * 100).toFixed(1) : null;
        }) };
      })
    },
    options: Object.assign({}, common, { indexAxis: 'y', scales: { x: { beginAtZero: true, max: 100, title: { display: true, text: 'pass rate (%)' } } } })
  });
  // Each rule over time: per model its pass rate, and its interval as a band (upper filled down to lower).
  data.rules.forEach(function (id, r) {
    var datasets = [];
    data.models.forEach(function (m, i) {
      var s = m.rules.find(function (x) { return x.ruleId === id; });
      var at = function (pick) { return data.periods.map(function (p) {
        var v = s && s.series.find(function (x) { return x.start === p; });
        return v && v.passRate !== null ? +(pick(v) * 100).toFixed(1) : null;
      }); };
      datasets.push({ label: m.model + ' 95 % low', data: at(function (v) { return v.interval[0]; }), borderWidth: 0, pointRadius: 0, fill: false, showLine: true, borderColor: band(i) });
      datasets.push({ label: m.model + ' 95 % high', data: at(function (v) { return v.interval[1]; }), borderWidth: 0, pointRadius: 0, fill: '-1', backgroundColor: band(i), borderColor: band(i) });
      datasets.push({ label: m.model, data: at(function (v) { return v.passRate; }), borderColor: colour(i), backgroundColor: colour(i), fill: false });
    });
    chart('trend-' + r, {
      type: 'line',
      data: { labels: data.periods, datasets: datasets },
      options: Object.assign({}, common, {
        scales: { y: { min: 0, max: 100, title: { display: true, text: 'pass rate (%)' } } },
        plugins: { title: { display: true, text: id + ': pass rate by ' + data.period + ' (95 % interval)' }, legend: { labels: { filter: function (item) { return item.text.indexOf(' 95 % ') < 0; } } } }
      })
    });
  });
  document.body.dataset.chartsRendered = String(drawn);
})();
`;

/** Every period start of the report, oldest first. */
function periods(report: EvalReport): string[] {
  const starts = new Set<string>();
  for (const m of report.models) for (const v of m.volume) starts.add(v.start);
  return [...starts].sort();
}

export function renderHtml(report: EvalReport, o: { chartJs: string }): string {
  const models = report.models;
  const rules = reportRules(report);
  // The charts show the rules some call could be graded on; the table lists them all.
  const gradable = rules
    .map((r) => r.ruleId)
    .filter((id) => models.some((m) => m.rules.some((r) => r.ruleId === id && r.passRate !== null)));
  const rows = rules
    .map((rule) => {
      const cells = models.map((m) => {
        const s = m.rules.find((r) => r.ruleId === rule.ruleId);
        if (!s || s.passRate === null) return `<td>${html(ruleCell(s))}</td>`;
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
  const comparisons = report.comparisons
    .map(
      (c) =>
        `<tr><th>${html(c.ruleId)}</th><td>${html(c.a)} vs ${html(c.b)}</td><td>${pct(c.passRateA)} <small>n=${c.nA}</small> vs ${pct(c.passRateB)} <small>n=${c.nB}</small></td><td>${pValue(c.pAdjusted)}</td><td${c.better ? ' class="better"' : ''}>${html(verdict(c))}</td></tr>`,
    )
    .join('\n');
  const height = Math.max(200, gradable.length * Math.max(1, models.length) * 18 + 80);
  const trends = gradable.map((_, r) => `<canvas id="trend-${r}" width="600" height="260"></canvas>`).join('\n');
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
td.better { font-weight: bold; }
.charts { display: flex; flex-wrap: wrap; gap: 24px; }
small { color: #666; }
</style>
</head>
<body>
<h1>Evaluation report</h1>
<p>${html(scopeLine(report.scope))}; ${report.calls} graded calls over ${report.days} days; generated ${html(report.generatedAt)}</p>
${
  report.calls === 0
    ? '<p>No graded calls match.</p>'
    : `<h2>Critical failures</h2>
<ul>${failures}</ul>
<h2>Models</h2>
<table>
<tr><th></th>${models.map((m) => `<th>${html(m.model)}</th>`).join('')}</tr>
${modelRows(models)
  .map(([label, cells]) => `<tr><th>${html(label)}</th>${cells.map((c) => `<td>${html(c)}</td>`).join('')}</tr>`)
  .join('\n')}
</table>
<div class="charts">
<canvas id="defects" width="420" height="260"></canvas>
<canvas id="correctness" width="420" height="260"></canvas>
<canvas id="latency" width="420" height="260"></canvas>
<canvas id="volume" width="600" height="260"></canvas>
</div>
<h2>Rules: pass rate over the calls each rule applied to</h2>
<canvas id="rules" width="880" height="${height}"></canvas>
<table>
<tr><th>rule</th><th>severity</th>${models.map((m) => `<th>${html(m.model)}</th>`).join('')}</tr>
${rows}
</table>
${
  comparisons
    ? `<h2>Which model is better on which rule</h2>
<p>Two-sided two-proportion z-test per rule; p-values Holm-adjusted over the rules of each pair of models; better means adjusted p &lt; 0.05.</p>
<table>
<tr><th>rule</th><th>models</th><th>pass rates</th><th>p (adjusted)</th><th>verdict</th></tr>
${comparisons}
</table>`
    : ''
}
<h2>Pass rate by ${html(report.period)}</h2>
<div class="charts">
${trends}
</div>
<script type="application/json" id="report-data">${scriptJson({ models, rules: gradable, periods: periods(report), period: report.period })}</script>
<script>${o.chartJs.replace(/<\/script/gi, '<\\/script')}</script>
<script>${PAGE_SCRIPT}</script>`
}
</body>
</html>
`;
}
