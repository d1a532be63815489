import { strict as assert } from 'node:assert';
import { describe, it } from 'mocha';
import { buildReport, ReportBuilder, wilson } from '../../domain/evaluation/report';
import { holm, twoProportionTest } from '../../domain/evaluation/report-stats';
import { renderHtml } from '../../domain/evaluation/report-html';
import { renderMarkdown } from '../../domain/evaluation/report-markdown';
import type { EvalResult } from '../../domain/evaluation/results';

const result = (o: Partial<EvalResult> & { outcome?: 'pass' | 'fail' | 'not_applicable' }): EvalResult => ({
  recordId: 'r',
  runId: 'run',
  model: 'm',
  judge: 'builtin',
  useCase: 'default',
  loggedAt: 1000,
  latencyMs: null,
  metadata: {},
  messages: [],
  output: '',
  correctness: { verdict: 'correct', score: 4, explanation: '' },
  rules: [
    { ruleId: 'rule', outcome: o.outcome ?? 'pass', explanation: 'why', severity: 'critical', category: 'Compliance' },
  ],
  redactions: 0,
  gradedAt: 1000,
  ...o,
});

describe('evaluation report', () => {
  it('wilson interval: none without data, within 0..1, narrower with more data', () => {
    assert.equal(wilson(0, 0), null);
    const [lo, hi] = wilson(10, 10)!;
    assert.ok(lo > 0.72 && lo < 0.73 && hi === 1);
    const wide = wilson(5, 10)!;
    const narrow = wilson(50, 100)!;
    assert.ok(narrow[1] - narrow[0] < wide[1] - wide[0]);
  });

  it('excludes not_applicable from pass rates, and filters by use case, time and metadata', () => {
    const results = [
      result({ recordId: 'a', outcome: 'pass', metadata: { product: 'web' } }),
      result({
        recordId: 'b',
        outcome: 'fail',
        metadata: { product: 'app' },
        correctness: { verdict: 'defect', score: 1, explanation: '' },
      }),
      result({ recordId: 'c', outcome: 'not_applicable', loggedAt: 5000 }),
      result({ recordId: 'd', useCase: 'other' }),
    ];
    const all = buildReport(results, { tenant: 't', useCase: 'default', where: [] });
    assert.equal(all.calls, 3);
    const [m] = all.models;
    assert.deepEqual([m.rules[0].pass, m.rules[0].fail, m.rules[0].notGradable, m.rules[0].passRate], [1, 1, 1, 0.5]);
    assert.equal(m.criticalFailures, 1);
    assert.equal(m.defectRate, 1 / 3);
    assert.equal(buildReport(results, { tenant: 't', where: [['product', 'web']] }).calls, 1);
    assert.equal(buildReport(results, { tenant: 't', from: 2000, where: [] }).calls, 1);
    assert.equal(buildReport(results, { tenant: 't', where: [['__proto__', '[object Object]']] }).calls, 0);
  });

  it('two-proportion z-test: a textbook value, none for samples too small, Holm step-down', () => {
    // 60/100 vs 45/100: pooled 0.525, z = 0.15 / sqrt(0.525 * 0.475 * 0.02) = 2.124, p = 0.0337
    const t = twoProportionTest({ pass: 60, n: 100 }, { pass: 45, n: 100 })!;
    assert.ok(Math.abs(t.z - 2.124) < 0.001, String(t.z));
    assert.ok(Math.abs(t.p - 0.0337) < 0.0005, String(t.p));
    assert.equal(twoProportionTest({ pass: 3, n: 3 }, { pass: 2, n: 4 }), null);
    assert.equal(twoProportionTest({ pass: 100, n: 100 }, { pass: 99, n: 100 }), null, 'too few expected fails');
    const adjusted = holm([0.01, null, 0.04, 0.03]).map((p) => (p === null ? null : +p.toFixed(6)));
    assert.deepEqual(adjusted, [0.03, null, 0.06, 0.06]);
  });

  it('per model: latency p50/p95 within 1 %, calls per day, pass rate per day with intervals', () => {
    const day = 86_400_000;
    const results = Array.from({ length: 1000 }, (_, i) =>
      result({
        recordId: `r${i}`,
        model: i % 2 ? 'a' : 'b',
        loggedAt: Date.UTC(2026, 0, 1) + Math.floor(i / 100) * day,
        latencyMs: (i % 100) + 1,
        outcome: i % 20 === 1 ? 'fail' : 'pass',
      }),
    );
    const report = buildReport(results, { tenant: 't', where: [] });
    assert.equal(report.days, 10);
    assert.equal(report.period, 'day');
    const a = report.models.find((m) => m.model === 'a')!;
    assert.equal(a.callsPerDay, 50);
    assert.equal(a.latency!.n, 500);
    // Model a's latencies are the even numbers 2..100, each 10 times: p50 50, p95 96.
    assert.ok(Math.abs(a.latency!.p50 - 50) <= 0.5 + 0.01 * 50, String(a.latency!.p50));
    assert.ok(Math.abs(a.latency!.p95 - 96) <= 1 + 0.01 * 96, String(a.latency!.p95));
    const series = a.rules[0].series;
    assert.equal(series.length, 10);
    assert.equal(series[0].start, '2026-01-01');
    assert.deepEqual([series[1].pass, series[1].fail, series[1].passRate], [45, 5, 0.9]);
    assert.ok(series[1].interval![0] > 0.78 && series[1].interval![1] < 0.96);
    assert.equal(
      a.volume.reduce((s, v) => s + v.calls, 0),
      500,
    );
  });

  it('groups by week from Monday when a report spans months, and keeps few periods however spread the data', () => {
    const day = 86_400_000;
    const monday = Date.UTC(2026, 0, 5);
    const months = buildReport(
      Array.from({ length: 200 }, (_, i) => result({ recordId: `r${i}`, loggedAt: monday + i * day })),
      { tenant: 't', where: [] },
    );
    assert.equal(months.period, 'week');
    assert.equal(months.models[0].volume[0].start, '2026-01-05');
    assert.ok(months.models[0].volume.every((v) => new Date(v.start).getUTCDay() === 1));
    // 20,000 distinct days (55 years): counters are merged while reading, the chart has 62 periods at most.
    const builder = new ReportBuilder({ tenant: 't', where: [] });
    for (let i = 0; i < 20_000; i++) builder.add(result({ recordId: `r${i}`, loggedAt: i * day }));
    const spread = builder.finish();
    assert.equal(spread.period, '52 weeks');
    assert.ok(spread.models[0].volume.length <= 62);
    assert.equal(
      spread.models[0].volume.reduce((s, v) => s + v.calls, 0),
      20_000,
    );
  });

  it('says which model is better on which rule, only when the difference is significant', () => {
    const rows = (model: string, passes: number, n: number, ruleId: string) =>
      Array.from({ length: n }, (_, i) =>
        result({
          recordId: `${model}-${ruleId}-${i}`,
          model,
          rules: [
            { ruleId, outcome: i < passes ? 'pass' : 'fail', explanation: '', severity: 'warning', category: 'C' },
          ],
        }),
      );
    const report = buildReport(
      [
        ...rows('a', 90, 100, 'clear'),
        ...rows('b', 60, 100, 'clear'),
        ...rows('a', 52, 100, 'tie'),
        ...rows('b', 50, 100, 'tie'),
      ],
      { tenant: 't', where: [] },
    );
    const clear = report.comparisons.find((c) => c.ruleId === 'clear')!;
    assert.equal(clear.better, 'a');
    assert.ok(clear.pAdjusted! < 0.001);
    const tie = report.comparisons.find((c) => c.ruleId === 'tie')!;
    assert.equal(tie.better, null);
    assert.ok(tie.pAdjusted! > 0.05);
    const md = renderMarkdown(report);
    assert.match(md, /\| clear \| a vs b \| 90\.0 % \(n=100\) vs 60\.0 % \(n=100\) \| < 0\.001 \| a better \|/);
    assert.match(md, /no significant difference/);
    assert.match(md, /latency p95/);
  });

  it('escapes text from the data in both renderings', () => {
    const hostile = '<script>alert(1)</script>|**x**';
    const report = buildReport(
      [
        result({
          model: hostile,
          recordId: hostile,
          outcome: 'fail',
          rules: [{ ruleId: hostile, outcome: 'fail', explanation: hostile, severity: 'critical', category: 'C' }],
        }),
      ],
      { tenant: 't', where: [] },
    );
    const page = renderHtml(report, { chartJs: '/* chart */' });
    assert.doesNotMatch(page, /<script>alert/);
    assert.doesNotMatch(page.slice(page.indexOf('id="report-data"')), /<\/script>\|/);
    const md = renderMarkdown(report);
    assert.doesNotMatch(md, /<script>|\| \*\*x/);
  });
});

describe('batch import planning', () => {
  it('cuts a file into chunks of lines by byte range, a last line without a newline included', async () => {
    const { planEvalImport } = await import('../../domain/evaluation/batch');
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'plan-')), 'calls.jsonl');
    const lines = ['a', 'bb', 'ccc', 'dddd', 'é'];
    fs.writeFileSync(file, lines.join('\n'));
    const plan = await planEvalImport({}, { path: file, chunkLines: 2 });
    assert.equal(plan.lines, 5);
    assert.deepEqual(
      plan.chunks.map((c) => [c.firstLine, c.lines]),
      [
        [1, 2],
        [3, 2],
        [5, 1],
      ],
    );
    const text = fs.readFileSync(file);
    assert.deepEqual(
      plan.chunks.map((c) => text.subarray(c.start, c.end).toString('utf8')),
      ['a\nbb\n', 'ccc\ndddd\n', 'é'],
    );
  });
});
