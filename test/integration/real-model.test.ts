/**
 * Every model engine against a real model: the test stack's local llama.cpp server with a small
 * GGUF model (Gemma 3 270M; scripts/stack/chat_server.py). Without a fallback, each endpoint must
 * answer 200 with a valid result from the model: its replies are constrained by the schemas the
 * engines send and bounded by their max_tokens. Then, with CHAT_FALLBACK=local, the model server
 * is killed while it works on a request: the request is still answered, and the supervisor brings
 * the server back.
 */
import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'mocha';
import { loadServicesConfig } from '../../domain/config';
import { connectWeaviate } from '../../domain/weaviate/client';
import { tokenReport, utcDay, WeaviateTokenUsage } from '../../domain/weaviate/token-usage';
import { article } from '../helpers/factories';
import { api } from '../helpers/harness';
import { alive, holdPort } from '../helpers/processes';
import { startRealModelApp, type RealModelApp } from '../helpers/model-app';
import { cases, TRAINING, uploadAndTrain } from '../helpers/tagged-cases';

const ARTICLES = [
  article({
    articleId: 'refunds',
    title: 'Refunds on the monthly plan',
    body: 'You can get your money back within 14 days of a monthly plan payment. Open Billing, choose the payment and press Refund.',
  }),
  article({
    articleId: 'reset',
    title: 'Password reset email',
    body: 'If the password reset email never came, check the spam folder, then ask for a new one from the sign-in page.',
  }),
];

const CONVERSATION = {
  subject: 'Charged twice',
  comments: [
    { comment: 'Hi, I was charged twice for my monthly plan this month.' },
    { comment: 'Sorry about that! I can see two payments. I have refunded the second one.' },
    { comment: 'Thanks, when will I see the money?' },
    { comment: 'Within 5 business days on your card statement.' },
  ],
};

describe('the model engines against a real local model', function () {
  let m: RealModelApp;

  before(async function () {
    this.timeout(180_000);
    m = await startRealModelApp();
    const res = await api('POST', '/v1/articles', { key: m.harnessKey, body: { articles: ARTICLES } });
    assert.ok([200, 201].includes(res.status), JSON.stringify(res.body));
    const last = await uploadAndTrain(m.harnessKey, m.tenant, cases(TRAINING));
    assert.equal(last.run!.tags, 3);
  });

  after(async () => {
    await m?.close();
  });

  /** A 200 from the model itself: no fallback is configured, so anything else fails the request. */
  function answered(res: { status: number; body: any; headers: Headers }) {
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.headers.get('x-engine-fallback'), null);
    return res.body;
  }

  it('answers an ask, with links to the sources it cites, and a follow-up in the same session', async function () {
    this.timeout(300_000);
    const first = await m.post('/v1/assistant/ask', { query: 'can i get my money back on the monthly plan?' });
    const body = answered(first);
    assert.ok(['ai-answer-with-kb-links', 'no-answer'].includes(body.responseType), body.responseType);
    if (body.responseType !== 'no-answer') {
      assert.ok(body.plaintext.trim().length > 0);
      for (const link of body.links)
        assert.ok(
          ARTICLES.some((a) => a.url === link.url),
          link.url,
        );
    }
    const chatId = first.headers.get('chat-identifier')!;
    const followUp = await m.post('/v1/assistant/ask', { query: 'and how do I do it?' }, { 'Chat-Identifier': chatId });
    answered(followUp);
  });

  it('summarizes a conversation', async function () {
    this.timeout(300_000);
    const body = answered(await m.post('/v1/summary', CONVERSATION));
    assert.ok(typeof body.summary === 'string' && body.summary.trim().length > 0, JSON.stringify(body));
  });

  it('scores sentiment, the label following the score', async function () {
    this.timeout(300_000);
    const body = answered(
      await m.post('/v1/sentiment', { message: 'This is the third time my order is late. Awful.' }),
    );
    assert.ok(
      Number.isInteger(body.sentiment) && body.sentiment >= -100 && body.sentiment <= 100,
      JSON.stringify(body),
    );
    assert.ok(['Negative', 'Moderately Negative', 'Neutral', 'Moderately Positive', 'Positive'].includes(body.label));
  });

  it("tags from the tenant's vocabulary only", async function () {
    this.timeout(300_000);
    const body = answered(await m.post('/v1/tag', { message: 'My new card still has not arrived.' }));
    for (const t of body.tags) {
      assert.ok(Object.keys(TRAINING).includes(t.name), t.name);
      assert.ok(t.score >= 0 && t.score <= 1);
    }
  });

  it('grades an output against rules, one result per rule, by the model', async function () {
    this.timeout(300_000);
    const rules = [
      { id: 'polite', description: 'The answer is polite.' },
      { id: 'no-email', description: 'The answer contains no email address.', severity: 'critical' },
    ];
    const body = answered(
      await m.post('/v1/control/autoeval/evaluate', {
        messages: [{ role: 'user', content: 'When will I get my refund?' }],
        output: 'Your refund arrives within 5 business days. Write to help@example.com with questions.',
        rules,
      }),
    );
    assert.equal(body.judge, process.env.TEST_CHAT_MODEL ?? 'local');
    assert.deepEqual(body.rules.map((r: { ruleId: string }) => r.ruleId).sort(), ['no-email', 'polite']);
    assert.ok(['correct', 'defect'].includes(body.correctness.verdict));
  });

  it("counted every call's tokens for the tenant, per capability", async function () {
    this.timeout(30_000);
    const weaviate = () => connectWeaviate(loadServicesConfig(process.env).weaviate);
    const day = utcDay(Date.now());
    const capabilities = ['ask', 'summary', 'sentiment', 'tags', 'judge'];
    let rows = await tokenReport(new WeaviateTokenUsage(weaviate), { from: day, to: day, tenant: m.tenant });
    for (let i = 0; i < 50 && !capabilities.every((c) => rows.some((r) => r.capability === c)); i++) {
      await sleep(200);
      rows = await tokenReport(new WeaviateTokenUsage(weaviate), { from: day, to: day, tenant: m.tenant });
    }
    for (const c of capabilities) {
      const row = rows.find((r) => r.capability === c);
      assert.ok(row && row.promptTokens > 0 && row.completionTokens > 0, `${c}: ${JSON.stringify(rows)}`);
    }
  });
});

describe('the real local model killed mid-request, CHAT_FALLBACK=local', function () {
  let m: RealModelApp;
  const pidFile = () => path.join(process.env.SUPPORT_AI_TEST_DATA!, 'run', 'chat-model.pid');
  const port = () => Number(new URL(process.env.TEST_CHAT_URL!).port);
  const healthy = async () => {
    const base = process.env.TEST_CHAT_URL!.replace(/\/v1$/, '');
    return fetch(`${base}/health`).then(
      (r) => r.ok,
      () => false,
    );
  };

  before(async function () {
    this.timeout(60_000);
    m = await startRealModelApp({ CHAT_FALLBACK: 'local' });
  });

  after(async function () {
    this.timeout(120_000);
    await m?.close();
    // The next tests need the model back: the supervisor restarts it.
    for (let i = 0; i < 200 && !(await healthy()); i++) await sleep(500);
  });

  it('answers with the built-in engine, saying so, and the supervisor brings the server back', async function () {
    this.timeout(300_000);
    const pid = Number(fs.readFileSync(pidFile(), 'utf8'));
    // A long conversation: the model reads it for seconds, long enough to be killed while it does.
    const long = {
      subject: 'Charged twice',
      comments: Array.from({ length: 40 }, (_, i) => ({ comment: `${CONVERSATION.comments[i % 4].comment} (${i})` })),
    };
    const pending = m.post('/v1/summary', long);
    await sleep(700);
    process.kill(pid, 'SIGKILL');
    while (alive(pid)) await sleep(20);
    // The port held until the answer, as by a server slow to come back: the model's retry meets it too.
    const holder = await holdPort(port());
    let res;
    try {
      res = await pending;
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(res.body.summary.length > 0);
    assert.equal(res.headers.get('x-engine-fallback'), 'local');
    let back = false;
    for (let i = 0; i < 200 && !(back = await healthy()); i++) await sleep(500);
    assert.ok(back, 'the model server did not come back');
    assert.notEqual(Number(fs.readFileSync(pidFile(), 'utf8')), pid);
  });
});
