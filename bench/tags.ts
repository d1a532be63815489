/**
 * `npm run bench:tags [-- options]`: tags learned from a tenant's own cases, on BANKING77, through
 * the API against the real stack (scripts/stack/bench.ts starts it; this script starts a worker
 * and the API in-process).
 *
 * For each setting, a fresh tenant:
 * - full: the 10,003 training questions uploaded as cases (`subject` = the question, `tags` = its
 *   intent) through POST /v1/cases;
 * - 10-shot: the first 10 training questions of each intent (770 cases), in file order.
 * The tenant's tag model is trained by its trainer workflow (requested as `npm run tags -- train`
 * does, right after the upload), then each of the 3,080 test questions is tagged through
 * POST /v1/tag, one request at a time: accuracy of the top tag, top-5 accuracy, how well the
 * scores are calibrated (accuracy per score band; coverage and precision of ask's intentTag
 * threshold), and the endpoint's latency (full setting).
 * The model's settings were chosen on splits of the training set (bench/tune-tags.ts);
 * the test set is only reported.
 *
 * Writes bench/results/tags.json. docs/benchmarks.md describes the protocol and the numbers.
 */
import os from 'node:os';
import { Command } from 'commander';
import { INTENT_MIN_SCORE } from '../domain/tags/tag';
import { requestTagTraining, waitForTagTraining } from '../scripts/tag-trainer';
import { chunks, mapPool, type ApiClient } from './lib/api-client';
import { loadBanking77, type Banking77Row } from './lib/datasets';
import { summarize, type Sample } from './lib/load';
import { progress } from './lib/progress';
import { DEFAULT_DATASETS, positiveInt, resolveDatasets, round, runInfo, writeResult } from './lib/run-info';
import { parseServerTiming } from './lib/server-timing';
import { freshTenant, startApp, tenantClient, type InProcessApp } from './lib/stack-app';

interface Options {
  datasets: string;
  shots: number;
  limit?: number;
  out: string;
}

const UPLOAD_BATCH = 500;
const BANDS = [0, 0.2, 0.4, 0.6, 0.8, 0.9, 1.0001];

async function uploadCases(client: ApiClient, rows: readonly Banking77Row[], label: string): Promise<number> {
  const started = Date.now();
  const bar = progress(`[tags] ${label}: upload`, rows.length);
  await mapPool(
    chunks(
      rows.map((r, i) => ({ id: `b77-${i}`, subject: r.text, tags: [r.category] })),
      UPLOAD_BATCH,
    ),
    2,
    async (data) => {
      const body = await client.upload('/v1/cases', { data });
      if (body.result !== 'success') throw new Error(`upload not fully stored: ${JSON.stringify(body).slice(0, 300)}`);
      bar.tick(data.length);
    },
  );
  bar.stop();
  return (Date.now() - started) / 1000;
}

async function train(app: InProcessApp, tenant: string) {
  const { requestedAt } = await requestTagTraining({ client: app.temporal, taskQueue: app.taskQueue, tenant });
  const last = await waitForTagTraining({ client: app.temporal, tenant, since: requestedAt, timeoutMs: 30 * 60_000 });
  if (last.error || !last.run) throw new Error(`training failed: ${last.error}`);
  return last.run;
}

async function tagAll(client: ApiClient, test: readonly Banking77Row[], label: string) {
  const bar = progress(`[tags] ${label}: tag the test questions`, test.length);
  const samples: Sample[] = [];
  const embedMs: number[] = [];
  const results: { correct: boolean; top5: boolean; score: number }[] = [];
  for (const row of test) {
    const t0 = performance.now();
    const res = await client.raw('POST', '/v1/tag', { message: row.text });
    samples.push({ ms: performance.now() - t0, status: res.status });
    if (res.status !== 200)
      throw new Error(`POST /v1/tag answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
    const embed = parseServerTiming(res.headers.get('server-timing')).find((e) => e.name === 'embed')?.dur;
    if (embed !== undefined) embedMs.push(embed);
    const tags = res.body.tags as { name: string; score: number; source: string }[];
    if (tags.some((t) => t.source !== 'trained')) throw new Error(`expected trained tags, got ${JSON.stringify(tags)}`);
    results.push({
      correct: tags[0]?.name === row.category,
      top5: tags.some((t) => t.name === row.category),
      score: tags[0]?.score ?? 0,
    });
    bar.tick();
  }
  bar.stop();
  const n = results.length;
  const confident = results.filter((r) => r.score >= INTENT_MIN_SCORE);
  return {
    quality: {
      questions: n,
      accuracy: round(results.filter((r) => r.correct).length / n),
      top5_accuracy: round(results.filter((r) => r.top5).length / n),
      calibration: BANDS.slice(0, -1).map((low, b) => {
        const inBand = results.filter((r) => r.score >= low && r.score < BANDS[b + 1]);
        return {
          score_from: low,
          score_to: Math.min(1, BANDS[b + 1]),
          questions: inBand.length,
          mean_score: inBand.length ? round(inBand.reduce((s, r) => s + r.score, 0) / inBand.length) : null,
          accuracy: inBand.length ? round(inBand.filter((r) => r.correct).length / inBand.length) : null,
        };
      }),
      intent_threshold: {
        min_score: INTENT_MIN_SCORE,
        coverage: round(confident.length / n),
        precision: confident.length ? round(confident.filter((r) => r.correct).length / confident.length) : null,
      },
    },
    samples,
    embedMs,
  };
}

async function setting(
  app: InProcessApp,
  label: string,
  train_: readonly Banking77Row[],
  test: readonly Banking77Row[],
  withLatency: boolean,
) {
  const tenant = freshTenant(`bench-tags-${label}`);
  const client = await tenantClient(app, tenant, ['cases:write', 'tag'], 4);
  const uploadSeconds = await uploadCases(client, train_, label);
  const run = await train(app, tenant);
  console.log(
    `[tags] ${label}: trained on ${run.cases} cases, ${run.tags} tags in ${(run.durationMs / 1000).toFixed(1)} s (held-out accuracy ${run.holdoutAccuracy})`,
  );
  for (const row of test.slice(0, 10)) await client.raw('POST', '/v1/tag', { message: row.text }); // warm-up
  const loadAtStart = os.loadavg()[0];
  const { quality, samples, embedMs } = await tagAll(client, test, label);
  const summary = summarize(samples);
  return {
    cases: train_.length,
    upload_seconds: round(uploadSeconds, 1),
    training: {
      ...run,
      durationMs: undefined,
      seconds: round(run.durationMs / 1000, 1),
      holdoutAccuracy: run.holdoutAccuracy === null ? null : round(run.holdoutAccuracy),
    },
    ...quality,
    latency: withLatency
      ? {
          requests: summary.requests,
          concurrency: 1,
          loadAverage1mAtStart: round(loadAtStart, 2),
          p50_ms: summary.p50_ms,
          p95_ms: summary.p95_ms,
          max_ms: summary.max_ms,
          embed_mean_ms: embedMs.length ? round(embedMs.reduce((a, b) => a + b, 0) / embedMs.length, 1) : null,
        }
      : undefined,
  };
}

/** The first `shots` questions of each intent, in file order. */
function fewShot(rows: readonly Banking77Row[], shots: number): Banking77Row[] {
  const seen = new Map<string, number>();
  return rows.filter((r) => {
    const n = seen.get(r.category) ?? 0;
    seen.set(r.category, n + 1);
    return n < shots;
  });
}

async function main(): Promise<void> {
  const o = new Command('bench:tags')
    .description(
      'Tag benchmark: BANKING77 intents learned from uploaded cases (full and few-shot), tagged through POST /v1/tag.',
    )
    .option('--datasets <dir>', 'folder holding banking77/ (relative to the repository root)', DEFAULT_DATASETS)
    .option('--shots <n>', 'training cases per intent in the few-shot setting', positiveInt, 10)
    .option('--limit <n>', 'tag only the first n test questions (a quick check; the result file says so)', positiveInt)
    .option('--out <file>', 'result file (relative to the repository root)', 'bench/results/tags.json')
    .parse()
    .opts<Options>();
  const info = runInfo();
  const root = resolveDatasets(o.datasets);
  const trainRows = loadBanking77(root, 'train');
  const test = loadBanking77(root, 'test').slice(0, o.limit);
  const app = await startApp();
  try {
    const full = await setting(app, 'full', trainRows, test, true);
    const few = await setting(app, `${o.shots}shot`, fewShot(trainRows, o.shots), test, false);
    writeResult(o.out, {
      ...info,
      engine: 'trained',
      test_questions: test.length,
      banking77: { full_accuracy: full.accuracy, tenshot_accuracy: few.accuracy, shots: o.shots },
      full,
      few_shot: few,
      latency: full.latency && { p50_ms: full.latency.p50_ms, p95_ms: full.latency.p95_ms },
    });
    console.log(
      `[tags] BANKING77 accuracy: full ${full.accuracy}, ${o.shots}-shot ${few.accuracy}; latency p50 ${full.latency?.p50_ms} ms, p95 ${full.latency?.p95_ms} ms`,
    );
  } finally {
    await app.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`[tags] ${err.stack ?? err}`);
    process.exit(1);
  },
);
