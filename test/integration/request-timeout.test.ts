/**
 * One deadline rule for every endpoint (docs/api.md, "Deadlines"): an answer that is ready only
 * once the request's deadline has passed is a 408, whatever it would have been. The smallest
 * positive `Request-Timeout` (5e-324 s) is a deadline of now, so every operation that takes the
 * header answers 408, also those whose work never waits (the local summary and tag engines).
 * The same request without the header succeeds, so the 408 is the deadline's.
 */
import { strict as assert } from 'node:assert';
import { before, describe, it } from 'mocha';
import { operations } from '../../api/schemas/operations';
import { article, incident, supportCase } from '../helpers/factories';
import { api, createKey } from '../helpers/harness';

const TINY = { 'Request-Timeout': '5e-324' };

interface Call {
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

describe('Request-Timeout: one rule for every endpoint', () => {
  let key: string;
  let tenant: string;
  let answerId: string;
  const stored = supportCase();
  const kept = article();

  before(async () => {
    ({ key, tenant } = await createKey());
    for (const [path, body] of [
      ['/v1/articles', { articles: [kept] }],
      ['/v1/cases', { data: [stored] }],
    ] as const) {
      const res = await api('POST', path, { key, body });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }
    const asked = await api('POST', '/v1/assistant/ask', { key, body: { query: 'How do I reset my password?' } });
    assert.equal(asked.status, 200, JSON.stringify(asked.body));
    answerId = asked.body.id;
  });

  /** A request per operation that succeeds without the header. */
  const calls = (): Record<string, Call> => ({
    ask: { method: 'POST', path: '/v1/assistant/ask', body: { query: 'How do I reset my password?' } },
    summarize: {
      method: 'POST',
      path: '/v1/summary',
      body: { subject: 'Printer offline', description: 'The office printer lost its wifi after the update.' },
    },
    sendFeedback: { method: 'POST', path: '/v1/feedback', body: { id: answerId, feedbackDetails: '+1 helpful' } },
    tagConversation: { method: 'POST', path: '/v1/tag', body: { message: 'My card has not arrived' } },
    analyzeSentiment: { method: 'POST', path: '/v1/sentiment', body: { message: 'Thanks, that fixed it!' } },
    uploadArticles: { method: 'POST', path: '/v1/articles', body: { articles: [kept] } },
    deleteArticles: { method: 'DELETE', path: '/v1/articles', body: { articles: [{ articleId: 'never-uploaded' }] } },
    uploadCases: { method: 'POST', path: '/v1/cases', body: { data: [stored] } },
    uploadIncident: { method: 'POST', path: '/v1/incidents', body: incident() },
    searchCases: { method: 'POST', path: '/v1/search/cases', body: { query: 'printer wifi', limit: 3 } },
    searchArticles: {
      method: 'GET',
      path: '/v1/community/search/articles?text=reset%20password',
      headers: { 'X-Business-Id': tenant },
    },
    evaluate: {
      method: 'POST',
      path: '/v1/control/autoeval/evaluate',
      body: {
        messages: [{ role: 'user', content: 'Hi' }],
        output: 'Hello!',
        rules: [{ id: 'short', description: 'The answer should contain less than 50 words.' }],
      },
    },
  });

  it('covers every operation that takes the header', () => {
    const takers = operations
      .filter((op) => op.headers?.some((h) => h.name === 'Request-Timeout'))
      .map((op) => op.operationId);
    assert.deepEqual(Object.keys(calls()).sort(), [...takers].sort());
  });

  for (const op of operations.filter((o) => o.headers?.some((h) => h.name === 'Request-Timeout'))) {
    it(`${op.operationId}: 408 with Request-Timeout 5e-324, 2xx without`, async () => {
      const call = calls()[op.operationId];
      const late = await api(call.method, call.path, { key, body: call.body, headers: { ...call.headers, ...TINY } });
      assert.equal(late.status, 408, JSON.stringify(late.body));
      assert.deepEqual([late.body.code, late.body.status], [408, 'REQUEST_TIMEOUT']);
      assert.match(late.body.error, /deadline/);
      const onTime = await api(call.method, call.path, { key, body: call.body, headers: call.headers });
      assert.ok(onTime.status >= 200 && onTime.status < 300, `${onTime.status} ${JSON.stringify(onTime.body)}`);
    });
  }
});
