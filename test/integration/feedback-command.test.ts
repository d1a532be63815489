import { strict as assert } from 'node:assert';
import { before, describe, it } from 'mocha';
import { runScript } from '../helpers/run-script';
import { api, createKey } from '../helpers/harness';
import { article } from '../helpers/factories';

const feedback = (...args: string[]) => runScript('scripts/feedback.ts', ...args);

describe('npm run feedback (operator command)', function () {
  this.timeout(120_000);
  let tenant: string;
  const answers: Record<string, string> = {};

  before(async () => {
    const created = await createKey();
    tenant = created.tenant;
    const upload = await api('POST', '/v1/articles', {
      key: created.key,
      body: { articles: [article({ articleId: 'reset' })] },
    });
    assert.equal(upload.status, 200);
    for (const [name, query, details] of [
      ['liked', 'How do I reset my password?', '+1 that worked'],
      ['disliked', 'Where do I reset my password?', 'not helpful: the link never arrives'],
    ]) {
      const res = await api('POST', '/v1/assistant/ask', { key: created.key, body: { query } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      answers[name] = res.body.id;
      const sent = await api('POST', '/v1/feedback', {
        key: created.key,
        body: { id: res.body.id, feedbackDetails: details },
      });
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
    }
  });

  it('lists answers with their feedback and rating, newest first, as JSON', () => {
    const out = feedback('--tenant', tenant, '--json');
    assert.equal(out.code, 0, out.stderr);
    const listed = out.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      listed.map((a) => a.answerId),
      [answers.disliked, answers.liked],
    );
    assert.deepEqual(
      listed.map((a) => a.feedback.map((f: any) => f.rating)),
      [[-1], [1]],
    );
    assert.equal(listed[1].question, 'How do I reset my password?');
    assert.equal(listed[1].sources[0].id, 'reset');
  });

  it('keeps only negative feedback with --negative, and nothing before --since', () => {
    const negative = feedback('--tenant', tenant, '--negative');
    assert.equal(negative.code, 0, negative.stderr);
    assert.match(negative.stdout, new RegExp(`answer ${answers.disliked}`));
    assert.match(negative.stdout, /feedback -1 .*: not helpful: the link never arrives/);
    assert.doesNotMatch(negative.stdout, new RegExp(answers.liked));
    const future = feedback('--tenant', tenant, '--since', '2999-01-01');
    assert.match(future.stdout, /no answers for tenant/);
  });

  it('refuses a bad date or tenant with a clear message', () => {
    const bad = feedback('--tenant', tenant, '--since', 'yesterday-ish');
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /expected a date/);
    assert.match(feedback('--tenant', 'no spaces').stderr, /tenant must match/);
  });
});
