import { strict as assert } from 'node:assert';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'mocha';
import { startServer } from '../../api/server';
import { supportCase } from '../helpers/factories';
import { api, createKey, getHarness } from '../helpers/harness';

describe('rate limiting', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  before(async () => {
    await getHarness();
    server = await startServer({ ...process.env, API_PORT: '0', LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '3' });
  });
  after(async () => server?.close());

  it('answers 429 RESOURCE_EXHAUSTED with Retry-After once a key exceeds its limit, per key', async () => {
    const { key } = await createKey({ scopes: ['search'] });
    const { key: other } = await createKey({ scopes: ['search'] });
    const url = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}/v1/search/cases`;
    const call = (k: string) =>
      fetch(url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${k}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
    for (let i = 0; i < 3; i++) assert.equal((await call(key)).status, 400);
    const limited = await call(key);
    assert.equal(limited.status, 429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.equal((await limited.json()).status, 'RESOURCE_EXHAUSTED');
    assert.equal((await call(other)).status, 400, 'another key has its own budget');
  });
});

describe('workflows for operators', () => {
  it('carry the TenantId and Operation search attributes, so runs can be filtered per customer', async () => {
    const { key, tenant } = await createKey();
    const upload = await api('POST', '/v1/cases', { key, body: { data: [supportCase()] } });
    assert.equal(upload.status, 200);
    for (let i = 0; i < 3; i++)
      assert.equal((await api('POST', '/v1/search/cases', { key, body: { query: 'printer' } })).status, 200);
    const h = await getHarness();
    // The upload's run, and the tenant's read log, which counts the three searches (sent every 200 ms here).
    const expected = [`reads:${tenant}`];
    let seen: string[] = [];
    let searches = 0;
    for (let i = 0; i < 40 && !(seen.length === 2 && searches === 3); i++) {
      await new Promise((r) => setTimeout(r, 250));
      seen = [];
      for await (const wf of h.temporal.workflow.list({ query: `TenantId="${tenant}"` })) seen.push(wf.workflowId);
      const log = await h.temporal.workflow
        .getHandle(expected[0])
        .describe()
        .catch(() => undefined);
      searches = (log?.memo?.totals as Record<string, { count: number }> | undefined)?.['search-cases']?.count ?? 0;
    }
    assert.equal(seen.length, 2, seen.join(', '));
    assert.ok(seen.includes(expected[0]), 'the read log is listed under the tenant');
    assert.equal(searches, 3, 'the read log counts every search');
    const uploads: { id: string; memo?: Record<string, unknown> }[] = [];
    for await (const wf of h.temporal.workflow.list({ query: `TenantId="${tenant}" AND Operation="cases-upsert"` }))
      uploads.push({ id: wf.workflowId, memo: wf.memo });
    assert.equal(uploads.length, 1);
    assert.match(uploads[0].id, new RegExp(`^cases-upsert:${tenant}:`));
    assert.equal(
      uploads[0].memo?.requestId,
      upload.headers.get('x-request-id'),
      'the run names the request that started it',
    );

    // The Web UI (run by `npm test` too) lists the same runs through its own API.
    const ui = process.env.TEMPORAL_UI_URL;
    if (!ui) return;
    const query = encodeURIComponent(`TenantId="${tenant}"`);
    const res = await fetch(`${ui}/api/v1/namespaces/default/workflows?query=${query}`);
    assert.equal(res.status, 200);
    const listed = ((await res.json()).executions ?? []).map((e: any) => e.execution.workflowId).sort();
    assert.deepEqual(listed, [...seen].sort());
  });
});
