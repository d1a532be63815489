/**
 * The node flags of the worker and API processes the launchers start (scripts/stack/processes.ts):
 * single-threaded garbage collection unless NODE_SERVICE_FLAGS says otherwise.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'mocha';
import { nodeServiceFlags, nodeSpec } from '../../scripts/stack/processes';

describe('the node flags of our processes', () => {
  it('collect garbage on the process thread by default', () => {
    assert.deepEqual(nodeServiceFlags({}), ['--single-threaded-gc']);
  });

  it('are replaced by NODE_SERVICE_FLAGS, and gone when it is empty', () => {
    assert.deepEqual(nodeServiceFlags({ NODE_SERVICE_FLAGS: '  --max-old-space-size=2048   --single-threaded-gc ' }), [
      '--max-old-space-size=2048',
      '--single-threaded-gc',
    ]);
    assert.deepEqual(nodeServiceFlags({ NODE_SERVICE_FLAGS: '' }), []);
  });

  it('come before the entry point, where node reads its own options', () => {
    const { args } = nodeSpec({ name: 'api', entry: 'api/server.ts', env: {}, logDir: '.' });
    const entry = args.findIndex((a) => a.endsWith('api/server.ts'));
    const flags = nodeServiceFlags();
    assert.deepEqual(args.slice(0, flags.length), flags);
    assert.ok(entry > flags.length);
  });
});
