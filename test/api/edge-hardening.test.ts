/**
 * What a hostile tenant found at the API's edge (issue "Hardening, round 3", findings 4 to 7),
 * reproduced against the real stack: each case failed before its fix.
 */
import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { after, before, describe, it } from 'mocha';
import { api, apiInstance, createKey, getHarness, type ApiInstance } from '../helpers/harness';
import { article, supportCase } from '../helpers/factories';
import { awayFromWindowEnd } from '../helpers/rate-window';

/** The bidirectional formatting characters no answer may carry. */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

interface Answered {
  status: number;
  body: { error: string; code: number; status: string };
  /** Whether the client had finished sending its body when the answer came. */
  bodySent: boolean;
}

/**
 * A POST whose chunked body is sent `chunkBytes` at a time, `pauseMs` apart, `chunks` times, then
 * ended; resolves with the answer as soon as it comes, and says whether the whole body had been
 * sent by then. With `chunks: Infinity` the body never ends.
 */
function streamingPost(o: {
  url: string;
  path: string;
  headers: Record<string, string>;
  chunks: number;
  chunkBytes: number;
  pauseMs: number;
}): Promise<Answered> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let ended = false;
    let answered = false;
    const chunk = Buffer.alloc(o.chunkBytes, ' ');
    const req = httpRequest(
      `${o.url}${o.path}`,
      { method: 'POST', headers: { 'Content-Type': 'application/json', ...o.headers } },
      (res: IncomingMessage) => {
        answered = true;
        const bodySent = ended;
        const parts: Buffer[] = [];
        res.on('data', (c) => parts.push(c));
        res.on('end', () => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString('utf8')), bodySent });
        });
      },
    );
    // Once the server has answered it may close the connection while the client still writes.
    req.on('error', (err) => (answered ? undefined : reject(err)));
    req.write('{"query": "');
    const send = () => {
      if (answered || req.destroyed) return;
      if (sent >= o.chunks) {
        ended = true;
        req.end('"}');
        return;
      }
      sent++;
      req.write(chunk, () => setTimeout(send, o.pauseMs));
    };
    send();
  });
}

function assertErrorBody(res: { status: number; body: Answered['body'] }, status: number): void {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.deepEqual(Object.keys(res.body).sort(), ['code', 'error', 'status']);
  assert.equal(res.body.code, status);
}

describe('edge hardening (issue 33)', () => {
  let key: string;
  before(async () => {
    ({ key } = await createKey());
  });

  describe('the key is checked before the body is read (finding 4)', () => {
    it('answers 401 and 403 while a 9 MB body is still being sent, without reading it', async () => {
      const { baseUrl } = await getHarness();
      const { key: noScope } = await createKey({ scopes: ['ask'] });
      for (const [headers, status] of [
        [{}, 401],
        [{ Authorization: `Bearer sai_00000000_${randomBytes(24).toString('base64url')}` }, 401],
        [{ Authorization: `Bearer ${noScope}` }, 403],
      ] as const) {
        // 9 MB over 9 s: an API that reads the body first answers only once it has all of it.
        const res = await streamingPost({
          url: baseUrl,
          path: '/v1/search/cases',
          headers,
          chunks: 9,
          chunkBytes: 1 << 20,
          pauseMs: 1000,
        });
        assertErrorBody(res, status);
        assert.equal(res.bodySent, false, 'the API waited for the whole body before it checked the key');
      }
      // The connection's discarded body did not stop the API: it answers at once.
      assert.equal((await api('GET', '/healthz')).status, 200);
    });

    describe('a body that does not arrive in time', () => {
      let instance: ApiInstance;
      before(async () => {
        instance = await apiInstance({ REQUEST_RECEIVE_TIMEOUT_MS: '1500' });
      });
      after(async () => instance?.close());

      it('answers 408 with the error body when the body never ends (REQUEST_RECEIVE_TIMEOUT_MS)', async () => {
        const res = await streamingPost({
          url: instance.url,
          path: '/v1/search/cases',
          headers: { Authorization: `Bearer ${key}` },
          chunks: Infinity,
          chunkBytes: 1024,
          pauseMs: 200,
        });
        assertErrorBody(res, 408);
        assert.equal(res.body.error, 'the request was not received in time');
        assert.equal(res.bodySent, false);
      });

      it('still reads a body that arrives whole in time', async () => {
        const res = await fetch(`${instance.url}/v1/search/cases`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ query: 'printer' }),
        });
        assert.equal(res.status, 200, await res.text());
      });
    });
  });

  describe('failed keys do not lock out valid ones (finding 5)', () => {
    let instance: ApiInstance;
    before(async () => {
      instance = await apiInstance({ AUTH_FAILURES_PER_MINUTE: '3', TRUST_PROXY: 'true' });
    });
    after(async () => instance?.close());

    it('throttles the invalid keys of an address, never a valid key from it', async () => {
      const { key: valid } = await createKey({ scopes: ['search'] });
      // An address of its own for this run: counts are shared through the store.
      const from = { 'X-Forwarded-For': `10.${randomBytes(3).join('.')}` };
      const search = (k: string) =>
        fetch(`${instance.url}/v1/search/cases`, {
          method: 'POST',
          headers: { ...from, Authorization: `Bearer ${k}`, 'Content-Type': 'application/json' },
          body: '{"numResults": 500}',
        });
      const guess = () => search(`sai_00000000_${randomBytes(24).toString('base64url')}`);
      await awayFromWindowEnd();
      for (let i = 0; i < 3; i++) assert.equal((await guess()).status, 401);
      const throttled = await guess();
      assert.equal(throttled.status, 429);
      assert.match(
        (await throttled.json()).error,
        /^too many requests with invalid API keys from this address; retry after \d+ s$/,
      );
      // The valid key goes on (its request is checked and refused for its body, 400), every time.
      for (let i = 0; i < 3; i++) {
        const res = await search(valid);
        assert.equal(res.status, 400, await res.text());
      }
      assert.equal((await guess()).status, 429);
    });
  });

  describe('the agent view follows from the key (finding 6)', () => {
    it('answers 403 to author "agent" from a key without the search scope; customer questions and scoped keys go on', async () => {
      const { key: askOnly } = await createKey({ scopes: ['ask'] });
      const agent = await api('POST', '/v1/assistant/ask', {
        key: askOnly,
        body: { query: 'The label printer prints blank labels', author: 'agent' },
      });
      assertErrorBody(agent, 403);
      assert.match(agent.body.error, /lacks the scope "search", which the agent view/);
      const customer = await api('POST', '/v1/assistant/ask', {
        key: askOnly,
        body: { query: 'The label printer prints blank labels', author: 'customer' },
      });
      assert.equal(customer.status, 200, JSON.stringify(customer.body));
      const { key: agentKey } = await createKey({ scopes: ['ask', 'search'] });
      const scoped = await api('POST', '/v1/assistant/ask', {
        key: agentKey,
        body: { query: 'The label printer prints blank labels', author: 'agent' },
      });
      assert.equal(scoped.status, 200, JSON.stringify(scoped.body));
    });
  });

  describe('smaller findings (finding 7)', () => {
    it('shows no bidirectional formatting character in an answer or a summary (7a)', async () => {
      const { key: k } = await createKey();
      const hidden = article({
        title: 'Password \u202ereset\u202c link \u2067moc.live\u2069',
        body: 'To reset your \u202epassword\u202c, open Settings\u200f and choose Reset password. We email you a reset \u2066link\u2069.',
      });
      const upload = await api('POST', '/v1/articles', { key: k, body: { articles: [hidden] } });
      assert.equal(upload.status, 200, JSON.stringify(upload.body));
      const res = await api('POST', '/v1/assistant/ask', { key: k, body: { query: 'How do I reset my password?' } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.links[0]?.url, hidden.url, JSON.stringify(res.body));
      assert.equal(res.body.links[0].text, 'Password reset link moc.live');
      for (const field of ['plaintext', 'mdText', 'htmltext', 'links', 'urls'])
        assert.doesNotMatch(JSON.stringify(res.body[field]), BIDI, field);
      const summary = await api('POST', '/v1/summary', {
        key: k,
        body: { subject: 'Refund \u202eof my order\u202c', description: 'I want my money \u2067back\u2069 now.' },
      });
      assert.equal(summary.status, 200, JSON.stringify(summary.body));
      assert.doesNotMatch(summary.body.summary, BIDI);
    });

    it('reads every +json media type as JSON (7b)', async () => {
      const { baseUrl } = await getHarness();
      for (const type of ['application/merge-patch+json', 'application/vnd.foo+json; charset=utf-8']) {
        const res = await fetch(`${baseUrl}/v1/search/cases`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': type },
          body: '{"query": "printer", "numResults": 500}',
        });
        // Read as JSON: the answer is about the body's numResults, not about a body that is missing.
        assert.equal(res.status, 400, type);
        assert.equal((await res.json()).error, '/numResults must be <= 100', type);
      }
    });

    it('answers 400 to a body that is not valid UTF-8, instead of replacing its bytes (7c)', async () => {
      const { baseUrl } = await getHarness();
      for (const bytes of [Buffer.from([0xff]), Buffer.from([0xc3]), Buffer.from([0xed, 0xa0, 0x80])]) {
        const res = await fetch(`${baseUrl}/v1/search/cases`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body: Buffer.concat([Buffer.from('{"query": "printer '), bytes, Buffer.from('"}')]),
        });
        const body = await res.json();
        assertErrorBody({ status: res.status, body }, 400);
        assert.equal(body.error, 'request body is not valid UTF-8');
      }
    });

    it('takes Request-Timeout only as a decimal number (7d)', async () => {
      for (const value of ['0x10', '0b1', '0o7', '.5', '1.', '1_0', 'Infinity']) {
        const res = await api('POST', '/v1/search/cases', {
          key,
          body: { query: 'printer' },
          headers: { 'Request-Timeout': value },
        });
        assertErrorBody(res, 400);
        assert.match(res.body.error, /Request-Timeout must be a positive decimal number of seconds/, value);
      }
      for (const value of ['10', '2.5', '1e1']) {
        const res = await api('POST', '/v1/search/cases', {
          key,
          body: { query: 'printer' },
          headers: { 'Request-Timeout': value },
        });
        assert.equal(res.status, 200, `${value}: ${JSON.stringify(res.body)}`);
      }
    });

    it('refuses links with a user name or password, or an encoded CR/LF (7e)', async () => {
      for (const [url, message] of [
        ['https://user:pass@help.example.com/x', /\/articles\/0\/url must not carry a user name or password/],
        ['https://help.example.com@evil.example/x', /\/articles\/0\/url must not carry a user name or password/],
        ['https://help.example.com/x%0d%0aSet-Cookie:%20a=b', /\/articles\/0\/url must not contain an encoded control/],
        ['https://help.example.com/x?q=%0A', /\/articles\/0\/url must not contain an encoded control/],
      ] as const) {
        const res = await api('POST', '/v1/articles', { key, body: { articles: [article({ url })] } });
        assertErrorBody(res, 400);
        assert.match(res.body.error, message, url);
      }
      const caseLink = await api('POST', '/v1/cases', {
        key,
        body: { data: [supportCase({ url: 'http://a:b@support.example.com/1' })] },
      });
      assertErrorBody(caseLink, 400);
      assert.match(caseLink.body.error, /\/data\/0\/url must not carry a user name or password/);
    });
  });
});
