/**
 * What a hostile client found (issue "Hardening", rows 1 and 4 to 8, 10 to 12), reproduced against
 * the real stack: each case failed before its fix.
 */
import { strict as assert } from 'node:assert';
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { before, describe, it } from 'mocha';
import { loadServicesConfig } from '../../domain/config';
import { connectWeaviate } from '../../domain/weaviate/client';
import { COLLECTIONS } from '../../domain/weaviate/collections';
import { objectId } from '../../domain/weaviate/ingest';
import { api, createKey, getHarness } from '../helpers/harness';
import { article, incident, supportCase } from '../helpers/factories';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A request with full control of method, headers and bytes (fetch refuses TRACE and huge headers). */
async function raw(o: {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
}): Promise<RawResponse> {
  const { baseUrl } = await getHarness();
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${baseUrl}${o.path}`, { method: o.method, headers: o.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

/** The response is the documented error body with this status. */
function assertErrorBody(
  res: { status: number; text: string; headers: RawResponse['headers'] },
  status: number,
): { error: string } {
  assert.equal(res.status, status, res.text);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const body = JSON.parse(res.text);
  assert.deepEqual(Object.keys(body).sort(), ['code', 'error', 'status']);
  assert.equal(body.code, status);
  return body;
}

/** JSON nested `levels` deep: `[[[...]]]`. */
const nestedArrays = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

describe('hardening', () => {
  let key: string;
  before(async () => {
    ({ key } = await createKey());
  });
  const auth = () => ({ Authorization: `Bearer ${key}` });

  describe('integers beyond 2^53 - 1 (row 1)', () => {
    it('refuses them at upload, naming the field', async () => {
      const cases = await api('POST', '/v1/cases', {
        key,
        rawBody: `{"data": [{"id": "big", "timeOfCreation": 9007199254740993}]}`,
      });
      assert.equal(cases.status, 400);
      assert.equal(cases.body.error, '/data/0/timeOfCreation must be <= 9007199254740991');
      const articles = await api('POST', '/v1/articles', {
        key,
        body: { articles: [article({ timeLastPublished: 2 ** 60 })] },
      });
      assert.equal(articles.status, 400);
      assert.match(articles.body.error, /\/articles\/0\/timeLastPublished must be <= 9007199254740991/);
    });

    it('keeps searches answering when a stored case already holds one', async () => {
      const { key: k, tenant: t } = await createKey();
      const poisoned = supportCase({ subject: 'Printer offline after firmware update' });
      const healthy = supportCase({ subject: 'Printer offline again' });
      assert.equal(
        (await api('POST', '/v1/cases', { key: k, body: { data: [poisoned, healthy] } })).body.result,
        'success',
      );
      // What an upload accepted before the bound leaves in the store.
      const client = await connectWeaviate(loadServicesConfig().weaviate);
      await client.collections
        .use(COLLECTIONS.supportCase)
        .withTenant(t)
        .data.update({ id: objectId(t, 'case', poisoned.id), properties: { timeOfCreation: 2 ** 60 } });
      const res = await api('POST', '/v1/search/cases', { key: k, body: { query: 'printer offline', limit: 10 } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const ids = res.body.results.map((r: { id: string }) => r.id);
      assert.deepEqual(ids.sort(), [healthy.id, poisoned.id].sort());
      for (const hit of res.body.results) assert.equal(hit.timeOfCreation, undefined);
    });
  });

  describe('deeply nested free-form objects (row 4)', () => {
    it('answers 400 naming custom_fields when it nests 6,000 arrays', async () => {
      const res = await api('POST', '/v1/cases', {
        key,
        rawBody: `{"data": [{"id": "deep", "custom_fields": {"a": ${nestedArrays(6000)}}}]}`,
      });
      assert.equal(res.status, 400);
      assert.equal(res.body.error, '/data/0/custom_fields nests objects or arrays deeper than 32 levels');
    });

    it('answers 400 naming postmortem when it is 100,000 levels deep', async () => {
      const body = JSON.stringify(incident()).replace(/}$/, `, "postmortem": {"x": ${nestedArrays(100_000)}}}`);
      const res = await api('POST', '/v1/incidents', { key, rawBody: body });
      assert.equal(res.status, 400);
      assert.equal(res.body.error, '/postmortem nests objects or arrays deeper than 32 levels');
    });
  });

  describe('text that is not valid Unicode (row 5)', () => {
    it('answers 400 for a lone surrogate, never an upstream message', async () => {
      const res = await api('POST', '/v1/search/cases', { key, rawBody: '{"query": "\\ud800x"}' });
      assert.equal(res.status, 400);
      assert.equal(
        res.body.error,
        '/query is not valid Unicode text (it holds a lone UTF-16 surrogate such as \\ud800)',
      );
      const upload = await api('POST', '/v1/cases', {
        key,
        rawBody: '{"data": [{"id": "c", "subject": "ok \\udfff"}]}',
      });
      assert.equal(upload.status, 400);
      assert.match(upload.body.error, /^\/data\/0\/subject is not valid Unicode/);
    });

    it('still accepts emoji and other surrogate pairs', async () => {
      const res = await api('POST', '/v1/search/cases', { key, rawBody: '{"query": "printer \\ud83d\\ude00"}' });
      assert.equal(res.status, 200);
    });
  });

  describe('links and sniffing (row 6)', () => {
    it('refuses javascript: and other non-web URLs in every url field', async () => {
      const bad = 'javascript:alert(1)';
      const art = await api('POST', '/v1/articles', { key, body: { articles: [article({ url: bad })] } });
      assert.equal(art.status, 400);
      assert.equal(art.body.error, '/articles/0/url must be an http or https URL');
      const c = await api('POST', '/v1/cases', { key, body: { data: [supportCase({ url: 'data:text/html,x' })] } });
      assert.equal(c.body.error, '/data/0/url must be an http or https URL');
      const links = await api('POST', '/v1/cases', {
        key,
        body: { data: [supportCase({ kb_links: ['https://ok.example.com', 'vbscript:x'] })] },
      });
      assert.equal(links.body.error, '/data/0/kb_links/1 must be an http or https URL');
    });

    it('sends X-Content-Type-Options: nosniff on every response', async () => {
      for (const res of [
        await api('GET', '/healthz'),
        await api('POST', '/v1/search/cases', { key, body: { query: 'x' } }),
        await api('POST', '/v1/search/cases', { body: { query: 'x' } }),
        await api('GET', '/nowhere'),
      ]) {
        assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      }
    });
  });

  describe('content encoding (row 7)', () => {
    it('answers 400 to a body that does not match its encoding, 415 to an unknown encoding, and reads real gzip', async () => {
      const headers = { ...auth(), 'Content-Type': 'application/json' };
      for (const encoding of ['gzip', 'deflate', 'br']) {
        const wrong = await raw({
          method: 'POST',
          path: '/v1/search/cases',
          headers: { ...headers, 'Content-Encoding': encoding },
          body: '{"query": "x"}',
        });
        assert.equal(
          assertErrorBody(wrong, 400).error,
          'request body could not be decoded with its Content-Encoding',
          encoding,
        );
      }
      const unknown = await raw({
        method: 'POST',
        path: '/v1/search/cases',
        headers: { ...headers, 'Content-Encoding': 'compress' },
        body: '{"query": "x"}',
      });
      assertErrorBody(unknown, 415);
      const gzip = await raw({
        method: 'POST',
        path: '/v1/search/cases',
        headers: { ...headers, 'Content-Encoding': 'gzip' },
        body: gzipSync('{"query": "printer"}'),
      });
      assert.equal(gzip.status, 200, gzip.text);
    });
  });

  describe('responses the HTTP layer writes (row 8)', () => {
    it('answers 431 with the error body to headers or a URL over 16 KB', async () => {
      assertErrorBody(
        await raw({ method: 'GET', path: '/healthz', headers: { Authorization: `Bearer ${'k'.repeat(17_000)}` } }),
        431,
      );
      assertErrorBody(
        await raw({ method: 'GET', path: `/v1/community/search/articles?text=${'a'.repeat(90_000)}` }),
        431,
      );
    });

    it('answers 405 with Allow to a wrong method on a known path, TRACE included', async () => {
      for (const method of ['PUT', 'PATCH', 'TRACE', 'GET']) {
        const res = await raw({ method, path: '/v1/articles', headers: auth() });
        const body = assertErrorBody(res, 405);
        assert.equal(res.headers.allow, 'POST, DELETE, OPTIONS');
        assert.match(body.error, new RegExp(`^${method} is not allowed on /v1/articles`));
      }
      const search = await raw({ method: 'DELETE', path: '/v1/community/search/articles' });
      assert.equal(search.headers.allow, 'HEAD, GET, OPTIONS');
      assertErrorBody(search, 405);
    });

    it('answers OPTIONS with 204 and Allow, an unknown path with 404, a malformed method with 400', async () => {
      const options = await raw({ method: 'OPTIONS', path: '/v1/search/cases' });
      assert.equal(options.status, 204);
      assert.equal(options.headers.allow, 'POST, OPTIONS');
      assert.equal(options.text, '');
      assertErrorBody(await raw({ method: 'TRACE', path: '/v1/nothing-here' }), 404);
      assertErrorBody(await raw({ method: 'FOO', path: '/v1/articles' }), 400);
    });
  });

  describe('media types (row 10)', () => {
    it('answers 415 to text, form, multipart and missing content types on JSON endpoints', async () => {
      for (const contentType of [
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        undefined,
      ]) {
        const headers: Record<string, string> = { ...auth() };
        if (contentType) headers['Content-Type'] = contentType;
        const res = await raw({ method: 'POST', path: '/v1/search/cases', headers, body: '{"query": "x"}' });
        const body = assertErrorBody(res, 415);
        assert.equal(
          body.error,
          'the request body must be JSON, sent with Content-Type: application/json (or another +json type)',
        );
      }
      const charset = await raw({
        method: 'POST',
        path: '/v1/search/cases',
        headers: { ...auth(), 'Content-Type': 'application/json; charset=utf-8' },
        body: '{"query": "x"}',
      });
      assert.equal(charset.status, 200);
    });
  });

  describe('prototype keys (row 11)', () => {
    it('says that __proto__ is refused, not that the JSON is invalid', async () => {
      for (const body of [
        '{"query": "x", "__proto__": {"admin": true}}',
        '{"query": "x", "filterUrls": [{"__proto__": {}}]}',
      ]) {
        const res = await api('POST', '/v1/search/cases', { key, rawBody: body });
        assert.equal(res.status, 400);
        assert.equal(res.body.error, 'request body must not use the key "__proto__"');
      }
      assert.equal(
        (await api('POST', '/v1/search/cases', { key, rawBody: '{"query": ' })).body.error,
        'request body is not valid JSON',
      );
    });
  });
});
