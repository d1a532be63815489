import { strict as assert } from 'node:assert';
import { before, describe, it } from 'mocha';
import { api, createKey, freshTenant, getHarness } from '../helpers/harness';

const ARTICLE = {
  articleId: 'a1',
  url: 'https://help.example.com/a1',
  title: 'Reset',
  body: 'How to reset.',
  timeOfCreation: 1,
  timeLastPublished: 2,
};

describe('API foundation', () => {
  let key: string;
  before(async () => {
    ({ key } = await createKey());
  });

  describe('authentication', () => {
    it('answers 401 with the error body when the key is missing', async () => {
      const res = await api('POST', '/v1/search/cases', { body: { query: 'x' } });
      assert.equal(res.status, 401);
      assert.deepEqual(Object.keys(res.body).sort(), ['code', 'error', 'status']);
      assert.equal(res.body.code, 401);
      assert.equal(res.body.status, 'UNAUTHENTICATED');
    });

    it('answers 401 for an unknown key and for a revoked one', async () => {
      assert.equal((await api('POST', '/v1/search/cases', { key: 'sai_nope_nope', body: { query: 'x' } })).status, 401);
      const h = await getHarness();
      const { key: doomed, record } = await h.keys.create({ tenant: freshTenant(), scopes: ['search'] });
      assert.equal((await api('POST', '/v1/search/cases', { key: doomed, body: { query: 'x' } })).status, 200);
      await h.keys.revoke(record.keyId);
      await new Promise((r) => setTimeout(r, 500)); // the harness caches keys for 300 ms
      assert.equal((await api('POST', '/v1/search/cases', { key: doomed, body: { query: 'x' } })).status, 401);
    });

    it('answers 403 PERMISSION_DENIED when the key lacks the scope, on every kind of endpoint', async () => {
      const { key: searchOnly } = await createKey({ scopes: ['search'] });
      for (const [method, path, body] of [
        ['POST', '/v1/articles', { articles: [ARTICLE] }],
        ['POST', '/v1/assistant/ask', { query: 'hi' }],
        ['POST', '/v1/control/autoeval/evaluate', { messages: [], output: 'x' }],
      ] as const) {
        const res = await api(method, path, { key: searchOnly, body });
        assert.equal(res.status, 403, path);
        assert.equal(res.body.status, 'PERMISSION_DENIED');
      }
    });

    it('needs X-Business-Id on article search (400) and one of the key tenant (403)', async () => {
      const { key: k, tenant } = await createKey({ scopes: ['search'] });
      assert.equal((await api('GET', '/v1/community/search/articles?text=reset', { key: k })).status, 400);
      assert.equal(
        (
          await api('GET', '/v1/community/search/articles?text=reset', {
            key: k,
            headers: { 'X-Business-Id': 'someone-else' },
          })
        ).status,
        403,
      );
      assert.equal(
        (await api('GET', '/v1/community/search/articles?text=reset', { key: k, headers: { 'X-Business-Id': tenant } }))
          .status,
        200,
      );
      const h = await getHarness();
      await h.keys.addBusiness({ businessId: `${tenant}-eu`, tenant });
      assert.equal(
        (
          await api('GET', '/v1/community/search/articles?text=reset', {
            key: k,
            headers: { 'X-Business-Id': `${tenant}-eu` },
          })
        ).status,
        200,
      );
    });
  });

  describe('errors', () => {
    it('answers 400 naming the field by JSON pointer', async () => {
      const res = await api('POST', '/v1/search/cases', { key, body: { query: 'x', numResults: 500 } });
      assert.equal(res.status, 400);
      assert.equal(res.body.status, 'INVALID_ARGUMENT');
      assert.match(res.body.error, /^\/numResults /);
    });

    it('answers 400 for a body that is not JSON', async () => {
      const res = await api('POST', '/v1/search/cases', { key, rawBody: '{"query": ' });
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 400);
    });

    it('answers 413 PAYLOAD_TOO_LARGE above 10 MB', async () => {
      const big = { articles: [{ ...ARTICLE, body: 'x'.repeat(11 * 1024 * 1024) }] };
      const res = await api('POST', '/v1/articles', { key, body: big });
      assert.equal(res.status, 413);
      assert.equal(res.body.status, 'PAYLOAD_TOO_LARGE');
    });

    it('answers 404 NOT_FOUND for an unknown path', async () => {
      const res = await api('GET', '/v1/nothing-here', { key });
      assert.equal(res.status, 404);
      assert.equal(res.body.status, 'NOT_FOUND');
    });

    it('returns X-Request-Id, echoing a sane one from the client', async () => {
      const res = await api('POST', '/v1/search/cases', { key, body: {}, headers: { 'X-Request-Id': 'req-123' } });
      assert.equal(res.headers.get('x-request-id'), 'req-123');
      const fresh = await api('GET', '/healthz');
      assert.match(fresh.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    });

    it('rejects a malformed Request-Timeout header', async () => {
      const res = await api('POST', '/v1/search/cases', {
        key,
        body: { query: 'x' },
        headers: { 'Request-Timeout': 'soon' },
      });
      assert.equal(res.status, 400);
      assert.match(res.body.error, /Request-Timeout/);
    });
  });

  describe('health and documents', () => {
    it('GET /healthz answers without a key', async () => {
      assert.equal((await api('GET', '/healthz')).status, 200);
    });

    it('GET /readyz reports Temporal, Weaviate and embeddings ready, and the chat engine', async () => {
      const res = await api('GET', '/readyz');
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.dependencies.temporal.ready, true);
      assert.equal(res.body.dependencies.weaviate.ready, true);
      assert.equal(res.body.dependencies.embeddings.ready, true);
      assert.equal(res.body.chat.engine, 'local');
    });

    it('GET /openapi.json serves version 1.2.0 with all twelve operations', async () => {
      const res = await api('GET', '/openapi.json');
      assert.equal(res.status, 200);
      assert.equal(res.body.openapi.startsWith('3.1'), true);
      assert.equal(res.body.info.version, '1.2.0');
      const ops = Object.entries(res.body.paths).flatMap(([path, methods]: [string, any]) =>
        Object.keys(methods)
          .filter((m) => ['get', 'post', 'delete'].includes(m))
          .map((m) => `${m.toUpperCase()} ${path}`),
      );
      for (const op of [
        'POST /v1/assistant/ask',
        'POST /v1/summary',
        'POST /v1/feedback',
        'POST /v1/tag',
        'POST /v1/sentiment',
        'POST /v1/articles',
        'DELETE /v1/articles',
        'POST /v1/cases',
        'POST /v1/incidents',
        'POST /v1/search/cases',
        'GET /v1/community/search/articles',
        'POST /v1/control/autoeval/evaluate',
      ]) {
        assert.ok(ops.includes(op), op);
      }
    });
  });
});
