import { strict as assert } from 'node:assert';
import { before, describe, it } from 'mocha';
import { api, createKey } from '../helpers/harness';
import { article } from '../helpers/factories';

const messages = [{ role: 'user', content: 'Where is my order?' }];
const evaluate = (key: string, output: string) =>
  api('POST', '/v1/control/autoeval/evaluate', { key, body: { messages, output } });

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
