/**
 * Fair admission of searches (api/middlewares/fair-admission.ts): the global and per-tenant
 * limits, turns between tenants, the queue bound and the deadline while waiting.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'mocha';
import { ApiError } from '../../api/errors';
import { FairQueue } from '../../api/middlewares/fair-admission';

const later = () => Date.now() + 60_000;

describe('fair admission of searches', () => {
  it('admits up to maxInFlight, at most maxInFlightPerTenant per tenant', async () => {
    const q = new FairQueue({ maxInFlight: 3, maxInFlightPerTenant: 2, maxQueuedPerTenant: 10 });
    const admitted: string[] = [];
    const take = (name: string, tenant: string) =>
      q.acquire(tenant, later()).then((release) => (admitted.push(name), release));
    const a1 = take('a1', 'a');
    const a2 = take('a2', 'a');
    void take('a3', 'a');
    await Promise.all([a1, a2]);
    assert.deepEqual(admitted, ['a1', 'a2']);
    assert.equal(q.queued('a'), 1, "a's third search waits although a place is free");
    await take('b1', 'b');
    assert.deepEqual(admitted, ['a1', 'a2', 'b1']);
    assert.equal(q.active, 3);
  });

  it('gives a freed place to the next tenant in turn, not to the one with the longest queue', async () => {
    const q = new FairQueue({ maxInFlight: 1, maxInFlightPerTenant: 1, maxQueuedPerTenant: 10 });
    const order: string[] = [];
    let release = await q.acquire('a', later());
    const pending = ['a2', 'a3', 'a4'].map((n) => q.acquire('a', later()).then((r) => (order.push(n), r)));
    pending.push(q.acquire('b', later()).then((r) => (order.push('b1'), r)));
    for (let i = 0; i < 4; i++) {
      release();
      release = await Promise.race(pending.filter((_, j) => !order.includes(['a2', 'a3', 'a4', 'b1'][j])));
    }
    release();
    assert.deepEqual(order, ['a2', 'b1', 'a3', 'a4']);
  });

  it('lets a tenant alone run maxInFlightPerTenant, and one search at a time while another tenant searches', async () => {
    let now = 1_000_000;
    const q = new FairQueue(
      { maxInFlight: 4, maxInFlightPerTenant: 3, maxInFlightShared: 1, activeWindowMs: 2000, maxQueuedPerTenant: 10 },
      () => now,
    );
    const a = await Promise.all([q.acquire('a', later()), q.acquire('a', later()), q.acquire('a', later())]);
    assert.equal(q.active, 3, 'alone, a runs three');
    const b1 = await q.acquire('b', later());
    assert.equal(q.capOf('a'), 1);
    let a4Admitted = false;
    const a4 = q.acquire('a', later()).then((r) => ((a4Admitted = true), r));
    a[0]();
    a[1]();
    await new Promise((r) => setImmediate(r));
    assert.equal(a4Admitted, false, 'a still runs one search, its limit while b searches');
    b1();
    now += 2001; // b has not searched for longer than the window
    a[2]();
    (await a4)();
    assert.equal(q.capOf('a'), 3);
    assert.equal(q.active, 0);
  });

  it('answers 429 when a tenant already has maxQueuedPerTenant searches waiting', async () => {
    const q = new FairQueue({ maxInFlight: 1, maxInFlightPerTenant: 1, maxQueuedPerTenant: 1 });
    await q.acquire('a', later());
    void q.acquire('a', later());
    await assert.rejects(
      q.acquire('a', later()),
      (err: ApiError) => err.code === 429 && err.headers['Retry-After'] === '1',
    );
    assert.equal(q.queued('b'), 0);
  });

  it('answers 408 when the deadline passes while waiting, and forgets the search', async () => {
    const q = new FairQueue({ maxInFlight: 1, maxInFlightPerTenant: 1, maxQueuedPerTenant: 5 });
    const release = await q.acquire('a', later());
    await assert.rejects(q.acquire('b', Date.now() + 20), (err: ApiError) => err.code === 408);
    assert.equal(q.queued(), 0);
    release();
    assert.equal(q.active, 0);
  });

  it('counts a release once', async () => {
    const q = new FairQueue({ maxInFlight: 2, maxInFlightPerTenant: 2, maxQueuedPerTenant: 5 });
    const release = await q.acquire('a', later());
    release();
    release();
    assert.equal(q.active, 0);
  });
});
