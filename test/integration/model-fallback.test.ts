/**
 * When the chat model fails, CHAT_FALLBACK=local answers with the built-in engine and says so;
 * every model call's tokens are counted per tenant, summed by `npm run tokens`, and a tenant's
 * daily budget ends in a 429 (the test model server, which can be told to fail and reports usage).
 */
import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'mocha';
import { loadServicesConfig } from '../../domain/config';
import { connectWeaviate } from '../../domain/weaviate/client';
import { tokenReport, utcDay, WeaviateTokenUsage } from '../../domain/weaviate/token-usage';
import { SCOPES } from '../../api/scopes';
import { article } from '../helpers/factories';
import { api } from '../helpers/harness';
import { startModelApp, type ModelApp } from '../helpers/model-app';
import { runScript } from '../helpers/run-script';

const conversation = {
  subject: 'Card not arrived',
  comments: [
    { comment: 'My new card has not arrived after two weeks.' },
    { comment: 'Sorry about that, I ordered a replacement that arrives in five days.' },
  ],
};
const rules = [{ id: 'polite', description: 'The answer is polite.' }];

describe('the chat model fails, CHAT_FALLBACK=local', () => {
  let m: ModelApp;

  before(async () => {
    m = await startModelApp({ CHAT_FALLBACK: 'local' });
    const res = await api('POST', '/v1/articles', {
      key: m.harnessKey,
      body: {
        articles: [article({ articleId: 'refunds', title: 'Refunds', body: 'Refunds are issued within 14 days.' })],
      },
    });
    assert.ok([200, 201].includes(res.status), JSON.stringify(res.body));
  });

  after(async () => {
    await m?.close();
  });

  it('answers summary and sentiment with the built-in engine, saying so, while the model fails', async () => {
    m.chat.mode = { kind: 'fail', status: 500 };
    // Tag takes the same path (read-route.ts); its model needs the tenant's trained vocabulary first.
    const calls: [string, unknown][] = [
      ['/v1/summary', conversation],
      ['/v1/sentiment', { message: 'My card has not arrived and I am angry.' }],
    ];
    for (const [path, body] of calls) {
      m.chat.requests.length = 0;
      const res = await m.post(path, body);
      assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
      assert.equal(res.headers.get('x-engine-fallback'), 'local', path);
      assert.ok(m.chat.requests.length >= 1, `${path}: the model was tried first`);
    }
    // The model answers, but nothing the engine can use (out of its range): the built-in engine answers too.
    m.chat.mode = { kind: 'answer', content: JSON.stringify({ sentiment: 500 }) };
    const unusable = await m.post('/v1/sentiment', { message: 'My card has not arrived and I am angry.' });
    assert.equal(unusable.status, 200, JSON.stringify(unusable.body));
    assert.equal(unusable.headers.get('x-engine-fallback'), 'local');
    // The model answers again: it is used again, and nothing says fallback.
    m.chat.mode = { kind: 'answer', content: JSON.stringify({ sentiment: 80 }) };
    const back = await m.post('/v1/sentiment', { message: 'Thanks, all good now.' });
    assert.deepEqual(back.body, { sentiment: 80, label: 'Positive' });
    assert.equal(back.headers.get('x-engine-fallback'), null);
  });

  it('answers an ask with the built-in engine, and its execution records why', async () => {
    m.chat.mode = { kind: 'malformed' };
    const res = await m.post('/v1/assistant/ask', { query: 'How long do refunds take?' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.headers.get('x-engine-fallback'), 'local');
    assert.match(res.body.plaintext, /14 days/);
    const handle = m.app.temporal.workflow.getHandle(`ask:${m.tenant}:${res.body.id}`);
    const result = await handle.result();
    assert.equal(result.engine, 'local');
    assert.match(result.fallback.reason, /could not be read|failed/);
  });

  it('grades with the built-in judge when the model judge fails, and names it', async () => {
    m.chat.mode = { kind: 'fail', status: 429 };
    const res = await m.post('/v1/control/autoeval/evaluate', {
      messages: [{ role: 'user', content: 'Where is my card?' }],
      output: 'It arrives in five days.',
      rules,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.headers.get('x-engine-fallback'), 'local');
    assert.notEqual(res.body.judge, 'test-model');
    assert.equal(res.body.fallback, undefined, 'the body is the spec’s, nothing more');
    assert.deepEqual(
      res.body.rules.map((r: { ruleId: string }) => r.ruleId),
      ['polite'],
    );
  });

  it('falls back from a stalled model before the request deadline', async () => {
    m.chat.mode = { kind: 'stall' };
    const res = await m.post('/v1/sentiment', { message: 'Where is my parcel?' }, { 'Request-Timeout': '8' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.headers.get('x-engine-fallback'), 'local');
  });
});

describe('model tokens: accounting and the daily budget', () => {
  let m: ModelApp;
  const weaviate = () => connectWeaviate(loadServicesConfig(process.env).weaviate);

  before(async () => {
    // The test server reports 11 prompt and 3 completion tokens a call: the third call reaches 42.
    m = await startModelApp({ CHAT_TOKENS_PER_DAY: '30', TOKEN_SYNC_MS: '200', READ_LOG_FLUSH_MS: '200' });
    m.chat.mode = { kind: 'answer', content: JSON.stringify({ sentiment: 0 }) };
  });

  after(async () => {
    await m?.close();
  });

  it("counts each call's tokens for its tenant and answers 429 once the day's budget is spent", async () => {
    for (let i = 0; i < 3; i++) {
      const res = await m.post('/v1/sentiment', { message: `Call ${i}` });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }
    const spent = await m.post('/v1/sentiment', { message: 'One more' });
    assert.equal(spent.status, 429);
    assert.match(spent.body.error, /budget of 30 tokens a day is spent \(42 today, UTC\)/);
    const retryAfter = Number(spent.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 86_400, `Retry-After ${retryAfter}`);
    // Another tenant's budget is its own.
    const { key } = await m.app.keys.create({ tenant: `${m.tenant}-other`, scopes: [...SCOPES] });
    const other = await fetch(`${m.app.baseUrl}/v1/sentiment`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ message: 'hello' }),
    });
    assert.equal(other.status, 200);
  });

  it('stores the counts in the shared store, where the operator command sums them', async () => {
    const day = utcDay(Date.now());
    let rows = await tokenReport(new WeaviateTokenUsage(weaviate), { from: day, to: day, tenant: m.tenant });
    for (let i = 0; i < 50 && rows[0]?.calls !== 3; i++) {
      await new Promise((r) => setTimeout(r, 100));
      rows = await tokenReport(new WeaviateTokenUsage(weaviate), { from: day, to: day, tenant: m.tenant });
    }
    assert.deepEqual(rows, [
      {
        day,
        tenant: m.tenant,
        capability: 'sentiment',
        model: 'test-model',
        promptTokens: 33,
        completionTokens: 9,
        calls: 3,
      },
    ]);
    const out = runScript('scripts/tokens.ts', '--tenant', m.tenant, '--json');
    assert.equal(out.code, 0, out.stderr);
    assert.deepEqual(JSON.parse(out.stdout.trim()), {
      ...rows[0],
      day: new Date(Date.now()).toISOString().slice(0, 10),
    });
    // The tenant's read log in the Temporal Web UI counts them too, with the reads that spent them.
    let totals: Record<string, { count: number; promptTokens?: number; completionTokens?: number }> = {};
    for (let i = 0; i < 40 && totals.sentiment?.promptTokens !== 33; i++) {
      await new Promise((r) => setTimeout(r, 250));
      const log = await m.app.temporal.workflow
        .getHandle(`reads:${m.tenant}`)
        .describe()
        .catch(() => undefined);
      totals = (log?.memo?.totals as typeof totals | undefined) ?? {};
    }
    assert.deepEqual(totals.sentiment, { count: 3, failed: 0, timedOut: 0, promptTokens: 33, completionTokens: 9 });
    const bad = runScript('scripts/tokens.ts', '--from', '2026-13-45');
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /YYYY-MM-DD/);
  });
});
