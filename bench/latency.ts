/**
 * `npm run bench:latency [-- options]`: what the API's read path costs on top of the retrieval it
 * runs, against the real stack (scripts/stack/bench.ts starts it; this script starts a worker and
 * the API in-process).
 *
 * One tenant holds the 125 StackFAQ threads as cases and the same threads as 125 articles
 * (bench/lib/latency-corpus.ts). For case search and article search, with StackFAQ queries, it
 * measures side by side:
 *
 * - raw_embed: the query embedding alone, the embedding server called directly (one request per
 *   query, no scheduler: bench/lib/raw-embedder.ts);
 * - embed: the query embedding alone through the embedder the API uses (its scheduler included);
 * - raw: the raw services: that direct embedding call, then the same Weaviate hybrid query the
 *   API runs (domain/weaviate/retrieve.ts with the raw embedder);
 * - raw_batched: the same, with the queries waiting for the embedding server sent to it together
 *   as the API's embedder sends them (bench/lib/raw-embedder.ts): the services at their best, the
 *   baseline of the goals;
 * - direct: the same retrieval with the API's embedder, called in-process (no HTTP);
 * - api: the endpoint over HTTP on the loopback, spread over several keys of the tenant.
 *
 * at concurrency 1 and 16 (closed loops): p50, p95 and calls/s, then the ratios API/raw_batched,
 * API/raw and API/direct; `checks` judges the goals. The modes are interleaved in rounds, so a change of the machine's speed hits them
 * alike. Then a breakdown of the API path: the mean of each Server-Timing entry when the API sends
 * that header, and the steps read from the search workflows' histories when searches run as workflows.
 *
 * Writes bench/results/latency.json (or --out). docs/benchmarks.md shows the numbers.
 */
import { Command } from 'commander';
import os from 'node:os';
import { searchArticles, searchCases } from '../domain/weaviate/retrieve';
import { OPERATIONS } from '../workflows/constants';
import { loadWorkerConfig } from '../worker/config';
import { createActivityDeps } from '../worker/deps';
import { ApiClient, chunks } from './lib/api-client';
import { createBatchedRawEmbedder, createRawEmbedder } from './lib/raw-embedder';
import { loadStackFaq, stackFaqCase } from './lib/datasets';
import { shuffledQueries, stackFaqArticle } from './lib/latency-corpus';
import { Call, pooledStats, ratio, Round, runRound } from './lib/latency-run';
import { DEFAULT_DATASETS, positiveInt, resolveDatasets, round, runInfo, writeResult } from './lib/run-info';
import { averageServerTiming } from './lib/server-timing';
import { freshTenant, InProcessApp, startApp, tenantClient } from './lib/stack-app';
import { searchWorkflowBreakdown } from './lib/workflow-breakdown';

const SCOPES = ['cases:write', 'articles:write', 'search'];
const LIMIT = 10;
/**
 * Goals against the raw services batching as the API does (one tenant, an idle machine) and, as
 * before, against the direct call.
 */
const GOALS = {
  api_over_raw_batched_throughput_c16_min: 0.9,
  api_over_raw_batched_p50_c1_max: 1.25,
  api_over_direct_p50_c1_max: 1.25,
  api_over_direct_throughput_c16_min: 0.8,
};
/** Settings of the API and the worker that shape the read path; null means the default. */
const SETTINGS = [
  'SEARCH_MAX_IN_FLIGHT',
  'SEARCH_MAX_IN_FLIGHT_PER_TENANT',
  'SEARCH_MAX_IN_FLIGHT_SHARED',
  'SEARCH_MAX_QUEUED_PER_TENANT',
  'WORKER_MAX_ACTIVITIES',
  'EMBEDDINGS_MAX_IN_FLIGHT',
  'EMBEDDINGS_FAST_LANE_TOKENS',
  'RATE_LIMIT_PER_MINUTE',
];

interface Options {
  datasets: string;
  keys: number;
  concurrency: number;
  c1Requests: number;
  highRequests: number;
  rounds: number;
  warmup: number;
  maxRoundSeconds: number;
  workflowSample: number;
  out: string;
}

type Mode = 'raw_embed' | 'embed' | 'raw' | 'raw_batched' | 'direct' | 'api';
const MODES: Mode[] = ['raw_embed', 'embed', 'raw', 'raw_batched', 'direct', 'api'];

interface Kind {
  name: 'search_cases' | 'search_articles';
  tenant: string;
  operation: string;
  calls: Record<Mode, (query: string) => ReturnType<Call>>;
  /** Ids of the top results, by the raw services and through the API, for a sanity check. */
  topIds: { raw: (query: string) => Promise<string[]>; api: (query: string) => Promise<string[]> };
}

const load1m = () => round(os.loadavg()[0], 2);

/** The 1-minute load average every 5 s while `fn` runs: how busy the machine was, us included. */
async function withLoadSamples<T>(
  fn: () => Promise<T>,
): Promise<{ result: T; load: { min: number; mean: number; max: number; samples: number } }> {
  const samples = [load1m()];
  const timer = setInterval(() => samples.push(load1m()), 5000);
  try {
    const result = await fn();
    samples.push(load1m());
    return {
      result,
      load: {
        min: Math.min(...samples),
        mean: round(samples.reduce((a, b) => a + b, 0) / samples.length, 2),
        max: Math.max(...samples),
        samples: samples.length,
      },
    };
  } finally {
    clearInterval(timer);
  }
}

function kinds(app: InProcessApp, client: ApiClient, tenant: string): Kind[] {
  const workerConfig = loadWorkerConfig();
  const config = workerConfig.services;
  const deps = createActivityDeps(workerConfig);
  const rawDeps = { ...deps, embedder: createRawEmbedder(config.embeddings) };
  const batchedDeps = { ...deps, embedder: createBatchedRawEmbedder(config.embeddings) };
  const embedWith = (embedder: typeof deps.embedder) => async (query: string) => {
    await embedder.embed({ texts: [query], inputType: 'query', tenant });
    return { status: 200 };
  };
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await client.raw(method, path, body);
    return {
      status: res.status,
      body: res.body,
      requestId: res.headers.get('x-request-id') ?? undefined,
      serverTiming: res.headers.get('server-timing') ?? undefined,
    };
  };
  const caseInput = (query: string) => ({ tenant, query, productIds: [], filterUrls: [], offset: 0, limit: LIMIT });
  const articleInput = (text: string) => ({ tenant, text, offset: 0, limit: LIMIT });
  const articlePath = (query: string) =>
    `/v1/community/search/articles?${new URLSearchParams({ text: query, offset: '0', limit: String(LIMIT) })}`;
  const okIfList = (hits: unknown[]) => ({ status: hits.length > 0 ? 200 : 204 });
  return [
    {
      name: 'search_cases',
      tenant,
      operation: OPERATIONS.searchCases,
      calls: {
        raw_embed: embedWith(rawDeps.embedder),
        embed: embedWith(deps.embedder),
        raw: async (query) => okIfList(await searchCases(rawDeps, caseInput(query))),
        raw_batched: async (query) => okIfList(await searchCases(batchedDeps, caseInput(query))),
        direct: async (query) => okIfList(await searchCases(deps, caseInput(query))),
        api: (query) => api('POST', '/v1/search/cases', { query, offset: 0, limit: LIMIT }),
      },
      topIds: {
        raw: async (query) => (await searchCases(rawDeps, caseInput(query))).map((h) => h.id),
        api: async (query) =>
          ((await api('POST', '/v1/search/cases', { query, offset: 0, limit: LIMIT })).body.results ?? []).map(
            (h: any) => h.id,
          ),
      },
    },
    {
      name: 'search_articles',
      tenant,
      operation: OPERATIONS.searchArticles,
      calls: {
        raw_embed: embedWith(rawDeps.embedder),
        embed: embedWith(deps.embedder),
        raw: async (query) => okIfList(await searchArticles(rawDeps, articleInput(query))),
        raw_batched: async (query) => okIfList(await searchArticles(batchedDeps, articleInput(query))),
        direct: async (query) => okIfList(await searchArticles(deps, articleInput(query))),
        api: (query) => api('GET', articlePath(query)),
      },
      topIds: {
        raw: async (query) => (await searchArticles(rawDeps, articleInput(query))).map((h) => h.id),
        api: async (query) => ((await api('GET', articlePath(query))).body.articles ?? []).map((h: any) => h.id),
      },
    },
  ];
}

async function uploadCorpus(client: ApiClient, datasets: string) {
  const { threads, queries } = loadStackFaq(datasets);
  const started = Date.now();
  for (const chunk of chunks(threads.map(stackFaqCase), 125)) {
    const res = await client.upload('/v1/cases', { data: chunk });
    if (res.result !== 'success')
      throw new Error(`case upload was ${res.result}: ${JSON.stringify(res.failed).slice(0, 300)}`);
  }
  const casesSeconds = (Date.now() - started) / 1000;
  console.log(`[latency] ${threads.length} StackFAQ threads uploaded as cases in ${casesSeconds.toFixed(1)} s`);
  for (const chunk of chunks(threads.map(stackFaqArticle), 25)) {
    const res = await client.upload('/v1/articles', { articles: chunk });
    if (res.result !== 'success')
      throw new Error(`article upload was ${res.result}: ${JSON.stringify(res.failed).slice(0, 300)}`);
  }
  const articlesSeconds = (Date.now() - started) / 1000 - casesSeconds;
  console.log(`[latency] the same threads uploaded as ${threads.length} articles in ${articlesSeconds.toFixed(1)} s`);
  return {
    threads: threads.length,
    queries: shuffledQueries(queries),
    upload_seconds: { cases: round(casesSeconds, 1), articles: round(articlesSeconds, 1) },
  };
}

/** Measures one search: warm-up, then each concurrency in interleaved rounds of the modes. */
async function measureKind(app: InProcessApp, kind: Kind, queries: string[], firstQuery: number, o: Options) {
  let cursor = firstQuery;
  const nextQuery = () => queries[cursor++ % queries.length];
  const call =
    (mode: Mode): Call =>
    () =>
      kind.calls[mode](nextQuery());

  // The same retrieval both ways: the top ids of a few queries must agree.
  const checked = queries.slice(0, 5);
  let sameTop = 0;
  for (const q of checked) if ((await kind.topIds.raw(q)).join() === (await kind.topIds.api(q)).join()) sameTop += 1;

  for (const mode of MODES) {
    await runRound(o.warmup, 1, o.maxRoundSeconds * 1000, call(mode));
    await runRound(o.warmup * 2, o.concurrency, o.maxRoundSeconds * 1000, call(mode));
  }

  const levels = [
    { label: 'c1', concurrency: 1, perRound: Math.ceil(o.c1Requests / o.rounds) },
    { label: `c${o.concurrency}`, concurrency: o.concurrency, perRound: Math.ceil(o.highRequests / o.rounds) },
  ];
  const stats: Record<string, ReturnType<typeof pooledStats>> = {};
  const apiRounds: Record<string, Round[]> = {};
  for (const level of levels) {
    const rounds = Object.fromEntries(MODES.map((m) => [m, [] as Round[]])) as Record<Mode, Round[]>;
    for (let r = 0; r < o.rounds; r++) {
      // Each round starts with another mode, so none always runs first.
      const first = r % MODES.length;
      for (const mode of [...MODES.slice(first), ...MODES.slice(0, first)]) {
        rounds[mode].push(await runRound(level.perRound, level.concurrency, o.maxRoundSeconds * 1000, call(mode)));
      }
    }
    for (const mode of MODES) {
      stats[`${mode}_${level.label}`] = pooledStats(rounds[mode]);
      const s = stats[`${mode}_${level.label}`];
      console.log(
        `[latency] ${kind.name} ${mode} ${level.label}: p50 ${s.p50_ms} ms, p95 ${s.p95_ms} ms, ${s.per_s}/s (${s.ok}/${s.requests} ok)`,
      );
    }
    apiRounds[level.label] = rounds.api;
  }

  const high = `c${o.concurrency}`;
  const throughput = (a: Mode, b: Mode) => ratio(stats[`${a}_${high}`].per_s, stats[`${b}_${high}`].per_s);
  const result = {
    ...stats,
    api_over_raw_batched_p50_c1: ratio(stats.api_c1.p50_ms, stats.raw_batched_c1.p50_ms),
    [`api_over_raw_batched_throughput_${high}`]: throughput('api', 'raw_batched'),
    [`api_over_raw_batched_p50_${high}`]: ratio(stats[`api_${high}`].p50_ms, stats[`raw_batched_${high}`].p50_ms),
    [`raw_batched_over_raw_throughput_${high}`]: throughput('raw_batched', 'raw'),
    api_over_raw_p50_c1: ratio(stats.api_c1.p50_ms, stats.raw_c1.p50_ms),
    [`api_over_raw_throughput_${high}`]: throughput('api', 'raw'),
    [`api_over_raw_p50_${high}`]: ratio(stats[`api_${high}`].p50_ms, stats[`raw_${high}`].p50_ms),
    [`embed_over_raw_embed_throughput_${high}`]: throughput('embed', 'raw_embed'),
    api_over_direct_p50_c1: ratio(stats.api_c1.p50_ms, stats.direct_c1.p50_ms),
    [`api_over_direct_throughput_${high}`]: throughput('api', 'direct'),
    [`api_over_direct_p50_${high}`]: ratio(stats[`api_${high}`].p50_ms, stats[`direct_${high}`].p50_ms),
    same_top_ids_raw_and_api: `${sameTop}/${checked.length}`,
  };

  // Where the API path's time goes, per concurrency.
  const breakdown: Record<string, unknown> = {};
  for (const [label, rounds] of Object.entries(apiRounds)) {
    const ok = rounds.flatMap((r) => r.samples).filter((s) => s.status === 200);
    const entry: Record<string, unknown> = {};
    if (ok.some((s) => s.serverTiming)) entry.server_timing = averageServerTiming(ok.map((s) => s.serverTiming));
    const timings = new Map(ok.filter((s) => s.requestId).map((s) => [s.requestId!, s.ms]));
    const history = await searchWorkflowBreakdown(app.temporal, {
      tenant: kind.tenant,
      operation: kind.operation,
      timings,
      sample: o.workflowSample,
    });
    if (history.workflows_read > 0) entry.workflow_history = history;
    breakdown[label] = entry;
  }
  return { result, breakdown };
}

/** Each goal per search: the ratio it is judged on, its bound and whether it is met. */
function goalChecks(results: Record<string, Record<string, unknown>>, concurrency: number) {
  const high = `c${concurrency}`;
  const checks: Record<string, { value: unknown; goal: string; met: boolean }> = {};
  for (const [kind, r] of Object.entries(results)) {
    const bounds: [string, number, 'min' | 'max'][] = [
      [`api_over_raw_batched_throughput_${high}`, GOALS.api_over_raw_batched_throughput_c16_min, 'min'],
      ['api_over_raw_batched_p50_c1', GOALS.api_over_raw_batched_p50_c1_max, 'max'],
      ['api_over_direct_p50_c1', GOALS.api_over_direct_p50_c1_max, 'max'],
      [`api_over_direct_throughput_${high}`, GOALS.api_over_direct_throughput_c16_min, 'min'],
    ];
    for (const [name, bound, side] of bounds) {
      const value = r[name] as number;
      checks[`${kind}.${name}`] = {
        value,
        goal: `${side === 'min' ? '>=' : '<='} ${bound}`,
        met: side === 'min' ? value >= bound : value <= bound,
      };
    }
  }
  return checks;
}

async function main(): Promise<void> {
  const o = new Command('bench:latency')
    .description(
      'Latency and throughput of case and article search: the raw services (embedding server, then Weaviate), the retrieval with the API embedder, and the endpoint through the API.',
    )
    .option('--datasets <dir>', 'folder holding stackfaq/ (relative to the repository root)', DEFAULT_DATASETS)
    .option('--keys <n>', 'API keys of the tenant to spread requests over (the rate limit is per key)', positiveInt, 16)
    .option('--concurrency <n>', 'the high concurrency level (the low one is 1)', positiveInt, 16)
    .option('--c1-requests <n>', 'calls per mode at concurrency 1, over all rounds', positiveInt, 90)
    .option('--high-requests <n>', 'calls per mode at the high concurrency, over all rounds', positiveInt, 240)
    .option('--rounds <n>', 'interleaved rounds per concurrency level', positiveInt, 3)
    .option(
      '--warmup <n>',
      'warm-up calls per mode before measuring (and twice as many at the high concurrency)',
      positiveInt,
      10,
    )
    .option('--max-round-seconds <n>', 'a round stops sending after this long', positiveInt, 60)
    .option(
      '--workflow-sample <n>',
      'search workflow histories read per search and concurrency for the breakdown',
      positiveInt,
      40,
    )
    .option('--out <file>', 'result file (relative to the repository root)', 'bench/results/latency.json')
    .parse()
    .opts<Options>();

  const info = runInfo();
  const started = Date.now();
  const app = await startApp();
  try {
    const tenant = freshTenant('bench-latency');
    const client = await tenantClient(app, tenant, SCOPES, o.keys, { 'X-Business-Id': tenant });
    const corpus = await uploadCorpus(client, resolveDatasets(o.datasets));
    const loadBeforeMeasuring = load1m();
    console.log(
      `[latency] load average before measuring: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(', ')}`,
    );
    const results: Record<string, Record<string, unknown>> = {};
    const breakdown: Record<string, unknown> = {};
    const { load } = await withLoadSamples(async () => {
      for (const [i, kind] of kinds(app, client, tenant).entries()) {
        const measured = await measureKind(app, kind, corpus.queries, i * Math.floor(corpus.queries.length / 2), o);
        results[kind.name] = measured.result;
        breakdown[kind.name] = measured.breakdown;
      }
    });
    const checks = goalChecks(results, o.concurrency);
    writeResult(o.out, {
      ...info,
      protocol: {
        corpus: `one tenant: the ${corpus.threads} StackFAQ threads as cases (question = subject, answers = public comments) and as ${corpus.threads} articles (question = title, answers = paragraphs)`,
        queries: `StackFAQ paraphrased questions (${corpus.queries.length} non-empty, fixed shuffle), limit ${LIMIT}, offset 0`,
        modes: {
          raw_embed:
            'the query embedding alone: one /v1/embeddings request per query to the server the API would use, no scheduler',
          embed:
            "the query embedding alone through the API's embedder (createEmbedder: its scheduler and batching), in-process",
          raw: 'the raw services: that direct embedding request, then the hybrid query of domain/weaviate/retrieve.ts, in-process',
          raw_batched:
            "the raw services batching as the API's embedder does (the services at their best; the goals' baseline): the queries waiting for an embedding server go to it in one request, EMBEDDINGS_MAX_IN_FLIGHT requests at a server at once, up to its bound of one call; then the same hybrid query",
          direct: "searchCases / searchArticles in-process with the API's embedder (its scheduler); no HTTP",
          api: `POST /v1/search/cases, GET /v1/community/search/articles (X-Business-Id = tenant) over HTTP on the loopback, ${o.keys} keys of the tenant in turn`,
        },
        calls_per_mode: { c1: o.c1Requests, [`c${o.concurrency}`]: o.highRequests },
        rounds: o.rounds,
        warmup_per_mode: o.warmup,
        max_round_seconds: o.maxRoundSeconds,
        throughput: 'calls answered 200 per second of the rounds summed wall time (closed loop)',
        upload_seconds: corpus.upload_seconds,
      },
      settings: Object.fromEntries(SETTINGS.map((name) => [name, process.env[name] ?? null])),
      goals: GOALS,
      ...results,
      checks,
      goals_met: Object.values(checks).every((c) => c.met),
      breakdown,
      load_average_1m: {
        at_start: info.machine.loadAverage1mAtStart,
        before_measuring: loadBeforeMeasuring,
        while_measuring: load,
      },
      total_seconds: round((Date.now() - started) / 1000, 1),
    });
  } finally {
    await app.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`[bench:latency] ${err.stack ?? err}`);
    process.exit(1);
  },
);
