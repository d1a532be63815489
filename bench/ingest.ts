/**
 * `npm run bench:ingest [-- options]`: end-to-end upload throughput against the real stack
 * (scripts/stack/bench.ts starts it; this script starts a worker and the API in-process).
 *
 * 1. Uploads the 819 GitHub status incidents, one POST /v1/incidents each (a few in flight).
 * 2. Uploads 5,000 articles built from StackFAQ answers and DialogSum dialogues
 *    (bench/lib/datasets.ts, buildArticles), in POST /v1/articles requests of 200.
 * 3. Calls the embedding server directly on a sample of the same article passages (batches of 32,
 *    one request at a time), before and after the uploads, for its raw passages/s.
 *
 * Every upload counts only once the API answered 200/201, i.e. once the items are stored in
 * Weaviate; a 408 (deadline passed, upload still running) is waited out by sending the same request
 * again, which attaches to the running workflows. Writes bench/results/ingest.json; the overhead
 * ratio is defined in docs/benchmarks.md.
 */
import { Command, InvalidArgumentError } from 'commander';
import { loadServicesConfig } from '../domain/config';
import { articleSections, toPassages } from '../domain/text/article-text';
import { incidentText } from '../domain/text/records';
import { chunks, mapPool } from './lib/api-client';
import { articleSources, buildArticles, incidentRecord, loadIncidents } from './lib/datasets';
import { progress } from './lib/progress';
import { DEFAULT_DATASETS, positiveInt, resolveDatasets, round, runInfo, writeResult } from './lib/run-info';
import { freshTenant, startApp, tenantClient } from './lib/stack-app';

const EMBEDDING_BATCH = 32;

interface Options {
  datasets: string;
  articles: number;
  chunk: number;
  articleConcurrency: number;
  incidentConcurrency: number;
  embedSample: number;
  out: string;
}

/** The texts the ingest activity embeds for an article: title, heading and text of each passage. */
function passageTexts(article: { title: string; body: string }): string[] {
  return toPassages(articleSections(article.body)).map((p) =>
    [article.title, p.heading, p.text].filter(Boolean).join('\n'),
  );
}

/** `n` items spread evenly over the list, so the sample has the list's length distribution. */
function evenSample<T>(items: readonly T[], n: number): T[] {
  if (n >= items.length) return [...items];
  return Array.from({ length: n }, (_, i) => items[Math.floor((i * items.length) / n)]);
}

/** Raw embedding throughput: texts per second, batches of 32, one request at a time. */
async function rawEmbeddingRate(
  label: string,
  texts: string[],
): Promise<{ texts: number; seconds: number; per_s: number }> {
  const { baseUrl, apiKey, model } = loadServicesConfig().embeddings;
  const batches = chunks(texts, EMBEDDING_BATCH);
  const bar = progress(`[embeddings] ${label}`, texts.length, { every: EMBEDDING_BATCH * 10 });
  const started = Date.now();
  for (const input of batches) {
    const res = await fetch(`${baseUrl.replace(/\/$/, '')}/embeddings`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ model, input, input_type: 'passage', encoding_format: 'float' }),
    });
    if (!res.ok) throw new Error(`embedding server answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    const body = (await res.json()) as { data: unknown[] };
    if (body.data.length !== input.length)
      throw new Error(`embedding server returned ${body.data.length} vectors for ${input.length} texts`);
    bar.tick(input.length);
  }
  bar.stop();
  const seconds = (Date.now() - started) / 1000;
  return { texts: texts.length, seconds: round(seconds, 2), per_s: round(texts.length / seconds, 2) };
}

async function main(): Promise<void> {
  const o = new Command('bench:ingest')
    .description(
      'Ingestion benchmark: GitHub status incidents and articles uploaded end to end, against the raw embedding server.',
    )
    .option(
      '--datasets <dir>',
      'folder holding stackfaq/, dialogsum/ and github_status_incidents/ (relative to the repository root)',
      DEFAULT_DATASETS,
    )
    .option('--articles <n>', 'articles to build and upload', positiveInt, 5000)
    .option('--chunk <n>', 'articles per upload request (the API takes at most 1,000 and 10 MB)', positiveInt, 200)
    .option('--article-concurrency <n>', 'article upload requests in flight', positiveInt, 1)
    .option('--incident-concurrency <n>', 'incident upload requests in flight', positiveInt, 4)
    .option('--embed-sample <n>', 'article passages embedded directly, before and after the uploads', positiveInt, 320)
    .option('--out <file>', 'result file (relative to the repository root)', 'bench/results/ingest.json')
    .parse()
    .opts<Options>();
  if (o.chunk > 1000) throw new InvalidArgumentError('--chunk must be at most 1000');

  const root = resolveDatasets(o.datasets);
  const incidents = loadIncidents(root).map(incidentRecord);
  const articles = buildArticles(articleSources(root), o.articles);
  const texts = articles.map(passageTexts);
  const passages = texts.reduce((n, t) => n + t.length, 0);
  const passageChars = texts.flat().reduce((n, t) => n + t.length, 0);
  const sample = evenSample(texts.flat(), o.embedSample);
  const incidentSample = evenSample(
    incidents.map((r) => incidentText(r as any)),
    Math.min(o.embedSample, 96),
  );
  console.log(`[ingest] ${incidents.length} incidents; ${articles.length} articles = ${passages} passages`);

  const info = runInfo();
  const started = Date.now();
  const app = await startApp();
  try {
    const tenant = freshTenant('bench-ingest');
    const client = await tenantClient(app, tenant, ['articles:write', 'incidents:write', 'search'], 4, {
      'X-Business-Id': tenant,
    });

    const rawBefore = await rawEmbeddingRate('raw passages (before uploads)', sample);

    let bar = progress('[ingest] incidents', incidents.length, { every: 100 });
    const incidentsStarted = Date.now();
    await mapPool(incidents, o.incidentConcurrency, async (record) => {
      const res = await client.upload('/v1/incidents', record);
      if (res.result !== 'success') throw new Error(`incident upload answered ${JSON.stringify(res)}`);
      bar.tick();
    });
    bar.stop();
    const incidentSeconds = (Date.now() - incidentsStarted) / 1000;

    bar = progress('[ingest] articles', articles.length, { every: 500 });
    const failed: { id: string; error: string }[] = [];
    const articlesStarted = Date.now();
    await mapPool(chunks(articles, o.chunk), o.articleConcurrency, async (chunk) => {
      const res = await client.upload('/v1/articles', { articles: chunk });
      if (res.result !== 'success') failed.push(...(res.failed ?? []));
      bar.tick(chunk.length);
    });
    bar.stop();
    const articleSeconds = (Date.now() - articlesStarted) / 1000;
    if (failed.length)
      console.warn(`[ingest] ${failed.length} articles failed, e.g. ${JSON.stringify(failed.slice(0, 3))}`);

    const rawAfter = await rawEmbeddingRate('raw passages (after uploads)', sample);
    const rawIncidents = await rawEmbeddingRate('raw incident texts', incidentSample);

    // Spot check that the uploads are searchable: an article's own title finds it.
    const probe = articles[Math.floor(articles.length / 3)];
    const found = await client.request(
      'GET',
      `/v1/community/search/articles?text=${encodeURIComponent(probe.title)}&limit=10`,
    );
    const probeFound = found.status === 200 && found.body.articles.some((a: any) => a.id === probe.articleId);

    const articlesPerS = articles.length / articleSeconds;
    const passagesPerS = passages / articleSeconds;
    const embeddingPerS = (rawBefore.per_s + rawAfter.per_s) / 2;
    const incidentsPerS = incidents.length / incidentSeconds;
    const result = {
      ...info,
      incidents: incidents.length,
      incident_seconds: round(incidentSeconds, 2),
      incidents_per_s: round(incidentsPerS, 3),
      articles: articles.length,
      article_passages: passages,
      article_passage_chars: passageChars,
      articles_failed: failed.length,
      article_seconds: round(articleSeconds, 2),
      articles_per_s: round(articlesPerS, 3),
      article_passages_per_s: round(passagesPerS, 3),
      embedding_passages_per_s: round(embeddingPerS, 3),
      embedding_runs: { before_uploads: rawBefore, after_uploads: rawAfter, batch_size: EMBEDDING_BATCH },
      // Raw embedding passages/s divided by end-to-end article passages/s: 1 = no overhead.
      overhead_ratio: round(embeddingPerS / passagesPerS, 3),
      // The same for incidents: raw incident texts/s (batches of 32) divided by incidents/s end to end.
      incident_embedding_texts_per_s: rawIncidents.per_s,
      incident_overhead_ratio: round(rawIncidents.per_s / incidentsPerS, 3),
      settings: {
        chunk: o.chunk,
        article_concurrency: o.articleConcurrency,
        incident_concurrency: o.incidentConcurrency,
        embed_sample: sample.length,
        embed_sample_chars: sample.reduce((n, t) => n + t.length, 0),
      },
      search_spot_check_found: probeFound,
      client: client.stats,
      total_seconds: round((Date.now() - started) / 1000, 1),
    };
    console.log(
      `[ingest] incidents ${result.incidents_per_s}/s, articles ${result.articles_per_s}/s (${result.article_passages_per_s} passages/s), ` +
        `raw embeddings ${result.embedding_passages_per_s} passages/s, overhead ratio ${result.overhead_ratio}`,
    );
    writeResult(o.out, result);
    if (failed.length || !probeFound)
      throw new Error(
        failed.length ? `${failed.length} articles failed` : 'the spot-check search did not find its article',
      );
  } finally {
    await app.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`[bench:ingest] ${err.stack ?? err}`);
    process.exit(1);
  },
);
