import { strict as assert } from 'node:assert';
import { describe, it } from 'mocha';
import { buildReport, renderHtml, renderMarkdown, wilson } from '../../domain/evaluation/report';
import type { EvalResult } from '../../domain/weaviate/eval-results';

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
