/**
 * The bound the per-key limit keeps across API instances (api/rate-limiter.ts): with at most
 * `maxUnsynced` requests of a key counted between two syncs, N instances accept at most the limit
 * plus (N − 1) × maxUnsynced, however the requests of a burst interleave. The shared store here
 * is an in-memory RateCountStore whose calls take a random few milliseconds, so publishes and
 * reads overlap the way they do against Weaviate; the real store is tested across two real
 * instances in test/cluster.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'mocha';
import { SharedWindowCounter } from '../../api/rate-limiter';
import type { RateCountStore } from '../../domain/weaviate/rate-counts';

/** A store kept in memory, each call delayed by 1–8 ms (a seeded draw, so a failure repeats). */
function slowStore(seed: number): RateCountStore {
  const rows = new Map<string, { instance: string; window: number; subject: string; count: number }>();
  let state = seed;
  const delay = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return new Promise((r) => setTimeout(r, 1 + (state % 8)));
  };
  return {
    async publish({ instance, window, counts }) {
      const snapshot = [...counts];
      await delay();
      for (const [subject, count] of snapshot)
        rows.set(`${instance}/${window}/${subject}`, { instance, window, subject, count });
    },
    async othersCounts({ instance, window, subjects }) {
      await delay();
      const totals = new Map<string, number>();
      for (const row of rows.values())
        if (row.window === window && row.instance !== instance && subjects.includes(row.subject))
          totals.set(row.subject, (totals.get(row.subject) ?? 0) + row.count);
      return totals;
    },
    async prune() {},
  };
}

/** Sends `requests` of one key at once, spread round-robin over the instances; returns how many were accepted. */
async function burst(o: { instances: number; requests: number; limit: number; maxUnsynced?: number; seed: number }) {
  const store = slowStore(o.seed);
  const counters = Array.from(
    { length: o.instances },
    () => new SharedWindowCounter({ windowMs: 3_600_000, store, syncMs: 1000, maxUnsynced: o.maxUnsynced }),
  );
  try {
    const totals = await Promise.all(
      Array.from({ length: o.requests }, (_, i) => counters[i % o.instances].add('key:k').then((c) => c.total)),
    );
    return totals.filter((total) => total <= o.limit).length;
  } finally {
    for (const counter of counters) counter.stop();
  }
}

describe('the per-key limit across instances', () => {
  it('accepts at most the limit plus (N − 1) × maxUnsynced of a burst', async () => {
    for (const [instances, seed] of [
      [2, 1],
      [3, 2],
      [4, 3],
    ]) {
      const accepted = await burst({ instances, requests: 400, limit: 100, maxUnsynced: 5, seed });
      assert.ok(accepted >= 100, `${instances} instances accepted ${accepted}, fewer than the limit`);
      assert.ok(accepted <= 100 + (instances - 1) * 5, `${instances} instances accepted ${accepted} of 400`);
    }
  });

  it('lets a burst through by what the others counted in a sync interval when unbounded', async () => {
    // The behaviour maxUnsynced bounds: nothing is published before the first interval ends.
    const accepted = await burst({ instances: 2, requests: 400, limit: 100, seed: 4 });
    assert.ok(accepted > 100 + 5, `accepted ${accepted}`);
  });
});
