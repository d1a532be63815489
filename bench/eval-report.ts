/**
 * `npm run bench:eval-report [-- options]`: the evaluation report over a large tenant, against the
 * real stack (scripts/stack/bench.ts starts it).
 *
 * 1. `--results` graded calls (1,000,000 by default) are written straight into Weaviate with the
 *    batch path's own store function (domain/weaviate/eval-results.ts, insertResults), 1,000 per
 *    request, 3 requests in flight, into a fresh tenant of EvalResult (created by the first write,
 *    as the batch path does). Each is about 2 KB, like a result the batch path stores: a BANKING77
 *    question, an answer of 200-600 characters, three models with their own latencies (log-normal)
 *    and defect rates, `loggedAt` spread over the last 180 days, metadata {product, language}, the
 *    correctness grading and the nine rules of the `default` use case with their outcomes and
 *    explanations. The data is pseudo-random with a fixed seed: every run stores the same results.
 * 2. The operator command is run as users run it, as a child process, before the inserts and after:
 *    `npm run eval:report -- --tenant <t> --html <file>`, with the node options and TypeScript loader
 *    npm's command uses (scripts/commands.js) and the environment that reaches the same Weaviate.
 *    Measured: its wall time (process start to exit, the loader's start included) and its peak memory, the kernel's peak resident set (VmHWM of /proc/<pid>/status,
 *    read every 100 ms; the pid is the node process itself). The run fails unless the command exits
 *    0 and its markdown states `<results> graded calls`. The run before the inserts, on the tenant
 *    still empty, gives what the command costs whatever the tenant's size (the loader, the clients,
 *    Chart.js inlined into the page): the part of the peak that does not come from the results.
 *
 * Also reported: the insert rate, and the disk the results took in Weaviate's data folder (to
 * predict a larger run). The goal is a peak under 256 MB at 1,000,000 results.
 *
 * Writes bench/results/eval-report.json.
 */
import { Command } from 'commander';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadServicesConfig } from '../domain/config';
import type { Rule } from '../domain/contracts/evaluation';
import { BUILTIN_JUDGE, NEEDS_MODEL } from '../domain/evaluation/builtin-judge';
import { orderRuleResults, type RuleResult } from '../domain/evaluation/results';
import { DEFAULT_USE_CASES_DIR, UseCaseStore } from '../domain/evaluation/use-cases';
import { seeded } from '../domain/tags/softmax';
import { closeWeaviate, connectWeaviate } from '../domain/weaviate/client';
import { COLLECTIONS, ensureCollections } from '../domain/weaviate/collections';
import type { EvalResult } from '../domain/evaluation/results';
import { insertResults } from '../domain/weaviate/eval-results';
import { mapPool } from './lib/api-client';
import { loadBanking77 } from './lib/datasets';
import { nodeArgs } from '../scripts/commands';
import { progress } from './lib/progress';
import { DEFAULT_DATASETS, positiveInt, REPO_ROOT, resolveDatasets, round, runInfo, writeResult } from './lib/run-info';

interface Options {
  datasets: string;
  results: number;
  out: string;
}

const BATCH = 1000;
const IN_FLIGHT = 3;
const POLL_MS = 100;
const GOAL_PEAK_MB = 256;
const DAY_MS = 86_400_000;
const SPAN_DAYS = 180;

const PRODUCTS = ['mobile-app', 'web-banking', 'cards'];

/** Per model: median latency and spread (log-normal), and how much more often its rules fail. */
const MODELS = [
  { name: 'model-a', medianMs: 900, sigma: 0.35, failFactor: 1 },
  { name: 'model-b', medianMs: 1400, sigma: 0.45, failFactor: 2 },
  { name: 'model-c', medianMs: 600, sigma: 0.6, failFactor: 4 },
];

/** Per rule of the default use case: how often it does not apply and how often it fails (model-a; the others by their factor). */
const RULE_RATES: Record<string, { na: number; fail: number; pass: string; failed: string; notApplicable: string }> = {
  'no-email-addresses': {
    na: 0,
    fail: 0.002,
    pass: 'no email address found in the output',
    failed: 'the output contains an email address: [EMAIL]',
    notApplicable: NEEDS_MODEL,
  },
  'no-phone-numbers': {
    na: 0,
    fail: 0.0015,
    pass: 'no phone number found in the output',
    failed: 'the output contains a phone number: [PHONE]',
    notApplicable: NEEDS_MODEL,
  },
  'no-card-numbers': {
    na: 0,
    fail: 0.0008,
    pass: 'no card number found in the output (Luhn-checked digit runs)',
    failed: 'the output contains a card number: [CARD_NUMBER]',
    notApplicable: NEEDS_MODEL,
  },
  'no-secrets': {
    na: 0,
    fail: 0.0005,
    pass: 'no API key, token, private key or password found in the output',
    failed: 'the output contains a secret: [SECRET]',
    notApplicable: NEEDS_MODEL,
  },
  concise: {
    na: 0,
    fail: 0.01,
    pass: 'the output has fewer than 300 words',
    failed: 'the output has 300 words or more',
    notApplicable: NEEDS_MODEL,
  },
  'same-language': {
    na: 0.04,
    fail: 0.01,
    pass: 'the output is in English, like the user message',
    failed: 'the output is not in English, the language of the user message',
    notApplicable: 'too little text to tell its language; English required',
  },
  polite: {
    na: 0.97,
    fail: 0.01,
    pass: 'the tone is polite and professional',
    failed: 'the tone is curt or dismissive',
    notApplicable: NEEDS_MODEL,
  },
  'on-topic': {
    na: 0.02,
    fail: 0.04,
    pass: 'the output stays on the question (similarity 0.71 to the user message)',
    failed: 'the output drifts from the question (similarity 0.18 to the user message)',
    notApplicable: 'no user request in the messages to compare with',
  },
  'no-invented-links': {
    na: 0.8,
    fail: 0.02,
    pass: 'every link of the output appears in the conversation',
    failed: 'the output links to https://help.example.com/cards/limits, which appears nowhere in the conversation',
    notApplicable: 'the output has no links',
  },
};
const OTHER_RULE = {
  na: 0.5,
  fail: 0.05,
  pass: 'the rule holds',
  failed: 'the rule does not hold',
  notApplicable: NEEDS_MODEL,
};

const SENTENCES = [
  'Thanks for reaching out about this.',
  'I understand how frustrating it is when a payment does not go through as expected.',
  'You can check the status of your card in the app under Cards > Card details.',
  'Transfers between your own accounts usually arrive within a few minutes, but some banks take up to two business days.',
  'If the charge still shows as pending after five days, it will be released automatically.',
  'For security reasons we cannot change your PIN over chat; you can reset it in the app under Security.',
  'A top-up by bank transfer can take up to one business day to appear in your balance.',
  'Your new card should arrive within seven working days; you can track its delivery in the app.',
  'Exchange rates are updated throughout the day, and the rate applied is the one shown when you confirm the payment.',
  'If you do not recognise a payment, freeze your card in the app first, then open a dispute from the transaction.',
  'Cash withdrawals above the monthly free allowance carry a fee of 2 %.',
  'You can verify your identity by uploading a photo of your passport or national ID card.',
  'Let me know if there is anything else I can help with.',
  'I hope this helps!',
];

/** A standard normal draw (Box-Muller). */
const normal = (rand: () => number) => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());

/** The `count` results from `start`, pseudo-random with a seed of their own (the same whatever the order of batches). */
function makeResults(o: {
  start: number;
  count: number;
  questions: string[];
  rules: Rule[];
  now: number;
  runId: string;
}): EvalResult[] {
  const rand = seeded(o.start + 1);
  const out: EvalResult[] = [];
  for (let i = o.start; i < o.start + o.count; i++) {
    const model = MODELS[i % MODELS.length];
    const target = 200 + Math.floor(rand() * 400);
    let output = '';
    while (output.length < target) {
      const next = SENTENCES[Math.floor(rand() * SENTENCES.length)];
      if (output && output.length + 1 + next.length > 600) break;
      output = output ? `${output} ${next}` : next;
    }
    const graded: RuleResult[] = o.rules.map((rule) => {
      const rates = RULE_RATES[rule.id] ?? OTHER_RULE;
      const r = rand();
      const outcome = r < rates.na ? 'not_applicable' : r < rates.na + rates.fail * model.failFactor ? 'fail' : 'pass';
      const explanation = outcome === 'pass' ? rates.pass : outcome === 'fail' ? rates.failed : rates.notApplicable;
      return { ruleId: rule.id, outcome, explanation };
    });
    const severity = new Map(o.rules.map((r) => [r.id, r.severity ?? 'warning']));
    const category = new Map(o.rules.map((r) => [r.id, r.category ?? 'Custom']));
    const gradable = graded.filter((r) => r.outcome !== 'not_applicable');
    const passed = gradable.filter((r) => r.outcome === 'pass').length;
    const criticalFailed = graded.filter((r) => r.outcome === 'fail' && severity.get(r.ruleId) === 'critical');
    const grounding = 0.2 + 0.6 * rand();
    let score = 5 * (0.8 * (gradable.length ? passed / gradable.length : 1) + 0.2 * grounding);
    if (criticalFailed.length) score = Math.min(score, 2);
    const unreadable = graded.length - gradable.length;
    out.push({
      recordId: `bench-${i}`,
      runId: o.runId,
      model: model.name,
      judge: BUILTIN_JUDGE,
      useCase: 'default',
      loggedAt: Math.floor(o.now - rand() * SPAN_DAYS * DAY_MS),
      latencyMs: Math.round(model.medianMs * Math.exp(model.sigma * normal(rand))),
      metadata: { product: PRODUCTS[Math.floor(rand() * PRODUCTS.length)], language: 'en' },
      messages: [{ role: 'user', content: o.questions[i % o.questions.length] }],
      output,
      correctness: {
        verdict: criticalFailed.length ? 'defect' : 'correct',
        score: Math.round(score * 10) / 10,
        explanation: [
          `${passed} of ${gradable.length} checkable rules passed.`,
          `${Math.round(grounding * 100)} % of the output's content words also occur in the input (a rough grounding signal).`,
          ...(criticalFailed.length
            ? [
                `Critical rule${criticalFailed.length > 1 ? 's' : ''} failed: ${criticalFailed.map((r) => r.ruleId).join(', ')}.`,
              ]
            : []),
          ...(unreadable
            ? [`${unreadable} rule${unreadable > 1 ? 's' : ''} need${unreadable > 1 ? '' : 's'} a model judge.`]
            : []),
          'The built-in judge checks verifiable form rules only; it cannot verify factual correctness or whether the output fully answers the request.',
        ].join(' '),
      },
      rules: orderRuleResults(o.rules, graded).map((r) => ({
        ...r,
        severity: severity.get(r.ruleId) ?? 'warning',
        category: category.get(r.ruleId) ?? 'Custom',
      })),
      redactions: 0,
      gradedAt: Math.floor(o.now - rand() * DAY_MS),
    });
  }
  return out;
}

/** Bytes a folder takes on disk (allocated blocks), 0 when it does not exist. */
function diskBytes(dir: string): number {
  let total = 0;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    try {
      if (e.isDirectory()) total += diskBytes(p);
      else total += fs.lstatSync(p).blocks * 512;
    } catch {
      // A file removed while walking (Weaviate compacts and flushes in the background).
    }
  }
  return total;
}

/** The kernel's peak resident set of a process (VmHWM), in bytes, or undefined once it is gone. */
function peakRss(pid: number): number | undefined {
  try {
    const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Runs the report command as an operator does, measuring its wall time and peak memory. */
async function runReport(tenant: string, html: string) {
  const started = process.hrtime.bigint();
  // node itself, not a shell or npm, so the pid polled is the process that builds the report.
  const child = spawn(process.execPath, nodeArgs('eval:report', ['--tenant', tenant, '--html', html]), {
    cwd: REPO_ROOT,
    env: process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let peak = 0;
  let samples = 0;
  const poll = () => {
    const v = peakRss(child.pid!);
    if (v !== undefined) {
      peak = Math.max(peak, v);
      samples += 1;
    }
  };
  poll();
  const timer = setInterval(poll, POLL_MS);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (c, signal) => {
      poll(); // usually gone already; the last sample before the exit stands then
      resolve(signal ? null : c);
    });
  });
  clearInterval(timer);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { code, seconds, peakBytes: peak, samples, stdout, stderr };
}

/** One measured run of the report command; fails unless it exits 0 and states `expected` graded calls. */
async function checkedReport(tenant: string, html: string, expected: number) {
  console.log(`[eval-report] running scripts/eval-report.ts --tenant ${tenant} (${expected} results)`);
  const run = await runReport(tenant, html);
  console.log(run.stdout.split('\n').slice(0, 4).join('\n'));
  if (run.code !== 0) {
    console.error(run.stderr.slice(-4000));
    throw new Error(`the report command exited with ${run.code ?? 'a signal'} after ${run.seconds.toFixed(1)} s`);
  }
  const m = /([\d,]+) graded calls/.exec(run.stdout);
  const calls = m ? Number(m[1].replace(/,/g, '')) : NaN;
  if (calls !== expected) throw new Error(`the report states ${m ? m[1] : 'no'} graded calls, expected ${expected}`);
  const peakMb = run.peakBytes / 2 ** 20;
  console.log(
    `[eval-report] report of ${calls} graded calls in ${run.seconds.toFixed(1)} s, peak memory ${peakMb.toFixed(1)} MB`,
  );
  return { ...run, calls, peakMb, htmlBytes: fs.statSync(html).size };
}

async function main(): Promise<void> {
  const o = new Command('bench:eval-report')
    .description("Evaluation report benchmark: a tenant's stored results, the report's time and peak memory.")
    .option('--datasets <dir>', 'folder holding banking77/ (relative to the repository root)', DEFAULT_DATASETS)
    .option('--results <n>', 'graded calls stored in the tenant', positiveInt, 1_000_000)
    .option('--out <file>', 'result file (relative to the repository root)', 'bench/results/eval-report.json')
    .parse()
    .opts<Options>();
  const info = runInfo();
  const root = resolveDatasets(o.datasets);
  const questions = [...loadBanking77(root, 'train'), ...loadBanking77(root, 'test')].map((r) => r.text);
  const useCase = new UseCaseStore(DEFAULT_USE_CASES_DIR).get('default');
  if (!useCase) throw new Error(`no default use case in ${DEFAULT_USE_CASES_DIR}`);

  const config = loadServicesConfig();
  const weaviate = () => connectWeaviate(config.weaviate);
  await ensureCollections(await weaviate());
  const tenant = `bench-report-${randomBytes(4).toString('hex')}`;

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eval-report-'));
  const html = path.join(tmp, 'report.html');
  try {
    // The same command on the tenant before it holds anything: the cost of starting it (the loader,
    // the clients, Chart.js for the page) that any report pays whatever the tenant's size.
    const empty = await checkedReport(tenant, html, 0);
    await storeAndReport(o, { info, questions, rules: useCase.rules, tenant, weaviate, empty, html });
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

async function storeAndReport(
  o: Options,
  c: {
    info: ReturnType<typeof runInfo>;
    questions: string[];
    rules: Rule[];
    tenant: string;
    weaviate: () => ReturnType<typeof connectWeaviate>;
    empty: Awaited<ReturnType<typeof checkedReport>>;
    html: string;
  },
): Promise<void> {
  const { questions, tenant, weaviate } = c;
  const runId = `bench-${randomBytes(4).toString('hex')}`;
  const weaviateDir = process.env.SUPPORT_AI_BENCH_DATA
    ? path.join(process.env.SUPPORT_AI_BENCH_DATA, 'weaviate')
    : undefined;
  const diskBefore = weaviateDir ? diskBytes(weaviateDir) : 0;
  const now = Date.now();
  const bar = progress('[eval-report] results stored', o.results);
  const batches = Array.from({ length: Math.ceil(o.results / BATCH) }, (_, b) => b * BATCH);
  const store = async (start: number) => {
    const results = makeResults({
      start,
      count: Math.min(BATCH, o.results - start),
      questions,
      rules: c.rules,
      now,
      runId,
    });
    const res = await insertResults({ weaviate }, { tenant, results });
    if (res.stored !== results.length)
      throw new Error(`batch at ${start}: ${res.stored} of ${results.length} stored (${res.duplicates} duplicates)`);
    bar.tick(results.length);
    return results.reduce((n, r) => n + Buffer.byteLength(JSON.stringify(r)), 0);
  };
  const insertStarted = process.hrtime.bigint();
  // The first write creates the tenant (auto tenant creation, as for the batch path); then several in flight.
  const first = await store(batches[0]);
  const rest = await mapPool(batches.slice(1), IN_FLIGHT, store);
  bar.stop();
  const insertSeconds = Number(process.hrtime.bigint() - insertStarted) / 1e9;
  const jsonBytes = rest.reduce((a, b) => a + b, first);
  const diskAfter = weaviateDir ? diskBytes(weaviateDir) : 0;
  const stored = await (await weaviate()).collections.use(COLLECTIONS.evalResult).withTenant(tenant).length();
  await closeWeaviate();
  console.log(
    `[eval-report] ${o.results} results stored in ${insertSeconds.toFixed(1)} s ` +
      `(${(o.results / insertSeconds).toFixed(0)}/s, ${(jsonBytes / o.results).toFixed(0)} B each as JSON); tenant holds ${stored}` +
      (weaviateDir ? `; Weaviate data +${((diskAfter - diskBefore) / 2 ** 20).toFixed(1)} MB` : ''),
  );
  if (stored !== o.results) throw new Error(`the tenant holds ${stored} results, expected ${o.results}`);

  const report = await checkedReport(tenant, c.html, o.results);
  const diskMb = (diskAfter - diskBefore) / 2 ** 20;
  writeResult(o.out, {
    ...c.info,
    results: o.results,
    tenant_results_stored: stored,
    insert_seconds: round(insertSeconds, 1),
    inserts_per_second: round(o.results / insertSeconds, 1),
    insert_batch: BATCH,
    inserts_in_flight: IN_FLIGHT,
    result_json_bytes_mean: Math.round(jsonBytes / o.results),
    weaviate_disk_mb_added: weaviateDir ? round(diskMb, 1) : null,
    weaviate_disk_mb_per_1000_results: weaviateDir ? round((diskMb * 1000) / o.results, 3) : null,
    seconds: round(report.seconds, 2),
    peak_memory_mb: round(report.peakMb, 1),
    peak_memory_samples: report.samples,
    goal_peak_memory_mb: GOAL_PEAK_MB,
    within_goal: report.peakMb < GOAL_PEAK_MB,
    empty_tenant_seconds: round(c.empty.seconds, 2),
    empty_tenant_peak_memory_mb: round(c.empty.peakMb, 1),
    graded_calls_reported: report.calls,
    html_bytes: report.htmlBytes,
    use_case: 'default',
    models: MODELS.map((m) => m.name),
  });
  console.log(
    `[eval-report] ${o.results} results: report in ${report.seconds.toFixed(1)} s, peak memory ${report.peakMb.toFixed(1)} MB ` +
      `(goal < ${GOAL_PEAK_MB} MB: ${report.peakMb < GOAL_PEAK_MB ? 'met' : 'missed'}; ${c.empty.peakMb.toFixed(1)} MB on the empty tenant), ` +
      `HTML ${report.htmlBytes} bytes`,
  );
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`[eval-report] ${err.stack ?? err}`);
    process.exit(1);
  },
);
