/**
 * The node flags of the worker and API processes the launchers start (scripts/stack/processes.ts):
 * single-threaded garbage collection for the worker, one V8 helper thread for the API, unless
 * NODE_SERVICE_FLAGS says otherwise.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'mocha';
import { nodeProcessOf, nodeServiceFlags, nodeSpec, WORKER_ENTRY } from '../../scripts/stack/processes';

describe('the node flags of our processes', () => {
  it('collect garbage on the worker thread, and with one helper thread in the API', () => {
    assert.deepEqual(nodeServiceFlags({ process: 'worker', env: {} }), ['--single-threaded-gc']);
    assert.deepEqual(nodeServiceFlags({ process: 'api', env: {} }), ['--v8-pool-size=1', '--heap-growing-percent=50']);
  });

  it('are replaced by NODE_SERVICE_FLAGS for both, and gone when it is empty', () => {
    for (const process of ['api', 'worker'] as const) {
      const env = { NODE_SERVICE_FLAGS: '  --max-old-space-size=2048   --single-threaded-gc ' };
      assert.deepEqual(nodeServiceFlags({ process, env }), ['--max-old-space-size=2048', '--single-threaded-gc']);
      assert.deepEqual(nodeServiceFlags({ process, env: { NODE_SERVICE_FLAGS: '' } }), []);
    }
  });

  it('are the worker’s for the worker entry and the API’s for any other', () => {
    assert.equal(nodeProcessOf(WORKER_ENTRY), 'worker');
    assert.equal(nodeProcessOf('api/server.ts'), 'api');
    assert.equal(nodeProcessOf('bench/lib/direct-ask-server.ts'), 'api');
  });

  it('come before the entry point, where node reads its own options', () => {
    for (const entry of ['api/server.ts', WORKER_ENTRY]) {
      const { args } = nodeSpec({ name: 'service', entry, env: {}, logDir: '.' });
      const at = args.findIndex((a) => a.endsWith(entry));
      const flags = nodeServiceFlags({ process: nodeProcessOf(entry) });
      assert.deepEqual(args.slice(0, flags.length), flags);
      assert.ok(at > flags.length);
    }
  });
});
