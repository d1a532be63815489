/**
 * Limits that must hold across API instances, the limit on failed authentications per address,
 * and what the API logs for client and server errors (issue "Hardening", row 12 and its notes).
 */
import { strict as assert } from 'node:assert';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'mocha';
import pino from 'pino';
import { loadServicesConfig } from '../../domain/config';
import { createEmbedder } from '../../domain/models/embeddings';
import { ApiKeyStore } from '../../domain/weaviate/api-keys';
import { connectWeaviate } from '../../domain/weaviate/client';
import { WeaviateRateCounts } from '../../domain/weaviate/rate-counts';
import { DEFAULT_USE_CASES_DIR, UseCaseStore } from '../../domain/evaluation/use-cases';
import { createChatGateway } from '../../domain/models/chat';
import { createApp } from '../../api/app';
import { listen } from '../../api/http-server';
import { cachedVerifier } from '../../api/middlewares/auth';
import { ReadRunner } from '../../api/read-path';
import { WorkflowRunner } from '../../api/workflow-runner';
import { apiInstance, createKey, getHarness, type ApiInstance } from '../helpers/harness';
import { awayFromWindowEnd } from '../helpers/rate-window';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A request that passes authentication and the rate limit, then fails validation (cheap: no workflow). */
const invalidSearch = (url: string, key: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/v1/search/cases`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...headers },
    body: '{}',
  });

describe('limits across API instances', () => {
  const instances: ApiInstance[] = [];
  after(async () => {
    for (const instance of instances) await instance.close();
  });

  it('holds the per-key rate limit across two instances sharing the store', async () => {
    const settings = { RATE_LIMIT_PER_MINUTE: '10', RATE_LIMIT_SYNC_MS: '100' };
    const a = await apiInstance(settings);
    const b = await apiInstance(settings);
    instances.push(a, b);
    const { key } = await createKey({ scopes: ['search'] });
    const keyId = key.split('_')[1];
    await awayFromWindowEnd();
    for (let i = 0; i < 10; i++) assert.equal((await invalidSearch(a.url, key)).status, 400);
    // Wait until instance a has published its ten requests (what b reads on its first sight of the key).
    const counts = new WeaviateRateCounts(() => connectWeaviate(loadServicesConfig().weaviate));
    const window = Math.floor(Date.now() / 60_000);
    for (
      let tries = 0;
      (await counts.othersCounts({ instance: 'test', window, subjects: [`key:${keyId}`] })).get(`key:${keyId}`) !== 10;
      tries++
    ) {
      assert.ok(tries < 100, 'instance a never published its counts');
      await sleep(100);
    }
    const refused = await invalidSearch(b.url, key);
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    assert.equal((await refused.json()).status, 'RESOURCE_EXHAUSTED');
  });

  it('throttles the invalid keys of an address after too many, never a valid key, and only that address', async () => {
    const c = await apiInstance({ AUTH_FAILURES_PER_MINUTE: '5', TRUST_PROXY: 'true' });
    instances.push(c);
    const { key } = await createKey({ scopes: ['search'] });
    const attacker = { 'X-Forwarded-For': '203.0.113.9' };
    await awayFromWindowEnd();
    for (let i = 0; i < 5; i++)
      assert.equal((await invalidSearch(c.url, `sai_00000000_guess${i}`, attacker)).status, 401);
    const blocked = await invalidSearch(c.url, `sai_00000000_guess5`, attacker);
    assert.equal(blocked.status, 429);
    assert.match(
      (await blocked.json()).error,
      /^too many requests with invalid API keys from this address; retry after \d+ s$/,
    );
    // A valid key from the same address (behind the same proxy or NAT) goes on: only failures are throttled.
    assert.equal((await invalidSearch(c.url, key, attacker)).status, 400);
    assert.equal((await invalidSearch(c.url, `sai_00000000_guess6`, attacker)).status, 429);
    assert.equal(
      (await invalidSearch(c.url, `sai_00000000_guess7`, { 'X-Forwarded-For': '203.0.113.10' })).status,
      401,
    );
    // Requests without a key are answered 401 as before, and never counted.
    const anonymous = await fetch(`${c.url}/v1/search/cases`, {
      method: 'POST',
      headers: { ...attacker, 'Content-Type': 'application/json' },
      body: '{}',
    });
    assert.equal(anonymous.status, 401);
  });
});

describe('logging of errors', () => {
  const lines: Array<Record<string, any>> = [];
  let url: string;
  let close: () => void;

  before(async () => {
    const h = await getHarness();
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const weaviate = () => connectWeaviate(loadServicesConfig().weaviate);
    const app = createApp({
      runner: new WorkflowRunner(h.temporal, h.taskQueue),
      chat: createChatGateway(undefined),
      chatTimeoutMs: 30_000,
      useCases: new UseCaseStore(DEFAULT_USE_CASES_DIR),
      reads: new ReadRunner({ weaviate, embedder: createEmbedder(loadServicesConfig().embeddings) }),
      verifier: cachedVerifier(new ApiKeyStore(weaviate), 300),
      // A readiness probe that breaks: the one way to reach a 500 without breaking a service.
      readiness: async () => {
        throw new Error('probe exploded');
      },
      logger: pino({ level: 'info' }, sink),
    });
    const server = await listen(app, { port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => server.close();
  });
  after(() => close());

  it('logs client errors at info with their message and no stack, server errors at error with the stack', async () => {
    const { key } = await createKey();
    const send = (path: string, body: string, headers: Record<string, string> = { Authorization: `Bearer ${key}` }) =>
      fetch(`${url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body });
    assert.equal((await send('/v1/search/cases', '{"numResults": 500}')).status, 400);
    assert.equal((await send('/v1/search/cases', '{}', {})).status, 401);
    assert.equal((await fetch(`${url}/readyz`)).status, 500);
    await sleep(100);
    const requests = lines.filter((l) => l.msg === 'request');
    for (const status of [400, 401]) {
      const line = requests.find((l) => l.status === status);
      assert.ok(line, `no request line for ${status}`);
      assert.equal(line.level, 30);
      assert.ok(line.error, `the ${status} line carries the message`);
      assert.equal(JSON.stringify(line).includes('"stack"'), false);
    }
    const errorLines = lines.filter((l) => l.level >= 50);
    assert.equal(errorLines.length, 1, JSON.stringify(errorLines));
    assert.match(errorLines[0].err.stack, /probe exploded/);
  });
});
