import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'mocha';
import { Filters } from 'weaviate-client';
import { loadServicesConfig } from '../../domain/config';
import { connectWeaviate } from '../../domain/weaviate/client';
import { COLLECTIONS } from '../../domain/weaviate/collections';
import { article } from '../helpers/factories';
import { createKey } from '../helpers/harness';
import { KillableWorker, killableWorker } from '../helpers/worker-process';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const WORDS = ['amber', 'basil', 'cobalt', 'delta', 'ember', 'fjord', 'garnet', 'harbor', 'indigo', 'juniper'];

/** A distinct, searchable phrase per article number. */
const phrase = (i: number) =>
  `${WORDS[i % 10]} ${WORDS[Math.floor(i / 10) % 10]} ${WORDS[Math.floor(i / 100) % 10]} setting ${i}`;

describe('a 1,000-article upload while the worker is killed', function () {
  this.timeout(600_000);
  let w: KillableWorker;

  before(async () => {
    w = await killableWorker();
    await w.start();
  });
  after(async () => w?.close());

  it('ends with all 1,000 articles stored and searchable, none twice', async () => {
    const { key, tenant } = await createKey({ scopes: ['articles:write', 'search'] });
    const articles = Array.from({ length: 1000 }, (_, i) =>
      article({ articleId: `bulk-${i}`, title: `Guide ${i}`, body: `How to change the ${phrase(i)} in the console.` }),
    );
    const passages = (await connectWeaviate(loadServicesConfig().weaviate)).collections.use(COLLECTIONS.articlePassage);
    const stored = async () => {
      if (!(await passages.tenants.getByName(tenant))) return 0;
      return (await passages.withTenant(tenant).aggregate.overAll()).totalCount;
    };

    const upload = fetch(`${w.baseUrl}/v1/articles`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ articles }),
    }).then(async (res) => ({ status: res.status, body: await res.json() }));

    while ((await stored()) === 0) await sleep(200);
    const atKill = await stored();
    await w.kill();
    assert.ok(atKill < 1000, 'the upload finished before the worker could be killed');
    await w.start();

    const answer = await upload;
    assert.ok([200, 408].includes(answer.status), JSON.stringify(answer));
    if (answer.status === 200) assert.deepEqual(answer.body, { result: 'success' });
    for (let i = 0; i < 300 && (await stored()) < 1000; i++) await sleep(1000);

    const all = await passages
      .withTenant(tenant)
      .query.fetchObjects({ limit: 5000, returnProperties: ['articleId', 'passageIndex'] });
    const ids = all.objects.map((o) => String(o.properties.articleId));
    assert.equal(ids.length, 1000, 'one passage per short article, none twice');
    assert.equal(new Set(ids).size, 1000);
    const dupes = await passages.withTenant(tenant).query.fetchObjects({
      filters: Filters.and(passages.filter.byProperty('passageIndex').greaterThan(0)),
      limit: 10,
    });
    assert.equal(dupes.objects.length, 0);

    for (const i of [0, 517, 999]) {
      const res = await fetch(
        `${w.baseUrl}/v1/community/search/articles?text=${encodeURIComponent(phrase(i))}&limit=3`,
        {
          headers: { Authorization: `Bearer ${key}`, 'X-Business-Id': tenant },
        },
      );
      const body = await res.json();
      assert.equal(body.articles[0]?.id, `bulk-${i}`, JSON.stringify(body));
    }
  });
});
