import { strict as assert } from 'node:assert';
import { before, describe, it } from 'mocha';
import { api, createKey } from '../helpers/harness';
import { supportCase } from '../helpers/factories';

describe('POST /v1/cases and POST /v1/search/cases', () => {
  let key: string;
  const cases = [
    supportCase({
      id: 'wifi',
      subject: 'Printer does not connect to wifi',
      productId: 'printers',
      form_id: 'f1',
      brand_id: 'b1',
    }),
    supportCase({
      id: 'wifi-2',
      subject: 'Wireless printing fails after update',
      description: 'The printer drops off the wifi network.',
      custom_fields: { productId: 'printers' },
      form_id: 'f2',
      brand_id: 'b1',
    }),
    supportCase({
      id: 'laptop',
      subject: 'Laptop battery drains fast',
      description: 'Battery empty after two hours.',
      productId: 'laptops',
      form_id: 'f1',
      brand_id: 'b2',
      comments: [],
    }),
    supportCase({ id: 'spam', subject: 'Cheap printer wifi deals!!!', description: 'Buy now', spam: true }),
    supportCase({
      id: 'private',
      subject: 'Invoice question',
      description: 'Where do I find my invoice?',
      productId: 'billing',
      comments: [
        {
          commentId: 'p1',
          comment: 'internal: customer owes zebra-giraffe money',
          commenter: 'agent',
          isPublic: false,
          timeOfCreation: 1,
        },
      ],
    }),
  ];
  for (let i = 0; i < 12; i++)
    cases.push(
      supportCase({
        id: `filler-${String(i).padStart(2, '0')}`,
        subject: `Printer question number ${i}`,
        productId: 'printers',
      }),
    );

  before(async () => {
    ({ key } = await createKey());
    const res = await api('POST', '/v1/cases', { key, body: { data: cases } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, { result: 'success' });
  });

  const searchCases = (body: Record<string, unknown>, k = key) => api('POST', '/v1/search/cases', { key: k, body });

  it('answers with the spec fields, scores in 0..1, best first, legacy size 4', async () => {
    const res = await searchCases({ query: 'my printer cannot join the wireless network' });
    assert.equal(res.status, 200);
    assert.equal(res.body.results.length, 4);
    assert.equal(res.body.results[0].id.startsWith('wifi'), true);
    for (const r of res.body.results) {
      assert.deepEqual(Object.keys(r).sort(), ['id', 'productId', 'score', 'subject', 'timeOfCreation', 'url']);
      assert.ok(r.score >= 0 && r.score <= 1);
    }
    const scores = res.body.results.map((r: any) => r.score);
    assert.deepEqual(
      scores,
      [...scores].sort((a, b) => b - a),
    );
  });

  it('honours numResults in legacy mode and ignores it in pagination mode', async () => {
    assert.equal((await searchCases({ query: 'printer', numResults: 2 })).body.results.length, 2);
    assert.equal((await searchCases({ query: 'printer', numResults: 2, limit: 5 })).body.results.length, 5);
  });

  it('pages without overlaps or gaps', async () => {
    const all = (await searchCases({ query: 'printer question', offset: 0, limit: 12 })).body.results.map(
      (r: any) => r.id,
    );
    const pages: string[] = [];
    for (let offset = 0; offset < 12; offset += 4)
      pages.push(
        ...(await searchCases({ query: 'printer question', offset, limit: 4 })).body.results.map((r: any) => r.id),
      );
    assert.deepEqual(pages, all);
    assert.equal(new Set(all).size, 12);
  });

  it('answers 400 for rule 1 (no query nor conversationId) and rule 4 (offset + limit > 200)', async () => {
    const none = await searchCases({ productId: 'printers' });
    assert.equal(none.status, 400);
    assert.match(none.body.error, /query/);
    const blank = await searchCases({ query: '   ' });
    assert.equal(blank.status, 400);
    const wide = await searchCases({ query: 'x', offset: 150, limit: 51 });
    assert.equal(wide.status, 400);
    assert.match(wide.body.error, /200/);
    assert.equal((await searchCases({ query: 'x', offset: 150, limit: 50 })).status, 200);
  });

  it('answers 404 for an unknown conversationId', async () => {
    const res = await searchCases({ conversationId: 'no-such-case' });
    assert.equal(res.status, 404);
    assert.equal(res.body.status, 'NOT_FOUND');
  });

  it('searches with a case content, excluding the case itself', async () => {
    const res = await searchCases({ conversationId: 'wifi', numResults: 5 });
    assert.equal(res.status, 200);
    const ids = res.body.results.map((r: any) => r.id);
    assert.equal(ids.includes('wifi'), false);
    assert.equal(ids[0], 'wifi-2');
  });

  it('filters by product lists (trimmed, merged), form and brand', async () => {
    const laptops = await searchCases({ query: 'printer wifi battery', productId: 'laptops', limit: 20 });
    assert.deepEqual(
      laptops.body.results.map((r: any) => r.id),
      ['laptop'],
    );
    const both = await searchCases({ query: 'wifi battery', productId: ' laptops , billing ', limit: 20 });
    assert.deepEqual(both.body.results.map((r: any) => r.id).sort(), ['laptop', 'private']);
    const fromCustomField = await searchCases({ query: 'wireless printing', productId: 'printers', limit: 20 });
    assert.ok(fromCustomField.body.results.some((r: any) => r.id === 'wifi-2'));
    const form = await searchCases({ query: 'printer wifi battery', formId: 'f1', limit: 20 });
    assert.deepEqual(form.body.results.map((r: any) => r.id).sort(), ['laptop', 'wifi']);
    const brand = await searchCases({ query: 'printer wifi battery', sourceBrandId: 'b2', limit: 20 });
    assert.deepEqual(
      brand.body.results.map((r: any) => r.id),
      ['laptop'],
    );
  });

  it('excludes cases whose url is in filterUrls', async () => {
    const res = await searchCases({
      query: 'printer wifi',
      filterUrls: ['https://support.example.com/cases/wifi'],
      limit: 20,
    });
    assert.equal(
      res.body.results.some((r: any) => r.id === 'wifi'),
      false,
    );
    assert.ok(res.body.results.some((r: any) => r.id === 'wifi-2'));
  });

  it('never returns spam', async () => {
    const res = await searchCases({ query: 'Cheap printer wifi deals', limit: 50 });
    assert.equal(
      res.body.results.some((r: any) => r.id === 'spam'),
      false,
    );
  });

  it('does not search private comments', async () => {
    const res = await searchCases({ query: 'zebra-giraffe', limit: 50 });
    const hit = res.body.results.find((r: any) => r.id === 'private');
    const top = res.body.results[0];
    assert.ok(!hit || hit !== top || hit.score < 0.9);
  });

  it('never shows one tenant the cases of another, and re-upload does not duplicate', async () => {
    const other = await createKey();
    assert.deepEqual((await searchCases({ query: 'printer wifi' }, other.key)).body.results, []);
    assert.equal((await searchCases({ conversationId: 'wifi' }, other.key)).status, 404);
    await api('POST', '/v1/cases', { key, body: { data: [cases[0]] } });
    const res = await searchCases({ query: 'printer wifi', limit: 50 });
    assert.equal(res.body.results.filter((r: any) => r.id === 'wifi').length, 1);
  });

  it('reports a bad case of an upload by its JSON pointer and stores the rest', async () => {
    const bad = supportCase({ id: 'bad', comments: [{ comment: 'no id', commenter: 'a', timeOfCreation: 1 }] });
    const res = await api('POST', '/v1/cases', { key, body: { data: [supportCase({ id: 'ok-case' }), bad] } });
    assert.equal(res.body.result, 'partial');
    assert.deepEqual(res.body.failed, [{ id: 'bad', error: '/data/1/comments/0/commentId is required' }]);
  });

  it('reads an upload of more than a megabyte on a CPU thread, with the same answers: the last copy of an id wins', async () => {
    const { key: own } = await createKey();
    const padding = 'The printer queue stalls on large scanned documents. '.repeat(8000);
    const first = supportCase({ id: 'big-1', subject: 'First copy', description: padding });
    const second = supportCase({ id: 'big-1', subject: 'Scanner jams with duplex originals', description: padding });
    const bad = supportCase({ id: 'big-bad', comments: [{ comment: 'no id', commenter: 'a', timeOfCreation: 1 }] });
    const body = { data: [first, bad, supportCase({ id: 'big-2', description: padding }), second] };
    assert.ok(JSON.stringify(body).length > 1024 * 1024);
    const res = await api('POST', '/v1/cases', { key: own, body });
    assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
    assert.deepEqual(res.body.failed, [{ id: 'big-bad', error: '/data/1/comments/0/commentId is required' }]);
    const found = await searchCases({ conversationId: 'big-1', numResults: 5 }, own);
    assert.equal(found.status, 200);
    const stored = await searchCases({ query: 'scanner jams with duplex originals', limit: 5 }, own);
    assert.equal(stored.body.results.find((r: any) => r.id === 'big-1')?.subject, 'Scanner jams with duplex originals');
  });
});
