/**
 * `npm run bench:summary [-- options]`: quality and latency of POST /v1/summary with the local
 * engine on DialogSum (scripts/stack/bench.ts starts the stack; this script starts a worker and the
 * API in-process, with no chat model configured).
 *
 * - Quality: each of the 500 test dialogues is sent to the API, one turn (`#Person1#: …`) per
 *   comment, format markdown; the summary is scored with ROUGE-1/2/L F1 (bench/lib/rouge.ts) against
 *   `summary1` (the repository's convention) and, for ROUGE-1, against the best of the three
 *   references and their mean. The dev split (one reference) is scored with the engine called
 *   directly: it is the split the engine was tuned on (--tune); test was never used for tuning.
 * - Baselines on the same data and scorer: LEAD-3 (the first three turns without their speaker
 *   tags: the floor of 21.1 ROUGE-1; and with them, since the references name the speakers) and
 *   the repository's BART-large output (its README: 45.95 ROUGE-1, scored with stemming).
 * - Latency: the test dialogues' requests are sent one at a time (after a warm-up); p50/p95 of the
 *   whole HTTP call, and the Server-Timing phases.
 *
 * Writes bench/results/summary.json (or --out). With --tune it grid-searches the local engine's
 * numbers on the dev split only, without the API, and writes bench/results/tune-summary.json.
 * docs/benchmarks.md describes the protocol and the numbers.
 */
import { Command } from 'commander';
import fs from 'node:fs';
import { summarizeLocal, SUMMARY_EXTRACT, type SummaryParams } from '../domain/summary/local-engine';
import { summaryPlaintext } from '../api/presenters/summary';
import { datasetFile, readJsonl } from './lib/datasets';
import { summarize as latencySummary, type Sample } from './lib/load';
import { progress } from './lib/progress';
import { meanScores, rougeScores, type RougeScores } from './lib/rouge';
import { DEFAULT_DATASETS, positiveInt, resolveDatasets, round, runInfo, writeResult } from './lib/run-info';
import { averageServerTiming } from './lib/server-timing';
import { freshTenant, startApp, tenantClient } from './lib/stack-app';

const FLOORS = { lead3_rouge1: 0.211, bart_large_readme_rouge1: 0.4595 };
const GOAL = { local_engine_rouge1_summary1_min: 0.28 };
const BART_README = { rouge1: 0.459458, rouge2: 0.213612, rougeL: 0.387189 };

interface Options {
  datasets: string;
  out: string;
  warmup: number;
  tune: boolean;
}

interface TestDialogue {
  fname: string;
  dialogue: string;
  summary1: string;
  summary2: string;
  summary3: string;
}

interface DevDialogue {
  fname: string;
  dialogue: string;
  summary: string;
}

const turns = (dialogue: string) => dialogue.split('\n').filter((t) => t.trim());

/** LEAD-3: the first three turns, without their `#PersonN#:` tags (or with them, as a second baseline). */
export const lead3 = (dialogue: string, tags = false) =>
  turns(dialogue)
    .slice(0, 3)
    .map((t) => (tags ? t : t.replace(/^\s*#[^#]+#\s*:\s*/, '')))
    .join('\n');

/** Markdown as text: escapes and bold markers removed (the ROUGE tokeniser drops them anyway). */
const markdownText = (md: string) => md.replace(/\*\*/g, '').replace(/\\(.)/g, '$1');

const pct = (x: number) => round(x * 100, 2);
const rounded = (s: RougeScores) => ({ rouge1: round(s.rouge1), rouge2: round(s.rouge2), rougeL: round(s.rougeL) });

/** Scores of candidates against summary1, and ROUGE-1 against the best and the mean of the three references. */
function testScores(rows: readonly TestDialogue[], candidates: readonly string[]) {
  const vs1 = rows.map((r, i) => rougeScores(candidates[i], r.summary1));
  const r1All = rows.map((r, i) =>
    [r.summary1, r.summary2, r.summary3].map((ref) => rougeScores(candidates[i], ref).rouge1),
  );
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return {
    ...rounded(meanScores(vs1)),
    rouge1_best_ref: round(mean(r1All.map((xs) => Math.max(...xs)))),
    rouge1_mean_refs: round(mean(r1All.map(mean))),
    mean_words: round(mean(candidates.map((c) => c.split(/\s+/).filter(Boolean).length)), 1),
  };
}

const localSummary = (dialogue: string, params?: SummaryParams) =>
  summaryPlaintext(summarizeLocal({ conversation: { comments: turns(dialogue) }, language: 'en', params }));

function devScores(rows: readonly DevDialogue[], params?: SummaryParams) {
  const outs = rows.map((r) => localSummary(r.dialogue, params));
  return {
    ...rounded(meanScores(rows.map((r, i) => rougeScores(outs[i], r.summary)))),
    mean_words: round(outs.reduce((a, o) => a + o.split(/\s+/).length, 0) / outs.length, 1),
  };
}

/** A grid over the local engine's numbers, scored on dev only. */
function tune(dev: readonly DevDialogue[]) {
  const grid = {
    maxWords: [30, 35, 40],
    maxSentences: [3, 4],
    positionWeight: [0, 1, 1.5, 2],
    minTokens: [2, 3],
    outcomeShare: [0, 0.35],
    outcomeLateness: [0, 3],
  };
  const rows: { params: Partial<SummaryParams>; dev: ReturnType<typeof devScores> }[] = [];
  const combos = Object.values(grid).reduce((a, v) => a * v.length, 1);
  const bar = progress('[tune] configurations', combos, { every: 25 });
  for (const maxWords of grid.maxWords)
    for (const maxSentences of grid.maxSentences)
      for (const positionWeight of grid.positionWeight)
        for (const minTokens of grid.minTokens)
          for (const outcomeShare of grid.outcomeShare)
            for (const outcomeLateness of grid.outcomeLateness) {
              const params = { maxWords, maxSentences, positionWeight, minTokens, outcomeShare, outcomeLateness };
              rows.push({ params, dev: devScores(dev, { ...SUMMARY_EXTRACT, ...params }) });
              bar.tick();
            }
  bar.stop();
  return rows.sort((a, b) => b.dev.rouge1 - a.dev.rouge1);
}

async function main(): Promise<void> {
  const o = new Command('bench:summary')
    .description('ROUGE and latency of POST /v1/summary (local engine) on DialogSum.')
    .option('--datasets <dir>', 'folder holding dialogsum/ (relative to the repository root)', DEFAULT_DATASETS)
    .option('--warmup <n>', 'requests sent before the measured ones', positiveInt, 20)
    .option(
      '--tune',
      'grid-search the local engine on the dev split only; writes bench/results/tune-summary.json',
      false,
    )
    .option('--out <file>', 'result file (relative to the repository root)', 'bench/results/summary.json')
    .parse()
    .opts<Options>();

  const root = resolveDatasets(o.datasets);
  const test = readJsonl<TestDialogue>(datasetFile(root, 'dialogsum', 'dialogsum.test.jsonl'));
  const dev = readJsonl<DevDialogue>(datasetFile(root, 'dialogsum', 'dialogsum.dev.jsonl'));
  const bart = fs
    .readFileSync(datasetFile(root, 'dialogsum', 'baseline_bart_large_test_output.txt'), 'utf8')
    .split('\n')
    .slice(0, test.length);
  if (bart.length !== test.length)
    throw new Error(`the BART output has ${bart.length} lines for ${test.length} test dialogues`);
  const info = runInfo();

  if (o.tune) {
    const configurations = tune(dev);
    console.log(
      '[tune] best on dev:',
      configurations
        .slice(0, 5)
        .map((c) => `${JSON.stringify(c.params)} R1 ${pct(c.dev.rouge1)}`)
        .join('\n  '),
    );
    writeResult('bench/results/tune-summary.json', {
      ...info,
      dataset: 'dialogsum dev (500 dialogues, 1 reference)',
      current: SUMMARY_EXTRACT,
      configurations,
    });
    return;
  }

  const started = Date.now();
  const devResult = devScores(dev);
  console.log(`[dev] local engine R1 ${pct(devResult.rouge1)} R2 ${pct(devResult.rouge2)} RL ${pct(devResult.rougeL)}`);
  const lead = testScores(
    test,
    test.map((r) => lead3(r.dialogue)),
  );
  // The references name the speakers (#Person1#): their tags alone lift LEAD-3 by several points.
  const leadTags = testScores(
    test,
    test.map((r) => lead3(r.dialogue, true)),
  );
  const bartScores = testScores(test, bart);
  console.log(
    `[test] LEAD-3 R1 ${pct(lead.rouge1)} (floor ${pct(FLOORS.lead3_rouge1)}); BART-large output R1 ${pct(bartScores.rouge1)} R2 ${pct(bartScores.rouge2)} RL ${pct(bartScores.rougeL)}`,
  );

  const app = await startApp();
  try {
    const client = await tenantClient(app, freshTenant('bench-summary'), ['summary']);
    const body = (r: { dialogue: string }) => ({
      comments: turns(r.dialogue).map((comment) => ({ comment })),
      format: 'markdown',
    });
    for (let i = 0; i < o.warmup; i++) await client.request('POST', '/v1/summary', body(dev[i % dev.length]));
    const samples: Sample[] = [];
    const timings: (string | null)[] = [];
    const summaries: string[] = [];
    const bar = progress('[test] summaries', test.length, { every: 100 });
    for (const r of test) {
      const t0 = performance.now();
      const res = await client.raw('POST', '/v1/summary', body(r));
      samples.push({ ms: performance.now() - t0, status: res.status });
      if (res.status !== 200)
        throw new Error(`${r.fname}: the API answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
      timings.push(res.headers.get('server-timing'));
      summaries.push(markdownText(res.body.summary));
      bar.tick();
    }
    bar.stop();
    const local = testScores(test, summaries);
    // The API must serve what the engine computes: any difference would make the dev numbers meaningless.
    const differing = test.filter((r, i) => summaries[i] !== localSummary(r.dialogue)).length;
    const latency = latencySummary(samples);
    console.log(
      `[test] local engine via the API: R1 ${pct(local.rouge1)} (best of 3 refs ${pct(local.rouge1_best_ref)}), R2 ${pct(local.rouge2)}, RL ${pct(local.rougeL)}; p50 ${latency.p50_ms} ms, p95 ${latency.p95_ms} ms`,
    );
    writeResult(o.out, {
      ...info,
      scorer:
        'js-rouge with rouge-score tokenisation (lower-case alphanumeric runs, no stemming); ROUGE-L over the whole text; F1 averaged over dialogues',
      engine: { name: 'local', params: SUMMARY_EXTRACT },
      dialogsum_test: { dialogues: test.length, ...local, api_vs_direct_differences: differing },
      dialogsum_dev: { dialogues: dev.length, ...devResult, note: 'tuning split; engine called directly' },
      baselines_test: {
        lead3_without_tags: lead,
        lead3_with_tags: leadTags,
        bart_large_repository_output: { ...bartScores, readme_stemmed: BART_README },
      },
      floors: FLOORS,
      goal: { ...GOAL, met: local.rouge1 >= GOAL.local_engine_rouge1_summary1_min },
      latency: { concurrency: 1, warmup_requests: o.warmup, ...latency, server_timing: averageServerTiming(timings) },
      total_seconds: round((Date.now() - started) / 1000, 1),
    });
  } finally {
    await app.close();
  }
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(`[bench:summary] ${err.stack ?? err}`);
      process.exit(1);
    },
  );
}
