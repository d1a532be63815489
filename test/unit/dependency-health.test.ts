import { strict as assert } from 'node:assert';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'mocha';
import { DependencyHealth } from '../../api/dependency-health';
import { ApiError } from '../../api/errors';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `check` holds, up to 100 turns of 50 ms. */
async function eventually(check: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !check(); i++) await sleep(50);
  assert.ok(check());
}

describe('dependency health (circuit breakers, api/dependency-health.ts)', () => {
  /** A server that accepts connections and never answers: a hung dependency. */
  let hung: net.Server;
  let hungPort: number;
  const held = new Set<net.Socket>();
  /** A port nothing listens on: a dead dependency. */
  let deadPort: number;
  before(async () => {
    hung = net.createServer((socket) => held.add(socket)).listen(0, '127.0.0.1');
    await new Promise((r) => hung.once('listening', r));
    hungPort = (hung.address() as AddressInfo).port;
    const probe = net.createServer().listen(0, '127.0.0.1');
    await new Promise((r) => probe.once('listening', r));
    deadPort = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
  });
  after(() => {
    for (const socket of held) socket.destroy();
    hung.close();
  });

  const get = (port: number) => () => fetch(`http://127.0.0.1:${port}/`);
  const health = (probes: {
    temporal: () => Promise<unknown>;
    weaviate: () => Promise<unknown>;
    embeddings: () => Promise<unknown>;
  }) => new DependencyHealth({ probes, intervalMs: 20, probeTimeoutMs: 100, failuresToOpen: { weaviate: 2 } }).start();
  const ok = async () => true;

  it('marks a dependency that refuses connections down at its first probe, and answers 503 with Retry-After for what needs it', async () => {
    const h = health({ temporal: get(deadPort), weaviate: ok, embeddings: ok });
    try {
      await eventually(() => !h.isUp('temporal'));
      assert.throws(
        () => h.requireUp(['weaviate', 'temporal']),
        (err: unknown) =>
          err instanceof ApiError &&
          err.code === 503 &&
          /the workflow service is unavailable/.test(err.message) &&
          err.headers['Retry-After'] === '5',
      );
      h.requireUp(['weaviate', 'embeddings']);
    } finally {
      await h.stop();
    }
  });

  it('marks a hung dependency down after its failures in a row; without a count, only a refusal does', async () => {
    const h = health({ temporal: ok, weaviate: get(hungPort), embeddings: get(hungPort) });
    try {
      await eventually(() => !h.isUp('weaviate'));
      await sleep(500);
      assert.equal(h.isUp('embeddings'), true, 'a slow embedding server is not down');
    } finally {
      await h.stop();
    }
  });

  it('is up again at the first answered probe', async () => {
    let alive = false;
    const h = health({ temporal: ok, weaviate: ok, embeddings: () => (alive ? ok() : get(deadPort)()) });
    try {
      await eventually(() => !h.isUp('embeddings'));
      alive = true;
      await eventually(() => h.isUp('embeddings'));
      h.requireUp(['embeddings']);
    } finally {
      await h.stop();
    }
  });
});
