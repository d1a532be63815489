/**
 * The embedding scheduler's order (domain/models/embedding-scheduler.ts): queries before
 * passages, tenants in turn, each tenant's calls in order, passages not starved, aborted calls
 * leaving the queue, and waiting calls of one batcher sent together, tenants in turn within the
 * batch and its cost bound. Calls are promises the test settles by hand, so no timing is involved.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'mocha';
import { Batcher, CallKind, EmbeddingScheduler } from '../../domain/models/embedding-scheduler';
import { passageBatches, sharesOf } from '../../domain/models/embeddings';
import { tokenBound } from '../../domain/models/token-window';

/** A scheduler whose calls record their start and wait until the test finishes them. */
function harness(o: { maxInFlight?: number; passageEvery?: number } = {}) {
  const scheduler = new EmbeddingScheduler({ maxInFlight: o.maxInFlight ?? 1, passageEvery: o.passageEvery });
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  const submit = (name: string, tenant: string, kind: CallKind, signal?: AbortSignal) =>
    scheduler.run({ tenant, kind, signal }, () => {
      started.push(name);
      return new Promise<string>((resolve) => finishers.set(name, () => resolve(name)));
    });
  const flush = () => new Promise((r) => setImmediate(r));
  /** Finishes the named running call and lets the next one start. */
  const finish = async (name: string) => {
    const f = finishers.get(name);
    assert.ok(f, `${name} is not running (started: ${started.join(', ')})`);
    f();
    await flush();
  };
  /** Finishes calls in start order until none runs; returns the full start order. */
  const drain = async () => {
    for (let i = 0; i < started.length; i++) await finish(started[i]);
    return started;
  };
  return { scheduler, started, submit, finish, drain, flush };
}

describe('embedding scheduler', () => {
  it('tells each call when it goes to the server, not while it waits (onStart)', async () => {
    const h = harness();
    const events: string[] = [];
    const batcher: Batcher<string, string> = { maxCost: 0, send: async (items) => items };
    void h.submit('busy', 'x', 'query');
    await h.flush();
    const waiting = h.scheduler.runBatched({
      tenant: 'y',
      kind: 'query',
      item: 'q',
      cost: 1,
      batcher,
      onStart: () => events.push('started'),
    });
    await h.flush();
    assert.deepEqual(events, [], 'onStart ran while the call waited behind another');
    await h.finish('busy');
    assert.equal(await waiting, 'q');
    assert.deepEqual(events, ['started']);
  });

  it('keeps at most maxInFlight calls at the server', async () => {
    const h = harness({ maxInFlight: 2 });
    for (const n of ['a', 'b', 'c', 'd']) void h.submit(n, 't', 'passage');
    assert.deepEqual(h.started, ['a', 'b']);
    assert.equal(h.scheduler.running, 2);
    assert.deepEqual(h.scheduler.pending, { query: 0, passage: 2 });
    await h.finish('a');
    assert.deepEqual(h.started, ['a', 'b', 'c']);
  });

  it('serves waiting queries before waiting passages', async () => {
    const h = harness();
    void h.submit('p1', 'up', 'passage');
    void h.submit('p2', 'up', 'passage');
    void h.submit('p3', 'up', 'passage');
    void h.submit('q1', 'searcher', 'query');
    void h.submit('q2', 'other', 'query');
    assert.deepEqual(await h.drain(), ['p1', 'q1', 'q2', 'p2', 'p3']);
  });

  it('gives tenants turns, one call each, keeping each tenant order', async () => {
    const h = harness();
    void h.submit('first', 'x', 'passage'); // occupies the server while the others queue
    for (let i = 1; i <= 3; i++) void h.submit(`a${i}`, 'a', 'passage');
    void h.submit('b1', 'b', 'passage');
    void h.submit('c1', 'c', 'passage');
    void h.submit('b2', 'b', 'passage');
    assert.deepEqual(await h.drain(), ['first', 'a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
  });

  it("puts a heavy tenant's queries in turn with a light tenant's", async () => {
    const h = harness();
    void h.submit('busy', 'x', 'query');
    for (let i = 1; i <= 4; i++) void h.submit(`heavy${i}`, 'heavy', 'query');
    void h.submit('light1', 'light', 'query');
    const order = await h.drain();
    assert.equal(order.indexOf('light1'), 2, `light1 goes right after heavy's first call: ${order.join(', ')}`);
  });

  it('lets one passage call through after passageEvery queries in a row', async () => {
    const h = harness({ passageEvery: 2 });
    void h.submit('busy', 'x', 'query');
    void h.submit('p1', 'up', 'passage');
    for (let i = 1; i <= 5; i++) void h.submit(`q${i}`, 's', 'query');
    assert.deepEqual(await h.drain(), ['busy', 'q1', 'q2', 'p1', 'q3', 'q4', 'q5']);
  });

  it('drops a waiting call whose signal aborts, and never starts it', async () => {
    const h = harness();
    void h.submit('busy', 'x', 'passage');
    const abort = new AbortController();
    const dropped = h.submit('dropped', 't', 'query', abort.signal);
    void h.submit('next', 't', 'query');
    abort.abort(new Error('gave up'));
    await assert.rejects(dropped, /gave up/);
    assert.deepEqual(h.scheduler.pending, { query: 1, passage: 0 });
    assert.deepEqual(await h.drain(), ['busy', 'next']);
  });

  it('frees the place of a call that fails', async () => {
    const scheduler = new EmbeddingScheduler({ maxInFlight: 1 });
    await assert.rejects(
      scheduler.run({ tenant: 't', kind: 'query' }, async () => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.equal(await scheduler.run({ tenant: 't', kind: 'query' }, async () => 'ok'), 'ok');
    assert.equal(scheduler.running, 0);
  });
});

/**
 * A scheduler with batchers whose server calls record their items (each item a name whose cost is
 * its length) and wait until the test finishes them; a finished call answers each item with its
 * name in capitals, so a caller that got another's output shows.
 */
function batchHarness(o: { maxCost: number }) {
  const scheduler = new EmbeddingScheduler({ maxInFlight: 1 });
  const calls: { items: string[]; signal: AbortSignal; finish: () => void }[] = [];
  const batcher = (): Batcher<string, string> => ({
    maxCost: o.maxCost,
    send: (items, signal) =>
      new Promise((resolve) => calls.push({ items, signal, finish: () => resolve(items.map((i) => i.toUpperCase())) })),
  });
  const queries = batcher();
  const submit = (item: string, tenant: string, o2: { batcher?: Batcher<string, string>; signal?: AbortSignal } = {}) =>
    scheduler.runBatched({
      tenant,
      kind: 'query',
      item,
      cost: item.length,
      batcher: o2.batcher ?? queries,
      signal: o2.signal,
    });
  const flush = () => new Promise((r) => setImmediate(r));
  /** Finishes the oldest unfinished server call and lets the next one start. */
  let finished = 0;
  const finishNext = async () => {
    calls[finished++].finish();
    await flush();
  };
  /** Finishes calls in order until none is left; returns each call's items. */
  const drain = async () => {
    while (finished < calls.length) await finishNext();
    return calls.map((c) => c.items);
  };
  return { scheduler, calls, batcher, submit, finishNext, drain };
}

describe('embedding scheduler: batches', () => {
  it('sends the queries waiting behind a call as one call, each caller getting its own output', async () => {
    const h = batchHarness({ maxCost: 100 });
    const answers = [h.submit('busy', 'x'), h.submit('a1', 'a'), h.submit('b1', 'b'), h.submit('c1', 'c')];
    assert.deepEqual(
      h.calls.map((c) => c.items),
      [['busy']],
    );
    assert.deepEqual(h.scheduler.pending, { query: 3, passage: 0 });
    assert.deepEqual(await h.drain(), [['busy'], ['a1', 'b1', 'c1']]);
    assert.deepEqual(await Promise.all(answers), ['BUSY', 'A1', 'B1', 'C1']);
    assert.equal(h.scheduler.running, 0);
  });

  it("takes tenants in turn within a batch, each tenant's oldest first, up to the cost bound", async () => {
    // Costs are lengths: 'h1'..'h5' and 'l1' cost 2 each, so a batch holds 3 of them (6).
    const h = batchHarness({ maxCost: 6 });
    void h.submit('busy', 'x');
    for (let i = 1; i <= 5; i++) void h.submit(`h${i}`, 'heavy');
    void h.submit('l1', 'light');
    assert.deepEqual(await h.drain(), [['busy'], ['h1', 'l1', 'h2'], ['h3', 'h4', 'h5']]);
  });

  it('sends a call above the bound alone, and a tenant whose call does not fit goes first next time', async () => {
    const h = batchHarness({ maxCost: 6 });
    void h.submit('busy', 'x');
    void h.submit('a1', 'a');
    void h.submit('bbbbb', 'b'); // 5: does not fit beside a1 (2 + 5 > 6)
    void h.submit('c1', 'c');
    void h.submit('dddddddd', 'd'); // 8: above the bound, alone
    void h.submit('a2', 'a');
    assert.deepEqual(await h.drain(), [['busy'], ['a1', 'c1', 'a2'], ['bbbbb'], ['dddddddd']]);
  });

  it('never mixes calls of different batchers (queries and passages a request waits for)', async () => {
    const h = batchHarness({ maxCost: 100 });
    const passages = h.batcher();
    void h.submit('busy', 'x');
    void h.submit('q1', 'a');
    void h.submit('p1', 'b', { batcher: passages });
    void h.submit('q2', 'c');
    void h.submit('p2', 'd', { batcher: passages });
    assert.deepEqual(await h.drain(), [['busy'], ['q1', 'q2'], ['p1', 'p2']]);
  });

  it('answers a caller that gives up during its batch at once, and aborts the call only when all have', async () => {
    const h = batchHarness({ maxCost: 100 });
    void h.submit('busy', 'x');
    const [abortA, abortB] = [new AbortController(), new AbortController()];
    const a = h.submit('a1', 'a', { signal: abortA.signal });
    const b = h.submit('b1', 'b', { signal: abortB.signal });
    await h.finishNext();
    const batch = h.calls[1];
    assert.deepEqual(batch.items, ['a1', 'b1']);
    abortA.abort(new Error('a gave up'));
    await assert.rejects(a, /a gave up/);
    assert.equal(batch.signal.aborted, false, 'b still waits for the call');
    abortB.abort(new Error('b gave up'));
    await assert.rejects(b, /b gave up/);
    assert.equal(batch.signal.aborted, true);
    assert.equal(h.scheduler.running, 1, 'the call holds its place until the server answers');
    await h.finishNext();
    assert.equal(h.scheduler.running, 0);
  });

  it('rejects every caller of a batch whose call fails', async () => {
    const scheduler = new EmbeddingScheduler({ maxInFlight: 1 });
    const failing: Batcher<string, string> = {
      maxCost: 100,
      send: async () => Promise.reject(new Error('server down')),
    };
    const both = ['a', 'b'].map((item) =>
      scheduler.runBatched({ tenant: item, kind: 'query', item, cost: 1, batcher: failing }),
    );
    for (const p of both) await assert.rejects(p, /server down/);
    assert.equal(scheduler.running, 0);
  });
});

describe('passage batches', () => {
  it('bounds each call by texts and by characters, keeping order; a long text goes alone', () => {
    const texts = [
      'a'.repeat(500),
      'b'.repeat(500),
      'c'.repeat(500),
      'd'.repeat(3000),
      'e'.repeat(10),
      'f'.repeat(10),
      'g',
      'h',
      'i',
    ];
    const batches = passageBatches(texts, { maxTexts: 4, maxChars: 1200 });
    assert.deepEqual(
      batches.map((b) => b.map((t) => t[0]).join('')),
      ['ab', 'c', 'd', 'efgh', 'i'],
    );
    assert.deepEqual(batches.flat(), texts);
    assert.deepEqual(passageBatches([], { maxTexts: 4, maxChars: 1200 }), []);
  });
});

describe('shares of a long query call (sharesOf)', () => {
  it('keeps the texts in order, each share within the bound, a text above it alone', () => {
    const texts = ['short one', 'x '.repeat(300), 'y '.repeat(150), 'z '.repeat(150), 'w '.repeat(900), 'tail'];
    const bound = 512;
    const shares = sharesOf(texts, bound);
    assert.deepEqual(shares.flat(), texts);
    for (const share of shares) {
      const cost = share.reduce((sum, t) => sum + tokenBound(t), 0);
      assert.ok(cost <= bound || share.length === 1, `a share of ${cost} tokens: ${share.map((t) => t.length)}`);
    }
    assert.ok(shares.length > 1);
    assert.deepEqual(sharesOf(['a', 'b'], bound), [['a', 'b']]);
    assert.deepEqual(sharesOf([], bound), []);
  });
});
