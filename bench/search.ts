/**
 * `npm run bench:search [-- options]`: retrieval quality of POST /v1/search/cases against the real
 * stack (scripts/stack/bench.ts starts it; this script starts a worker and the API in-process).
 *
 * - StackFAQ: the 125 threads become cases (question = subject, answers = public comments); each of
 *   the 1,250 paraphrased queries is searched with `query`; MRR@10 and Recall@1/@5 of the gold
 *   thread, reported per query group (A = tuning, B = held out).
 * - SemEval-2016 Task 3 subtask B, dev: per original question, its 10 candidates are uploaded as
 *   the cases of a fresh tenant and reranked by searching with the question; MAP as the official
 *   scorer computes it.
 *
 * Writes bench/results/search.json. With --tune it grid-searches RETRIEVAL.cases on group A only
 * (bench/tune-search.ts) and writes bench/results/tune-search.json instead.
 * docs/benchmarks.md describes the protocol and the numbers.
 */
import { Command } from 'commander';
import { RETRIEVAL } from '../domain/weaviate/retrieve';
import { ApiClient, chunks, mapPool } from './lib/api-client';
import { loadSemEvalDev, loadStackFaq, semEvalCase, semEvalQuery, stackFaqCase, StackFaqQuery } from './lib/datasets';
import {
  firstRelevantRank,
  labelReciprocalRank,
  mean,
  rankLikeScorer,
  semevalAveragePrecision,
  semevalMap,
  singleGoldMetrics,
} from './lib/metrics';
import { progress } from './lib/progress';
import { DEFAULT_DATASETS, positiveInt, resolveDatasets, round, runInfo, writeResult } from './lib/run-info';
import { freshTenant, InProcessApp, startApp, tenantClient } from './lib/stack-app';
import { tuneCases } from './tune-search';

const UPLOAD_CHUNK = 200;
const SCOPES = ['cases:write', 'search'];

interface Options {
  datasets: string;
  concurrency: number;
  keys: number;
  tune: boolean;
  out: string;
}

/** Uploads cases in chunks; every case must be stored. */
async function uploadCases(client: ApiClient, cases: object[]): Promise<void> {
  for (const chunk of chunks(cases, UPLOAD_CHUNK)) {
    const res = await client.upload('/v1/cases', { data: chunk });
    if (res.result !== 'success')
      throw new Error(`case upload was ${res.result}: ${JSON.stringify(res.failed).slice(0, 500)}`);
  }
}

/** The ids of the top `limit` cases for a query text, best first. */
async function searchIds(client: ApiClient, query: string, limit = 10): Promise<{ id: string; score: number }[]> {
  const res = await client.request('POST', '/v1/search/cases', { query, offset: 0, limit });
  if (res.status !== 200) throw new Error(`search answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
  return res.body.results.map((r: any) => ({ id: r.id, score: r.score }));
}

async function stackFaq(app: InProcessApp, o: Options) {
  const { threads, queries } = loadStackFaq(resolveDatasets(o.datasets));
  const tenant = freshTenant('bench-stackfaq');
  const client = await tenantClient(app, tenant, SCOPES, o.keys);
  const uploadStarted = Date.now();
  await uploadCases(client, threads.map(stackFaqCase));
  const uploadSeconds = (Date.now() - uploadStarted) / 1000;
  console.log(`[stackfaq] ${threads.length} threads uploaded as cases in ${uploadSeconds.toFixed(1)} s`);

  if (o.tune)
    return {
      tuned: await tuneCases({ tenant, queries: queries.filter((q) => q.group === 'A'), concurrency: o.concurrency }),
    };

  const bar = progress('[stackfaq] queries', queries.length, { every: 125 });
  const started = Date.now();
  const ranked = await mapPool(queries, o.concurrency, async (q) => {
    // One query of the dataset is empty (sf094_q10); the API rejects it (400), so it counts as a miss.
    const hits = q.text.trim() ? await searchIds(client, q.text) : [];
    bar.tick();
    return {
      q,
      ids: hits.map((h) => h.id),
      rank: firstRelevantRank(
        hits.map((h) => h.id),
        q.thread_id,
        10,
      ),
    };
  });
  bar.stop();
  const seconds = (Date.now() - started) / 1000;
  const group = (g?: StackFaqQuery['group']) =>
    singleGoldMetrics(ranked.filter((r) => !g || r.q.group === g).map((r) => r.rank));
  const rounded = (m: ReturnType<typeof singleGoldMetrics>) => ({
    queries: m.queries,
    mrr10: round(m.mrr10),
    recall1: round(m.recall1),
    recall5: round(m.recall5),
    recall10: round(m.recall10),
  });
  return {
    result: {
      threads: threads.length,
      queries: queries.length,
      empty_queries_counted_as_misses: queries.filter((q) => !q.text.trim()).map((q) => q.query_id),
      groupA: rounded(group('A')),
      groupB: rounded(group('B')),
      all: rounded(group()),
      upload_seconds: round(uploadSeconds, 2),
      search_seconds: round(seconds, 2),
      searches_per_s: round(queries.length / seconds, 2),
    },
    details: ranked.map((r) => ({
      query_id: r.q.query_id,
      group: r.q.group,
      gold: r.q.thread_id,
      rank: r.rank,
      top3: r.ids.slice(0, 3),
    })),
  };
}

async function semEvalDev(app: InProcessApp, o: Options) {
  const { questions, relevancy } = loadSemEvalDev(resolveDatasets(o.datasets));
  const run = freshTenant('bench-semeval').slice(-8);
  const bar = progress('[semeval] questions', questions.length, { every: 10 });
  const started = Date.now();
  let unreturned = 0;
  const perQuestion = await mapPool(questions, Math.min(2, o.concurrency), async (q) => {
    // A fresh tenant per original question: its 10 candidates are the only cases searched.
    const client = await tenantClient(app, `bench-semeval-${run}-${q.orgq_id}`, SCOPES);
    await uploadCases(client, q.candidates.map(semEvalCase));
    const hits = await searchIds(client, semEvalQuery(q), q.candidates.length);
    bar.tick();
    return { q, hits };
  });
  bar.stop();
  const seconds = (Date.now() - started) / 1000;

  // Gold from the official relevancy file, in its order (= the search engine's order).
  const gold = new Map<string, { relqId: string; relevant: boolean }[]>();
  for (const row of relevancy)
    gold.set(row.orgqId, [...(gold.get(row.orgqId) ?? []), { relqId: row.relqId, relevant: row.relevant }]);
  const system: boolean[][] = [];
  const searchEngine: boolean[][] = [];
  const details = [];
  for (const { q, hits } of perQuestion) {
    const rows = gold.get(q.orgq_id);
    if (!rows) throw new Error(`no relevancy rows for ${q.orgq_id}`);
    // Like the scorer: candidates ordered by our score; one the API did not return scores below all.
    const score = new Map(hits.map((h, i) => [h.id, hits.length - i]));
    unreturned += rows.filter((r) => !score.has(r.relqId)).length;
    const ordered = rankLikeScorer(rows, (r) => score.get(r.relqId) ?? Number.NEGATIVE_INFINITY);
    const labels = ordered.map((r) => r.relevant);
    system.push(labels);
    searchEngine.push(rows.map((r) => r.relevant));
    details.push({
      orgq_id: q.orgq_id,
      ap: round(semevalAveragePrecision(labels)),
      ap_search_engine: round(semevalAveragePrecision(rows.map((r) => r.relevant))),
      order: ordered.map((r) => `${r.relqId}${r.relevant ? '+' : ''}`),
    });
  }
  return {
    result: {
      questions: questions.length,
      candidates: relevancy.length,
      map: round(semevalMap(system)),
      mrr: round(mean(system.map((l) => labelReciprocalRank(l)))),
      // The organisers' search-engine order, scored by the same code: checks the scorer against SOURCE.md.
      search_engine_order_map: round(semevalMap(searchEngine)),
      candidates_not_returned: unreturned,
      seconds: round(seconds, 2),
    },
    details,
  };
}

async function main(): Promise<void> {
  const o = new Command('bench:search')
    .description('Retrieval benchmark of POST /v1/search/cases on StackFAQ and SemEval-2016 Task 3 (subtask B, dev).')
    .option(
      '--datasets <dir>',
      'folder holding stackfaq/ and semeval2016_task3_qq_dev/ (relative to the repository root)',
      DEFAULT_DATASETS,
    )
    .option('--concurrency <n>', 'search requests in flight', positiveInt, 4)
    .option('--keys <n>', 'API keys per tenant to spread requests over (the rate limit is per key)', positiveInt, 4)
    .option(
      '--tune',
      'grid-search RETRIEVAL.cases on StackFAQ group A only; prints a table, writes bench/results/tune-search.json',
      false,
    )
    .option('--out <file>', 'result file (relative to the repository root)', 'bench/results/search.json')
    .parse()
    .opts<Options>();

  const info = runInfo();
  const started = Date.now();
  const app = await startApp();
  try {
    const sf = await stackFaq(app, o);
    if ('tuned' in sf) {
      writeResult('bench/results/tune-search.json', {
        ...info,
        dataset: 'stackfaq',
        queries: 'group A only',
        configurations: sf.tuned,
      });
      return;
    }
    console.log(
      `[stackfaq] group A MRR@10 ${sf.result.groupA.mrr10}, group B MRR@10 ${sf.result.groupB.mrr10} (R@1 ${sf.result.groupB.recall1}, R@5 ${sf.result.groupB.recall5})`,
    );
    const se = await semEvalDev(app, o);
    console.log(`[semeval] dev MAP ${se.result.map} (search-engine order ${se.result.search_engine_order_map})`);
    writeResult(o.out, {
      ...info,
      retrieval: { cases: RETRIEVAL.cases },
      stackfaq: sf.result,
      semeval_dev: se.result,
      total_seconds: round((Date.now() - started) / 1000, 1),
    });
    // Per-query ranks for error analysis; *.tmp.json is not committed.
    writeResult(o.out.replace(/\.json$/, '-details.tmp.json'), { stackfaq: sf.details, semeval_dev: se.details });
  } finally {
    await app.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`[bench:search] ${err.stack ?? err}`);
    process.exit(1);
  },
);
