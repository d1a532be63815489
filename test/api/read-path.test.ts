/**
 * The read path (api/read-path.ts): searches run in the API process with the timeouts and bounded
 * retries their activity had, against the real Weaviate and embedding server; the faults are a
 * port that accepts and never answers, and a port nothing listens on.
 */
import { strict as assert } from 'node:assert';
import net from 'node:net';
import { after, before, describe, it } from 'mocha';
import { loadServicesConfig } from '../../domain/config';
import { createEmbedder } from '../../domain/models/embeddings';
import { connectWeaviate } from '../../domain/weaviate/client';
import { searchCases } from '../../domain/weaviate/retrieve';
import { ApiError } from '../../api/errors';
import { ReadRunner, type ReadPolicy } from '../../api/read-path';
import { supportCase } from '../helpers/factories';
import { api, createKey } from '../helpers/harness';

/** Short, so a test takes seconds; the production numbers are in READ_POLICY. */
const POLICY: ReadPolicy = {
  attemptTimeoutMs: 400,
  totalTimeoutMs: 3000,
  maxAttempts: 3,
  initialIntervalMs: 50,
  backoffCoefficient: 2,
};

const weaviate = () => connectWeaviate(loadServicesConfig().weaviate);
const runnerWith = (embeddingsUrl?: string) =>
  new ReadRunner(
    {
      weaviate,
      embedder: createEmbedder({
        ...loadServicesConfig().embeddings,
        ...(embeddingsUrl ? { baseUrl: embeddingsUrl, queryBaseUrl: embeddingsUrl } : {}),
      }),
    },
    POLICY,
  );

async function failure(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof ApiError, `not an ApiError: ${err}`);
    return err;
  }
  assert.fail('the read succeeded');
}

describe('the read path', () => {
  let tenant: string;
  let key: string;
  let hanging: net.Server;
  let connections = 0;
  let hangingUrl: string;

  before(async () => {
    ({ key, tenant } = await createKey());
    assert.equal((await api('POST', '/v1/cases', { key, body: { data: [supportCase()] } })).body.result, 'success');
    hanging = net.createServer((socket) => {
      connections += 1;
      socket.on('data', () => undefined); // reads the request, never answers
    });
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    hangingUrl = `http://127.0.0.1:${(hanging.address() as net.AddressInfo).port}/v1`;
  });
  after(() => hanging.close());

  const input = (o: { conversationId?: string } = {}) => ({
    tenant,
    query: 'printer',
    productIds: [],
    filterUrls: [],
    offset: 0,
    limit: 5,
    ...o,
  });

  it('answers from the real services', async () => {
    const { result, timing } = await runnerWith().run({
      operation: 'search-cases',
      tenant,
      deadline: Date.now() + 10_000,
      read: (d) => searchCases(d, input()),
    });
    assert.equal(result.length, 1);
    assert.equal(timing.attempts, 1);
  });

  it('answers 504 when a dependency hangs, after three attempts', async () => {
    connections = 0;
    const err = await failure(
      runnerWith(hangingUrl).run({
        operation: 'search-cases',
        tenant,
        deadline: Date.now() + 10_000,
        read: (d) => searchCases(d, input()),
      }),
    );
    assert.equal(err.code, 504);
    assert.equal(err.message, 'a dependency did not answer in time');
    assert.equal(connections, 3);
  });

  it('answers 503 when a dependency refuses connections, after its retries', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as net.AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const err = await failure(
      runnerWith(`http://127.0.0.1:${port}/v1`).run({
        operation: 'search-cases',
        tenant,
        deadline: Date.now() + 10_000,
        read: (d) => searchCases(d, input()),
      }),
    );
    assert.equal(err.code, 503);
    assert.equal(err.message, 'the model service is unavailable');
  });

  it("answers 408 when the request's deadline comes first", async () => {
    const err = await failure(
      runnerWith(hangingUrl).run({
        operation: 'search-cases',
        tenant,
        deadline: Date.now() + 600,
        read: (d) => searchCases(d, input()),
      }),
    );
    assert.equal(err.code, 408);
  });

  it('takes a deadline that is not a whole number of milliseconds (Request-Timeout: 0.8476253436403008)', async () => {
    const err = await failure(
      runnerWith(hangingUrl).run({
        operation: 'search-cases',
        tenant,
        deadline: Date.now() + 847.625244140625,
        read: (d) => searchCases(d, input()),
      }),
    );
    assert.equal(err.code, 408);
  });

  it('does not retry an unknown conversationId: 404 at once', async () => {
    connections = 0;
    const err = await failure(
      runnerWith(hangingUrl).run({
        operation: 'search-cases',
        tenant,
        deadline: Date.now() + 10_000,
        read: (d) => searchCases(d, input({ conversationId: 'nope' })),
      }),
    );
    assert.equal(err.code, 404);
    assert.equal(connections, 0, 'the embedding server was never called');
  });

  it('finds a tenant created after an earlier search saw none', async () => {
    const { key: k } = await createKey();
    const search = () => api('POST', '/v1/search/cases', { key: k, body: { query: 'printer' } });
    assert.deepEqual((await search()).body.results, []);
    assert.equal((await api('POST', '/v1/cases', { key: k, body: { data: [supportCase()] } })).body.result, 'success');
    assert.equal((await search()).body.results.length, 1);
  });

  it('tells where the time went in Server-Timing', async () => {
    const res = await api('POST', '/v1/search/cases', { key, body: { query: 'printer' } });
    assert.match(
      res.headers.get('server-timing') ?? '',
      /^tenant;dur=[\d.]+, embed;dur=[\d.]+, hybrid;dur=[\d.]+, read;dur=\d+;desc="1 attempt"$/,
    );
  });
});
