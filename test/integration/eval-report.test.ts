import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'mocha';
import { PNG } from 'pngjs';
import { evalBatchProgress, startEvalBatch } from '../../scripts/eval-batches';
import { freshTenant, getHarness } from '../helpers/harness';
import { runCommand, runScriptAsync } from '../helpers/run-script';

const dir = fs.mkdtempSync(path.join(process.env.SUPPORT_AI_TEST_DATA ?? os.tmpdir(), 'eval-report-'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Headless Chromium on a local file: its DOM after the scripts ran, a screenshot, and its log. */
const chromium = (args: string[]) =>
  runCommand(process.env.CHROMIUM_BIN || 'chromium', [
    '--headless=new',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-dev-shm-usage',
    '--hide-scrollbars',
    '--enable-logging=stderr',
    '--v=0',
    ...args,
  ]);

/** Pixels of a colour (within a small tolerance) in a PNG. */
function countColour(png: PNG, [r, g, b]: [number, number, number]): number {
  let n = 0;
  for (let i = 0; i < png.data.length; i += 4)
    if (Math.abs(png.data[i] - r) < 8 && Math.abs(png.data[i + 1] - g) < 8 && Math.abs(png.data[i + 2] - b) < 8) n += 1;
  return n;
}

describe('batch evaluation: npm run eval:report', () => {
  const tenant = freshTenant('report');
  const htmlFile = path.join(dir, 'report.html');
  let markdown: string;

  before(async function () {
    this.timeout(120_000);
    const h = await getHarness();
    const lines = Array.from({ length: 20 }, (_, i) =>
      JSON.stringify({
        id: `r-${i}`,
        messages: [{ role: 'user', content: 'How do I change my address?' }],
        // model-b leaks an email address in half of its answers: a critical failure.
        output:
          i % 2 === 1 && i % 4 === 1
            ? 'Write to help@example.com to change it.'
            : 'Open Settings > Profile and edit the address.',
        model: i % 2 ? 'model-b' : 'model-a',
        timestamp: new Date(Date.now() - i * 3_600_000).toISOString(),
        latency_ms: i % 2 ? 1000 + i : 100 + i,
        metadata: { product: i < 10 ? 'web' : 'app' },
      }),
    );
    fs.writeFileSync(path.join(dir, 'calls.jsonl'), `${lines.join('\n')}\n`);
    const { workflowId } = await startEvalBatch({
      client: h.temporal,
      taskQueue: h.taskQueue,
      tenant,
      path: path.join(dir, 'calls.jsonl'),
    });
    while (!(await evalBatchProgress({ client: h.temporal, workflowId })).done) await sleep(200);
    const out = await runScriptAsync({}, 'scripts/eval-report.ts', '--tenant', tenant, '--html', htmlFile);
    assert.equal(out.code, 0, out.stderr);
    markdown = out.stdout;
  });

  it('compares the models side by side, critical failures first', () => {
    assert.match(markdown, /20 graded calls/);
    assert.ok(markdown.indexOf('## Critical failures') < markdown.indexOf('## Models'));
    assert.match(markdown, /- \*\*model-a\*\*: 0 critical failures/);
    assert.match(markdown, /- \*\*model-b\*\*: 5 critical failures\n {2}- r-\d+, no-email-addresses: /);
    assert.match(markdown, /\| \| model-a \| model-b \|/);
    assert.match(markdown, /\| calls graded \| 10 \| 10 \|/);
    assert.match(markdown, /\| defect rate \| 0\.0 % \| 50\.0 % \|/);
  });

  it('gives latency p50/p95 and calls per day, and says whether a difference between models is more than chance', () => {
    // model-a's latencies are 100..118 (even), model-b's 1001..1019 (odd): the sketch is within 1 %.
    const [, a50, b50] = markdown.match(/\| latency p50 \| (\d+) ms \| (\d+) ms \|/)!.map(Number);
    assert.ok(a50 >= 107 && a50 <= 111 && b50 >= 1000 && b50 <= 1022, `${a50} ${b50}`);
    assert.match(markdown, /\| latency p95 \| \d+ ms \| \d+ ms \|/);
    assert.match(markdown, /\| calls per day \| \d+\.\d \| \d+\.\d \|/);
    // 10 of 10 against 5 of 10: too few fails expected for the z-test, so no verdict.
    assert.match(
      markdown,
      /\| no-email-addresses \| model-a vs model-b \| 100\.0 % \(n=10\) vs 50\.0 % \(n=10\) \| too few calls \| too few calls to tell \|/,
    );
    assert.match(markdown, /## Pass rate by day[\s\S]*### no-email-addresses\n\n\| day \| model-a \| model-b \|/);
  });

  it('gives per-rule pass rates with intervals, over the calls each rule applied to, and counts what was not gradable', () => {
    assert.match(
      markdown,
      /\| no-email-addresses \| critical \| 100\.0 % \(72\.2–100\.0 %\), n=10 \| 50\.0 % \(23\.7–76\.3 %\), n=10 \|/,
    );
    // Rules the built-in judge cannot read: not gradable, never counted as passed.
    assert.match(markdown, /\| polite \| warning \| not gradable \(10\) \| not gradable \(10\) \|/);
    assert.ok(markdown.indexOf('| no-email-addresses') < markdown.indexOf('| polite'), 'critical rules first');
  });

  it('filters by metadata and time, and shows another tenant nothing', async function () {
    this.timeout(60_000);
    const web = await runScriptAsync(
      {},
      'scripts/eval-report.ts',
      '--tenant',
      tenant,
      '--where',
      'product=web',
      '--html',
      path.join(dir, 'web.html'),
    );
    assert.match(web.stdout, /product=web; 10 graded calls/);
    const recent = await runScriptAsync(
      {},
      'scripts/eval-report.ts',
      '--tenant',
      tenant,
      '--from',
      new Date(Date.now() - 4.5 * 3_600_000).toISOString(),
      '--html',
      path.join(dir, 'recent.html'),
    );
    assert.match(recent.stdout, /; 5 graded calls/);
    const other = await runScriptAsync(
      {},
      'scripts/eval-report.ts',
      '--tenant',
      freshTenant('other'),
      '--html',
      path.join(dir, 'other.html'),
    );
    assert.match(other.stdout, /0 graded calls[\s\S]*No graded calls match\./);
    const bad = await runScriptAsync({}, 'scripts/eval-report.ts', '--tenant', tenant, '--where', 'nokey');
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /expected key=value/);
  });

  it('writes a standalone page that draws its charts in headless Chromium, with no console errors', async function () {
    this.timeout(120_000);
    const page = fs.readFileSync(htmlFile, 'utf8');
    assert.doesNotMatch(page, /<script[^>]+src=|<link[^>]+href=|https?:\/\/cdn/i, 'everything inlined');
    const url = `file://${htmlFile}`;
    const dom = await chromium(['--virtual-time-budget=5000', '--dump-dom', url]);
    assert.equal(dom.code, 0, dom.stderr.slice(-2000));
    // Every chart: defects, correctness, latency, volume, rules, and one per gradable rule over time.
    const canvases = page.match(/<canvas /g)!.length;
    assert.ok(canvases > 5);
    assert.match(dom.stdout, new RegExp(`data-charts-rendered="${canvases}"`));
    assert.doesNotMatch(dom.stdout, /data-errors=/);
    assert.doesNotMatch(dom.stderr, /Uncaught|Refused to|CONSOLE\(\d+\)\] "(?:Error|TypeError)/);
    const shot = path.join(dir, 'report.png');
    const screenshot = await chromium([
      '--virtual-time-budget=5000',
      '--window-size=1000,2200',
      `--screenshot=${shot}`,
      url,
    ]);
    assert.equal(screenshot.code, 0, screenshot.stderr.slice(-2000));
    const png = PNG.sync.read(fs.readFileSync(shot));
    assert.equal(png.width, 1000);
    // The bars: the first model's colour and the second's, in quantity.
    assert.ok(countColour(png, [0x4e, 0x79, 0xa7]) > 2000, 'bars of model-a drawn');
    assert.ok(countColour(png, [0xf2, 0x8e, 0x2b]) > 2000, 'bars of model-b drawn');
  });
});
