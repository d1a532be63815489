/**
 * The cluster topology's ports (scripts/stack/cluster.ts): every process gets ports of its own, and
 * all of them stay below 32768, since Temporal stores its membership ports as smallint.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'mocha';
import { allClusterPorts, clusterPorts } from '../../scripts/stack/cluster';

const allPorts = (base: number) => allClusterPorts(clusterPorts(base));

describe('the cluster topology ports', () => {
  it('gives every process ports of its own, from the base up, all below 32768', () => {
    for (const base of [1024, 17000, 32667]) {
      const ports = allPorts(base);
      assert.equal(new Set(ports).size, ports.length, `a port is used twice with base ${base}`);
      assert.ok(Math.min(...ports) >= base && Math.max(...ports) <= 32767, `base ${base}: ${Math.max(...ports)}`);
    }
  });

  it("keeps Weaviate's data port next to its gossip port and its Raft RPC port next to its Raft port", () => {
    for (const node of clusterPorts(17000).weaviateNodes) {
      assert.equal(node.data, node.gossip + 1);
      assert.equal(node.raftRpc, node.raft + 1);
    }
  });

  it('refuses a base whose ports would not fit below 32768, or below 1024', () => {
    assert.throws(() => clusterPorts(32668), /CLUSTER_PORT_BASE/);
    assert.throws(() => clusterPorts(80), /CLUSTER_PORT_BASE/);
    assert.throws(() => clusterPorts(Number('abc')), /CLUSTER_PORT_BASE/);
  });
});
