import assert from 'node:assert/strict';
import { after, before, describe, it } from 'mocha';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import { ApiError } from '../../api/errors';
import { validate, type ValidatedState } from '../../api/middlewares/validate';
import { operation, type OperationId } from '../../api/schemas/operations';

/** A Koa app that runs validate(operation) and echoes ctx.state.input, rendering ApiErrors. */
function echoApp(operationId: OperationId): Koa<ValidatedState> {
  const app = new Koa<ValidatedState>();
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      ctx.status = err.code;
      ctx.body = err.toBody();
    }
  });
  app.use(bodyParser({ enableTypes: ['json'], strict: true }));
  app.use(validate(operation(operationId)));
  app.use((ctx) => {
    ctx.body = ctx.state.input;
  });
  return app;
}

describe('validate(operation)', () => {
  const servers: Server[] = [];
  const base: Partial<Record<OperationId, string>> = {};

  before(async () => {
    for (const id of ['ask', 'uploadCases', 'deleteArticles', 'searchArticles'] as const) {
      const server = createServer(echoApp(id).callback());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.push(server);
      base[id] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    }
  });
  after(() => servers.forEach((server) => server.close()));

  const send = async (
    id: OperationId,
    init: { path?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const op = operation(id);
    const res = await fetch(`${base[id]}${init.path ?? op.path}`, {
      method: op.method,
      headers: { 'content-type': 'application/json', ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  it('puts the cleaned body and declared headers in ctx.state.input', async () => {
    const chat = '3f2b8c1e-7a4d-4e2b-9c1f-2a6b7d8e9f00';
    const res = await send('ask', {
      body: { query: 'How do I reset my password?', future: 'ignored' },
      headers: { 'Chat-Identifier': chat, 'X-Language-Iso-Code': 'de', 'Request-Timeout': '2.5', 'X-Other': 'x' },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      body: { query: 'How do I reset my password?' },
      query: {},
      headers: { 'Chat-Identifier': chat, 'X-Language-Iso-Code': 'de', 'Request-Timeout': 2.5 },
    });
  });

  it('answers 400 naming the body field by JSON pointer', async () => {
    const res = await send('ask', { body: { query: 42 } });
    assert.deepEqual(res, {
      status: 400,
      body: { error: '/query must be string', code: 400, status: 'INVALID_ARGUMENT' },
    });
  });

  it('answers 400 when the body is not a JSON object, or is missing', async () => {
    const array = await send('ask', { body: [{ query: 'q' }] });
    assert.equal(array.body.error, 'request body must be a JSON object');
    const missing = await send('ask');
    assert.equal(missing.body.error, '/query is required');
  });

  it('answers 400 naming a bad header', async () => {
    const res = await send('ask', { body: { query: 'q' }, headers: { 'Chat-Identifier': 'not-a-uuid' } });
    assert.equal(res.body.error, 'header Chat-Identifier must match format "uuid"');
  });

  it('validates only the envelope of an upload, and answers 413 above 1,000 items', async () => {
    const ok = await send('uploadCases', { body: { data: [{ no: 'id yet' }] } });
    assert.deepEqual(ok.body.body, { data: [{ no: 'id yet' }] });
    const tooMany = await send('uploadCases', { body: { data: Array.from({ length: 1001 }, () => ({})) } });
    assert.deepEqual(tooMany, {
      status: 413,
      body: { error: '/data must NOT have more than 1000 items', code: 413, status: 'PAYLOAD_TOO_LARGE' },
    });
  });

  it('reads the JSON body of DELETE /v1/articles', async () => {
    const res = await send('deleteArticles', { body: { articles: [{ articleId: 'kb-1' }] } });
    assert.deepEqual(res.body.body, { articles: [{ articleId: 'kb-1' }] });
  });

  it('coerces and defaults query parameters and requires X-Business-Id on article search', async () => {
    const path = '/v1/community/search/articles?text=reset&offset=5&utm=x';
    const res = await send('searchArticles', { path, headers: { 'X-Business-Id': 'acme' } });
    assert.deepEqual(res.body, {
      query: { text: 'reset', offset: 5, limit: 25 },
      headers: { 'X-Business-Id': 'acme' },
    });
    const noHeader = await send('searchArticles', { path });
    assert.equal(noHeader.body.error, 'header X-Business-Id is required');
    const tooBig = await send('searchArticles', { path: `${path}&limit=101`, headers: { 'X-Business-Id': 'acme' } });
    assert.equal(tooBig.body.error, 'query parameter limit must be <= 100');
  });
});
