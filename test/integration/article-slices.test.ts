/**
 * Issue 33, finding 2: a slice of an article upload (domain/weaviate/ingest.ts) ends soon after its
 * deadline, against the real Weaviate and embedding server. Before, a slice converted its whole batch
 * first and checked its deadline only after groups of 16 passages (8 calls of the embedding server,
 * each possibly waiting for other tenants' calls), so on busy cores one slice held its slot for
 * minutes. Only what a slice did is asserted, never a duration: with a deadline already past, a
 * slice converts the one article it stores from and stores one embedding call's worth of passages.
 */
import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'mocha';
import { loadServicesConfig } from '../../domain/config';
import { createCpuPool, type CpuPool } from '../../domain/cpu/pool';
import { createEmbedder } from '../../domain/models/embeddings';
import { connectWeaviate } from '../../domain/weaviate/client';
import { upsertArticles, type ArticleCursor, type ArticleSlice } from '../../domain/weaviate/ingest';
import type { Article } from '../../domain/contracts/article';
import { MockActivityEnvironment } from '@temporalio/testing';
import { article } from '../helpers/factories';
import { freshTenant, getHarness, requireStack } from '../helpers/harness';

/** Text of about `chars` characters in sentences, so it makes passages of real words. */
const prose = (chars: number) =>
  Array.from({ length: Math.ceil(chars / 60) }, (_, i) => `Step ${i} of the guide resets the router and its cache.`)
    .join(' ')
    .slice(0, chars);

describe('article upload slices (issue 33, finding 2)', function () {
  this.timeout(300_000);
  let pool: CpuPool;

  before(async () => {
    requireStack();
    await getHarness(); // the stack and the collections
    pool = createCpuPool({ threads: 1, budgetMs: 30_000 });
  });

  after(async () => {
    await pool?.close();
  });

  it('converts only the article it stores from, and stores one embedding call of passages past its deadline', async () => {
    const config = loadServicesConfig();
    const tenant = freshTenant('slices');
    const articles = Array.from({ length: 3 }, (_, i) => ({
      ...article(),
      title: `Router guide ${i}`,
      body: prose(20_000),
    })) as Article[];
    const converted: string[] = [];
    // The real CPU pool, its conversions counted.
    const cpu = {
      ...pool,
      run: ((o: Parameters<CpuPool['run']>[0]) => {
        converted.push((o.input as { title: string }).title);
        return pool.run(o);
      }) as CpuPool['run'],
    } as CpuPool;
    const deps = {
      weaviate: () => connectWeaviate(config.weaviate),
      embedder: createEmbedder(config.embeddings),
      cpu,
      sliceMs: 1,
      run: { runKey: `test/${tenant}`, read: async () => articles },
    };
    // In an activity's context (heartbeats), as the worker runs it.
    const slice = (d: typeof deps, input: Parameters<typeof upsertArticles>[1]) =>
      new MockActivityEnvironment().run(upsertArticles, d, input) as Promise<ArticleSlice>;
    const first = await slice(deps, { tenant, articles });
    assert.deepEqual(converted, [articles[0].title], 'the first slice converted only the article it stored from');
    const next = first.next as ArticleCursor;
    assert.equal(next.article, 0, 'still within the first article');
    // About 1,000 characters a passage: one call of the embedding server (2,000 characters) is two or three, not 16.
    assert.ok(next.passage >= 1 && next.passage <= 3, `the slice stored ${next.passage} passages`);
    // The following slices go on from there, each moving, until the batch is stored (each article converted once).
    let from: ArticleCursor | undefined = next;
    let slices = 1;
    const completed: string[] = [...(first.completed ?? [])];
    while (from) {
      const later = await slice({ ...deps, sliceMs: 5_000 }, { tenant, from });
      completed.push(...(later.completed ?? []));
      assert.ok(!later.next || later.next.article > from.article || later.next.passage > from.passage, 'a slice moves');
      from = later.next;
      slices++;
    }
    assert.deepEqual(
      completed,
      articles.map((a) => a.articleId),
    );
    assert.deepEqual(
      converted,
      articles.map((a) => a.title),
    );
    assert.ok(slices >= 2);
  });
});
