import assert from 'node:assert/strict';
import { after, before, describe, it } from 'mocha';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import Koa from 'koa';
import { ApiError } from '../../api/errors';
import { STEPPED_BODY_BYTES } from '../../api/event-loop-steps';
import { jsonBody } from '../../api/middlewares/body';
import { validate, type ValidatedState } from '../../api/middlewares/validate';
import { operation } from '../../api/schemas/operations';

/**
 * A large body is parsed and checked in steps: the event loop turns between them (a ticker that
 * counts its turns advances between the body being parsed and the handler), while a small body
 * goes through at once. The answers are the same either way.
 */
describe('a large request body is worked through in steps', () => {
  let server: Server;
  let base = '';
  let turns = 0;
  let ticking = false;
  const seen: { parsedAt: number; handledAt: number; bodyBytes?: number }[] = [];

  const tick = () => {
    turns += 1;
    if (ticking) setImmediate(tick);
  };

  before(async () => {
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
    let parsedAt = 0;
    app.use(jsonBody());
    app.use(async (_ctx, next) => {
      parsedAt = turns;
      await next();
    });
    app.use(validate(operation('uploadCases')));
    app.use((ctx) => {
      seen.push({ parsedAt, handledAt: turns, bodyBytes: ctx.state.bodyBytes });
      ctx.body = { cases: (ctx.state.input.body.data as unknown[]).length };
    });
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    ticking = true;
    setImmediate(tick);
  });
  after(() => {
    ticking = false;
    server.close();
  });

  const caseOf = (id: string, comment: string) => ({
    id,
    subject: 'Cannot log in',
    description: 'The login page hangs',
    status: 'open',
    comments: [{ commentId: 'c1', comment, commenter: 'customer', isPublic: true, timeOfCreation: 1 }],
  });

  const send = async (body: unknown | string) => {
    const res = await fetch(`${base}${operation('uploadCases').path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  it('serves the event loop between parsing and checking a large body', async () => {
    const comment = 'word '.repeat(20_000);
    const data = Array.from({ length: 10 }, (_, i) => caseOf(`case-${i}`, comment));
    seen.length = 0;
    const res = await send({ data });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, { cases: 10 });
    assert.ok(seen[0].bodyBytes! >= STEPPED_BODY_BYTES);
    assert.ok(seen[0].handledAt > seen[0].parsedAt, 'the loop turned between parsing and the handler');
  });

  it('takes a small body at once', async () => {
    seen.length = 0;
    const res = await send({ data: [caseOf('case-1', 'hello')] });
    assert.equal(res.status, 200);
    assert.equal(seen[0].handledAt, seen[0].parsedAt);
  });

  it('answers a large invalid body as before', async () => {
    const bad = `{"data": [${JSON.stringify(caseOf('x', 'word '.repeat(60_000)))}`;
    const res = await send(bad);
    assert.equal(res.status, 400);
    assert.match(JSON.stringify(res.body), /request body is not valid JSON/);
    // The same refusal as for a small body of the same shape.
    const small = await send({ data: 'x' });
    const large = await send({ data: 'x'.repeat(STEPPED_BODY_BYTES) });
    assert.equal(small.status, 400);
    assert.deepEqual(large, small);
  });
});
