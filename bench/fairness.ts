/**
 * `npm run bench:fairness [-- options]`: how much one tenant's load slows another tenant's searches,
 * against the real stack (scripts/stack/bench.ts starts it; this script starts a worker and the API
 * in-process).
 *
 * A measured tenant holds the StackFAQ threads as cases and searches them with StackFAQ queries,
 * one request at a time every 500 ms. Its search latency (p50/p95) is recorded in phases:
 *
 * 1. idle: nothing else runs;
 * 2. search neighbour: another tenant, with one key, searches its own copy of the cases at its
 *    rate limit (600 a minute, evenly spaced);
 * 3. upload neighbour: another tenant keeps uploading StackFAQ threads as cases (2 uploads of 25 in
 *    flight), so the embedding server always has passages to embed;
 * 4. long-query neighbour: another tenant sends a 10,000-emoji query every second;
 * 5. idle again, to show how much the machine itself drifted during the run.
 *
 * Writes bench/results/fairness.json: each phase's latencies, its ratios to the idle phase (the
 * goal is a p95 within 2x of idle) and what the neighbour got. docs/benchmarks.md shows them.
 */
import { Command } from 'commander';
import os from 'node:os';
import { ApiClient, chunks } from './lib/api-client';
import { loadStackFaq, stackFaqCase, StackFaqThread } from './lib/datasets';
import { closedLoop, lanes, openLoop, Sample, summarize } from './lib/load';
import { DEFAULT_DATASETS, positiveInt, resolveDatasets, round, runInfo, writeResult } from './lib/run-info';
import { freshTenant, InProcessApp, startApp, tenantClient } from './lib/stack-app';

const SCOPES = ['cases:write', 'search'];
const UPLOAD_CHUNK = 25;
const UPLOAD_LANES = 2;
const LONG_QUERY = '😀'.repeat(10_000);
const GOAL_P95_RATIO = 2;

interface Options {
  datasets: string;
  searches: number;
  intervalMs: number;
  neighbourPerMinute: number;
  phaseMaxSeconds: number;
  out: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The setup uploads; on a busy machine an attempt may time out (504), and uploads are idempotent. */
async function uploadAll(client: ApiClient, threads: StackFaqThread[]): Promise<void> {
  for (const chunk of chunks(threads.map(stackFaqCase), 50)) {
    for (let attempt = 1; ; attempt++) {
      const res = await client.request('POST', '/v1/cases', { data: chunk }, { retry408: true });
      if (res.status === 200 && res.body.result === 'success') break;
      if (res.status !== 504 || attempt === 3)
        throw new Error(`case upload answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
    }
  }
}

/**
 * The measured tenant's searches: `searches` StackFAQ queries, one at a time every `intervalMs`,
 * or fewer if the phase reaches `phaseMaxSeconds` (when each search takes seconds).
 */
function victimRun(client: ApiClient, queries: string[], o: Options, offset: number): Promise<Sample[]> {
  const send = (i: number) =>
    client.raw('POST', '/v1/search/cases', { query: queries[(offset + i) % queries.length], offset: 0, limit: 10 });
  return closedLoop(o.searches, o.intervalMs, send, o.phaseMaxSeconds * 1000);
}

async function phase<T>(
  label: string,
  start: () => T,
  stop: (load: T) => Promise<unknown>,
  victim: () => Promise<Sample[]>,
  rampMs: number,
) {
  console.log(`[fairness] ${label}: starting`);
  // The machine's 1-minute load average when the phase starts: other work on the machine shows here.
  const machineLoad = Math.round(os.loadavg()[0] * 100) / 100;
  const load = start();
  await sleep(rampMs);
  const samples = await victim();
  const neighbour = await stop(load);
  const measured = { ...summarize(samples), load_average_1m_at_start: machineLoad };
  console.log(
    `[fairness] ${label}: p50 ${measured.p50_ms} ms, p95 ${measured.p95_ms} ms, ${measured.ok}/${measured.requests} answered 200`,
  );
  return { measured, neighbour };
}

async function run(app: InProcessApp, o: Options) {
  const { threads, queries } = loadStackFaq(resolveDatasets(o.datasets));
  const texts = queries.filter((q) => q.group === 'B' && q.text.trim()).map((q) => q.text);

  const victim = await tenantClient(app, freshTenant('bench-fair-measured'), SCOPES);
  const searcher = await tenantClient(app, freshTenant('bench-fair-searcher'), SCOPES);
  const uploader = await tenantClient(app, freshTenant('bench-fair-uploader'), SCOPES);
  const attacker = await tenantClient(app, freshTenant('bench-fair-longquery'), SCOPES);
  const setupStarted = Date.now();
  await uploadAll(victim, threads);
  await uploadAll(searcher, threads);
  // A tenant without cases answers a search before embedding it: the long-query tenant needs some.
  await uploadAll(attacker, threads.slice(0, 10));
  console.log(
    `[fairness] ${threads.length} threads uploaded to two tenants (10 to a third) in ${((Date.now() - setupStarted) / 1000).toFixed(1)} s`,
  );
  await closedLoop(10, 0, (i) => victim.raw('POST', '/v1/search/cases', { query: texts[i], limit: 10 })); // warm-up

  const idle = await phase(
    'idle',
    () => undefined,
    async () => undefined,
    () => victimRun(victim, texts, o, 0),
    0,
  );

  const searchNeighbour = await phase(
    'search neighbour at its rate limit',
    () =>
      openLoop(60_000 / o.neighbourPerMinute, 64, (i) =>
        searcher.raw('POST', '/v1/search/cases', { query: texts[(i * 7) % texts.length], offset: 0, limit: 10 }),
      ),
    async (loop) => ({
      ...summarize(await loop.stop()),
      skipped_at_64_in_flight: loop.skipped,
      offered_per_minute: o.neighbourPerMinute,
    }),
    () => victimRun(victim, texts, o, 100),
    3000,
  );

  let stored = 0;
  const uploadStatuses: Sample[] = [];
  const uploadStarted = Date.now();
  const uploadNeighbour = await phase(
    'upload neighbour',
    () =>
      lanes(UPLOAD_LANES, async (lane, r) => {
        const start = ((lane + r * UPLOAD_LANES) * UPLOAD_CHUNK) % threads.length;
        const batch = [...threads, ...threads]
          .slice(start, start + UPLOAD_CHUNK)
          .map((t) => ({ ...stackFaqCase(t), id: `${t.thread_id}-l${lane}-r${r}` }));
        const began = performance.now();
        const res = await uploader.request(
          'POST',
          '/v1/cases',
          { data: batch },
          { retry408: true, maxWaitMs: 5 * 60_000 },
        );
        uploadStatuses.push({ ms: performance.now() - began, status: res.status });
        if (res.status === 200) stored += batch.length - (res.body.failed?.length ?? 0);
      }),
    async (l) => {
      await l.stop();
      const seconds = (Date.now() - uploadStarted) / 1000;
      return {
        uploads: summarize(uploadStatuses),
        cases_stored: stored,
        cases_per_s: round(stored / seconds, 3),
        chunk: UPLOAD_CHUNK,
        in_flight: UPLOAD_LANES,
      };
    },
    () => victimRun(victim, texts, o, 200),
    5000,
  );

  const longQuery = await phase(
    'long-query neighbour',
    () => openLoop(1000, 4, () => attacker.raw('POST', '/v1/search/cases', { query: LONG_QUERY, limit: 1 })),
    async (loop) => ({
      ...summarize(await loop.stop()),
      skipped_at_4_in_flight: loop.skipped,
      query: '10,000 x U+1F600, every second',
    }),
    () => victimRun(victim, texts, o, 300),
    1000,
  );

  const idleAfter = await phase(
    'idle again',
    () => undefined,
    async () => undefined,
    () => victimRun(victim, texts, o, 400),
    0,
  );

  const ratio = (m: { p50_ms: number; p95_ms: number }) => ({
    p50: round(m.p50_ms / idle.measured.p50_ms, 2),
    p95: round(m.p95_ms / idle.measured.p95_ms, 2),
  });
  return {
    protocol: {
      measured_tenant: `one search at a time every ${o.intervalMs} ms, ${o.searches} per phase (fewer if a phase reaches ${o.phaseMaxSeconds} s), StackFAQ group B queries over the 125 threads as cases`,
      search_neighbour: `one key, ${o.neighbourPerMinute} searches a minute evenly spaced, its own copy of the cases`,
      upload_neighbour: `${UPLOAD_LANES} uploads of ${UPLOAD_CHUNK} StackFAQ threads as cases in flight, new ids every round`,
      long_query_neighbour: '{"query": 10,000 x U+1F600, "limit": 1} every second, at most 4 in flight',
    },
    goal_p95_ratio: GOAL_P95_RATIO,
    measured: {
      idle: idle.measured,
      search_neighbour: { ...searchNeighbour.measured, ratio_to_idle: ratio(searchNeighbour.measured) },
      upload_neighbour: { ...uploadNeighbour.measured, ratio_to_idle: ratio(uploadNeighbour.measured) },
      long_query_neighbour: { ...longQuery.measured, ratio_to_idle: ratio(longQuery.measured) },
      idle_again: { ...idleAfter.measured, ratio_to_idle: ratio(idleAfter.measured) },
    },
    neighbours: {
      search: searchNeighbour.neighbour,
      upload: uploadNeighbour.neighbour,
      long_query: longQuery.neighbour,
    },
  };
}

async function main(): Promise<void> {
  const o = new Command('bench:fairness')
    .description(
      "How much another tenant's searches, uploads or long queries slow a tenant's searches (p50/p95 against idle).",
    )
    .option('--datasets <dir>', 'folder holding stackfaq/ (relative to the repository root)', DEFAULT_DATASETS)
    .option('--searches <n>', 'searches of the measured tenant per phase', positiveInt, 120)
    .option('--interval-ms <n>', 'pace of the measured tenant: one search started every n ms', positiveInt, 500)
    .option(
      '--neighbour-per-minute <n>',
      "the search neighbour's rate (the API's default limit per key is 600)",
      positiveInt,
      600,
    )
    .option(
      '--phase-max-seconds <n>',
      "a phase ends after this long even if the measured tenant's searches are not all done",
      positiveInt,
      180,
    )
    .option('--out <file>', 'result file (relative to the repository root)', 'bench/results/fairness.json')
    .parse()
    .opts<Options>();

  const info = runInfo();
  const started = Date.now();
  const app = await startApp();
  try {
    const result = await run(app, o);
    writeResult(o.out, { ...info, ...result, total_seconds: round((Date.now() - started) / 1000, 1) });
  } finally {
    await app.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`[bench:fairness] ${err.stack ?? err}`);
    process.exit(1);
  },
);
