import { strict as assert } from 'node:assert';
import { before, describe, it } from 'mocha';
import { loadServicesConfig } from '../../domain/config';
import { connectWeaviate } from '../../domain/weaviate/client';
import { COLLECTIONS } from '../../domain/weaviate/collections';
import { api, createKey } from '../helpers/harness';
import { article } from '../helpers/factories';

/** The article ids of a tenant's title objects (one per article, for ask's ranking), sorted. */
async function titleIds(tenant: string): Promise<string[]> {
  const titles = (await connectWeaviate(loadServicesConfig().weaviate)).collections
    .use(COLLECTIONS.articleTitle)
    .withTenant(tenant);
  const res = await titles.query.fetchObjects({ limit: 100 });
  return res.objects.map((o) => String(o.properties.articleId)).sort();
}

const search = (key: string, tenant: string, text: string, extra = '') =>
  api('GET', `/v1/community/search/articles?text=${encodeURIComponent(text)}${extra}`, {
    key,
    headers: { 'X-Business-Id': tenant },
  });

describe('POST /v1/articles and GET /v1/community/search/articles', () => {
  let key: string;
  let tenant: string;
  const reset = article({
    articleId: 'reset',
    title: 'Reset your password',
    body: '<h1>Reset</h1><p>Open <b>Settings</b> and click <a href="/x">Reset password</a>.</p>',
  });
  const billing = article({
    articleId: 'billing',
    title: 'Change the billing address',
    body: `# Billing\n\nThe billing address is on the invoice page.\n\n## Invoices\n\n${'Invoices are sent monthly and list every seat. '.repeat(60)}`,
  });
  const french = article({
    articleId: 'fr',
    title: 'Exporter vos données',
    body: 'Pour exporter vos données, ouvrez les paramètres du compte et choisissez Exporter.',
  });

  before(async () => {
    ({ key, tenant } = await createKey());
    const res = await api('POST', '/v1/articles', { key, body: { articles: [reset, billing, french] } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, { result: 'success' });
    assert.deepEqual(await titleIds(tenant), ['billing', 'fr', 'reset']);
  });

  it('finds an article by meaning, one result per article, with a clean snippet', async () => {
    const res = await search(key, tenant, 'I forgot my password');
    assert.equal(res.status, 200);
    assert.equal(res.body.articles[0].id, 'reset');
    assert.deepEqual(Object.keys(res.body.articles[0]).sort(), ['id', 'snippet', 'title', 'url']);
    assert.doesNotMatch(res.body.articles[0].snippet, /<|>/);
    const ids = res.body.articles.map((a: any) => a.id);
    assert.equal(new Set(ids).size, ids.length);
  });

  it('returns the best passage of a long article as its snippet, cut at a word', async () => {
    const res = await search(key, tenant, 'monthly invoices seats');
    const hit = res.body.articles.find((a: any) => a.id === 'billing');
    assert.ok(hit);
    assert.ok(hit.snippet.length <= 300);
    assert.match(hit.snippet, /Invoices/);
  });

  it('pages with offset and limit without overlaps', async () => {
    const all = (await search(key, tenant, 'account settings', '&limit=3')).body.articles.map((a: any) => a.id);
    const first = (await search(key, tenant, 'account settings', '&limit=1')).body.articles.map((a: any) => a.id);
    const second = (await search(key, tenant, 'account settings', '&limit=2&offset=1')).body.articles.map(
      (a: any) => a.id,
    );
    assert.deepEqual([...first, ...second], all);
  });

  it('answers 400 above the limit of 100', async () => {
    assert.equal((await search(key, tenant, 'x', '&limit=101')).status, 400);
  });

  it('never shows one tenant the articles of another', async () => {
    const other = await createKey();
    const res = await search(other.key, other.tenant, 'reset password');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.articles, []);
  });

  it('re-uploading replaces instead of duplicating, also when the article gets shorter', async () => {
    const shorter = { ...billing, body: 'The billing address is on the invoice page.' };
    assert.deepEqual((await api('POST', '/v1/articles', { key, body: { articles: [shorter, shorter] } })).body, {
      result: 'success',
    });
    const res = await search(key, tenant, 'billing address invoices', '&limit=10');
    assert.equal(res.body.articles.filter((a: any) => a.id === 'billing').length, 1);
    assert.equal((await titleIds(tenant)).filter((id) => id === 'billing').length, 1);
    const monthly = await search(key, tenant, 'Invoices are sent monthly and list every seat', '&limit=10');
    const hit = monthly.body.articles.find((a: any) => a.id === 'billing');
    assert.doesNotMatch(hit?.snippet ?? '', /monthly/);
  });

  it('stores the good items of a partly bad upload and names the bad ones by pointer', async () => {
    const good = article({
      articleId: 'good-one',
      title: 'Two factor authentication',
      body: 'Enable two factor authentication in Security.',
    });
    const bad = { ...article({ articleId: 'bad-one' }), url: 'not a url' };
    const res = await api('POST', '/v1/articles', { key, body: { articles: [good, bad] } });
    assert.equal(res.status, 200);
    assert.equal(res.body.result, 'partial');
    assert.deepEqual(
      res.body.failed.map((f: any) => f.id),
      ['bad-one'],
    );
    assert.match(res.body.failed[0].error, /^\/articles\/1\/url /);
    assert.equal((await search(key, tenant, 'two factor authentication')).body.articles[0].id, 'good-one');
  });

  it('refuses an item too large for one workflow payload, storing the rest', async () => {
    const huge = article({ articleId: 'huge', body: 'é'.repeat(1_000_000) });
    const small = article({
      articleId: 'small',
      title: 'Keyboard shortcuts',
      body: 'Press ? to list keyboard shortcuts.',
    });
    const res = await api('POST', '/v1/articles', { key, body: { articles: [huge, small] } });
    assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
    assert.equal(res.body.result, 'partial');
    assert.equal(res.body.failed[0].id, 'huge');
    assert.match(res.body.failed[0].error, /^\/articles\/0 is \d+ bytes/);
  });

  it('answers 400 when every item is invalid', async () => {
    const res = await api('POST', '/v1/articles', { key, body: { articles: [{ articleId: 'x' }] } });
    assert.equal(res.status, 400);
    assert.match(res.body.error, /^\/articles\/0\//);
  });

  it('DELETE removes every passage and the title of an article', async () => {
    const res = await api('DELETE', '/v1/articles', {
      key,
      body: { articles: [{ articleId: 'billing' }, { articleId: 'never-uploaded' }] },
    });
    assert.deepEqual(res.body, { result: 'success' });
    const after = await search(key, tenant, 'billing address invoice', '&limit=10');
    assert.equal(
      after.body.articles.some((a: any) => a.id === 'billing'),
      false,
    );
    assert.ok(!(await titleIds(tenant)).includes('billing'));
  });

  it('answers 408 when the deadline passes first, and the upload still completes', async () => {
    // Started within its deadline (2 s), but dozens of long articles take far longer to embed.
    const paragraph = 'Dark mode follows the system setting unless you pick Light or Dark under Appearance. ';
    const many = Array.from({ length: 20 }, (_, i) =>
      article({ articleId: `long-${i}`, title: `Appearance ${i}`, body: paragraph.repeat(20) }),
    );
    const late = article({ articleId: 'late', title: 'Dark mode', body: 'Switch to dark mode under Appearance.' });
    const res = await api('POST', '/v1/articles', {
      key,
      body: { articles: [...many, late] },
      headers: { 'Request-Timeout': '2' },
    });
    assert.equal(res.status, 408, JSON.stringify(res.body));
    assert.equal(res.body.status, 'REQUEST_TIMEOUT');
    assert.match(res.body.error, /work that was accepted continues/);
    for (let i = 0; i < 240; i++) {
      const found = await search(key, tenant, 'dark mode appearance');
      if (found.body.articles.some((a: any) => a.id === 'late')) return;
      await new Promise((r) => setTimeout(r, 500));
    }
    assert.fail('the upload did not complete after the 408');
  });

  it('answers 408 when the deadline passes before the upload could start, saying so, and names the rejected items', async () => {
    const valid = article({ articleId: 'late-2', title: 'Keyboard shortcuts', body: 'Press ? to list the shortcuts.' });
    // The key is looked up once here, so that the look-up is cached and the deadline passes at the start.
    assert.equal((await api('DELETE', '/v1/articles', { key, body: {} })).status, 400);
    const res = await api('DELETE', '/v1/articles', {
      key,
      body: { articles: [{ articleId: '' }, { articleId: valid.articleId }] },
      headers: { 'Request-Timeout': '0.001' },
    });
    assert.equal(res.status, 408, JSON.stringify(res.body));
    assert.match(
      res.body.error,
      /articles-delete was not started before the request deadline; send it again .*; 1 item was rejected and will not be stored, first: \/articles\/0\/articleId /,
    );
  });
});
