import type { Client } from '@temporalio/client';
import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'mocha';
import { startServer } from '../../api/server';
import { MAX_RULES } from '../../domain/contracts/evaluation';
import { jsonBytes, MAX_GRADING_BYTES, TEXT_BYTES } from '../../domain/evaluation/evidence';
import { loadWorkerConfig } from '../../worker/config';
import { createWorker } from '../../worker/worker';
import { api, createKey, getHarness } from '../helpers/harness';
import { article } from '../helpers/factories';

const messages = [{ role: 'user', content: 'Where is my order?' }];
type Rule = { id: string; description: string; severity?: string };
const evaluate = (key: string, output: string) =>
  api('POST', '/v1/control/autoeval/evaluate', { key, body: { messages, output } });

/** Families whose explanations quote or list what they found, repeated up to 100 rules with ids of their own. */
const FAMILIES = [
  'The answer must not contain any email addresses.',
  'The answer must not contain any phone numbers.',
  'The answer must not contain any credit card numbers.',
  'The answer must not contain secrets such as API keys, tokens, private keys or passwords.',
  'The answer must not contain any links.',
  'The answer must contain a link.',
  'The answer only links to URLs that appear in the conversation or the provided sources.',
  'Wrap your entire response in a title in double angular brackets, such as <<poem of joy>>.',
  'The first paragraph must start with the word "hello".',
  'Finish your response with this exact phrase "Is there anything else I can help with?".',
];
const hundredRules: Rule[] = Array.from({ length: MAX_RULES }, (_, i) => ({
  id: `rule-${i}`,
  description: FAMILIES[i % FAMILIES.length],
  severity: i % 3 ? 'warning' : 'critical',
}));

/**
 * Issue: one evaluate of a megabyte built against the email pattern held the worker's only thread
 * for half an hour; every other tenant's work waited behind it.
 */
describe('a hostile evaluate never stalls another tenant', () => {
  let hostile: string;
  let other: string;
  before(async () => {
    ({ key: hostile } = await createKey());
    ({ key: other } = await createKey());
  });

  it("grades megabytes of adversarial output (default use case) while another tenant's evaluate and upload succeed", async () => {
    const attacks = [
      evaluate(hostile, 'a'.repeat(1_000_000)),
      evaluate(hostile, `http://${'a.'.repeat(499_990)}`),
      evaluate(hostile, 'a@'.repeat(500_000)),
    ];
    const upload = api('POST', '/v1/articles', {
      key: other,
      body: {
        articles: [
          article({ articleId: 'calm', title: 'Track an order', body: 'Open Orders to see where your parcel is.' }),
        ],
      },
    });
    const small = evaluate(other, 'Your order ships on Monday.');
    const [uploaded, graded] = await Promise.all([upload, small]);
    assert.equal(uploaded.status, 200, JSON.stringify(uploaded.body));
    assert.equal(graded.status, 200, JSON.stringify(graded.body));
    for (const res of await Promise.all(attacks)) {
      assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
      assert.ok(
        res.body.rules.some((r: any) => r.ruleId === 'no-email-addresses' && r.outcome === 'pass'),
        JSON.stringify(res.body.rules).slice(0, 500),
      );
    }
  });
});

/**
 * Issue 33: 100 rules over a megabyte of `a@b.c` (or of phone numbers) answered 500, the grading being larger than
 * Temporal's payload limit; over `http://a.b/` repeated, 504 after 36 s, its result refused three times; a 100 kB
 * output gave a 430 kB response. Every grading now fits (domain/evaluation/evidence.ts).
 */
describe('evaluate: the grading of 100 rules over hostile output is bounded and always answered', () => {
  let key: string;
  before(async () => {
    ({ key } = await createKey());
  });

  /** A 200 with every rule's explanation within its bound and the whole within MAX_GRADING_BYTES; or the documented 400 of the budget. */
  async function assertBounded(output: string) {
    const res = await api('POST', '/v1/control/autoeval/evaluate', {
      key,
      body: { messages, output, rules: hundredRules },
    });
    const bytes = Buffer.byteLength(JSON.stringify(res.body));
    assert.ok(res.status < 500, `${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
    assert.ok(bytes <= MAX_GRADING_BYTES, `${bytes} bytes`);
    if (res.status !== 200) {
      // Only a grading past its CPU budget may refuse (a busy machine): 400, not retried, in the error body.
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.match(res.body.error, /took longer than its budget/);
      return res;
    }
    assert.equal(res.body.rules.length, MAX_RULES);
    for (const r of res.body.rules)
      assert.ok(jsonBytes(r.explanation) <= TEXT_BYTES.explanation, `${r.ruleId}: ${r.explanation.length} characters`);
    return res;
  }

  it('a megabyte of a@b.c: the email rules fail, naming a few and counting the rest', async () => {
    const res = await assertBounded('a@b.c'.repeat(200_000));
    if (res.status === 200) {
      const email = res.body.rules.find((r: any) => r.ruleId === 'rule-0');
      assert.equal(email.outcome, 'fail');
      assert.match(email.explanation, /email addresses: .* and \d+ more$/);
    }
  });

  it('a megabyte of phone numbers', async () => {
    const res = await assertBounded('+1 555 123 4567 '.repeat(62_500));
    if (res.status === 200)
      assert.equal(res.body.rules.find((r: any) => r.ruleId === 'rule-1').outcome, 'fail', 'phone numbers found');
  });

  it('a megabyte of http://a.b/ repeated', async () => {
    const res = await assertBounded('http://a.b/'.repeat(90_909));
    if (res.status === 200)
      assert.equal(res.body.rules.find((r: any) => r.ruleId === 'rule-4').outcome, 'fail', 'a link found');
  });

  it('100 kB of a@b.c: a response in proportion to the rules, not to the output', async () => {
    const res = await assertBounded('a@b.c'.repeat(20_000));
    assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
    // Each rule says what it found in a short sentence: 100 of them stay far below the 100 kB of output.
    const bytes = Buffer.byteLength(JSON.stringify(res.body));
    assert.ok(bytes < 100_000 / 2, `${bytes} bytes`);
  });
});

/**
 * A grading past its CPU budget (WORKER_CPU_BUDGET_MS) answers the documented 400 at once: the input would fail
 * the same way again, so its activity is tried once, not three times. A worker and an API of their own, on a task
 * queue of their own, whose budget no grading can meet.
 */
describe('evaluate: a grading past its budget is a 400, tried once', () => {
  let baseUrl: string;
  let temporal: Client;
  let close: () => Promise<void>;
  before(async function () {
    this.timeout(300_000);
    const h = await getHarness();
    temporal = h.temporal;
    const taskQueue = `budget-${randomBytes(4).toString('hex')}`;
    const env = { ...process.env, TASK_QUEUE: taskQueue };
    const worker = await createWorker({
      config: loadWorkerConfig({ ...env, WORKER_CPU_BUDGET_MS: '1' }),
      connection: h.nativeConnection,
      workflowBundle: h.workflowBundle,
      taskQueue,
    });
    const running = worker.run();
    const api = await startServer(
      { ...env, API_PORT: '0', LOG_LEVEL: 'silent', KEY_CACHE_TTL_MS: '300' },
      { workflowBundle: h.workflowBundle },
    );
    baseUrl = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
    close = async () => {
      await api.close();
      worker.shutdown();
      await running;
    };
  });
  after(async () => {
    await close?.();
  });

  it('answers 400 with the budget in words, and its grading activity has one attempt', async () => {
    const { key, tenant } = await createKey();
    const res = await fetch(`${baseUrl}/v1/control/autoeval/evaluate`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ messages, output: 'http://a.b/'.repeat(90_909), rules: hundredRules }),
    });
    const body = await res.json();
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.match(body.error, /grading this output took longer than its budget/);
    const ids: string[] = [];
    while (!ids.length) {
      for await (const w of temporal.workflow.list({ query: `TenantId="${tenant}"` })) ids.push(w.workflowId);
      if (!ids.length) await sleep(200);
    }
    const events = (await temporal.workflow.getHandle(ids[0]).fetchHistory()).events ?? [];
    const attempts = events
      .filter((e) => e.activityTaskStartedEventAttributes)
      .map((e) => e.activityTaskStartedEventAttributes!.attempt);
    assert.deepEqual(attempts, [1], 'one attempt');
    assert.ok(
      events.some((e) => e.activityTaskFailedEventAttributes),
      'the activity failed',
    );
  });
});
