/**
 * One tenant's heavy requests must not block another tenant's searches (issue 6, rows 2 and 9),
 * against the real stack: a 10,000-emoji query is cut to the model's window and answers 200, and
 * another tenant searching every 0.5 s meanwhile gets 200 every time; the same while a tenant
 * uploads. No timing is asserted: only that every request is answered, and answered 200.
 */
import { strict as assert } from 'node:assert';
import { before, describe, it } from 'mocha';
import { api, createKey } from '../helpers/harness';
import { supportCase } from '../helpers/factories';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `count` searches of one tenant, each started 500 ms after the previous one started. */
async function searchesEveryHalfSecond(key: string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = Date.now();
    const res = await api('POST', '/v1/search/cases', {
      key,
      body: { query: i % 2 ? 'printer wifi' : 'battery drains', limit: 3 },
    });
    statuses.push(res.status);
    await sleep(Math.max(0, 500 - (Date.now() - started)));
  }
  return statuses;
}

describe('fair sharing between tenants', () => {
  let attacker: string;
  let neighbour: string;

  before(async () => {
    ({ key: attacker } = await createKey());
    ({ key: neighbour } = await createKey());
    // Both tenants need stored cases: a search of a tenant without any answers before embedding.
    for (const key of [attacker, neighbour]) {
      const res = await api('POST', '/v1/cases', {
        key,
        body: { data: [supportCase(), supportCase({ subject: 'Laptop battery drains fast' })] },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }
  });

  it("answers a 10,000-emoji query with 200, and another tenant's concurrent searches all with 200", async () => {
    const long = api('POST', '/v1/search/cases', { key: attacker, body: { query: '😀'.repeat(10_000), limit: 1 } });
    const [attack, others] = await Promise.all([long, searchesEveryHalfSecond(neighbour, 10)]);
    assert.equal(attack.status, 200, JSON.stringify(attack.body));
    assert.ok(Array.isArray(attack.body.results) && attack.body.results.length <= 1);
    assert.deepEqual(others, Array(10).fill(200));
  });

  it('answers several long queries in a row with 200, and the other tenant still gets 200', async () => {
    const attacks = Promise.all(
      Array.from({ length: 4 }, () =>
        api('POST', '/v1/search/cases', { key: attacker, body: { query: '😀'.repeat(10_000), limit: 1 } }),
      ),
    );
    const [attackResults, others] = await Promise.all([attacks, searchesEveryHalfSecond(neighbour, 8)]);
    assert.deepEqual(
      attackResults.map((r) => r.status),
      [200, 200, 200, 200],
    );
    assert.deepEqual(others, Array(8).fill(200));
  });

  it("answers another tenant's searches with 200 while a tenant uploads", async () => {
    const { key: uploader } = await createKey();
    const cases = Array.from({ length: 64 }, (_, i) =>
      supportCase({
        subject: `Upload ${i}: the office printer loses its wifi connection after every firmware update`,
        description: 'A long description. '.repeat(40),
      }),
    );
    const upload = api('POST', '/v1/cases', { key: uploader, body: { data: cases } });
    await sleep(500); // the upload's embedding calls are queued by now
    const [uploaded, others] = await Promise.all([upload, searchesEveryHalfSecond(neighbour, 10)]);
    assert.equal(uploaded.status, 200, JSON.stringify(uploaded.body));
    assert.deepEqual(uploaded.body, { result: 'success' });
    assert.deepEqual(others, Array(10).fill(200));
  });
});
