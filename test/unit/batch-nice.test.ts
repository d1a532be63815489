import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nodeSpec, WORKER_ENTRY } from '../../scripts/stack/processes';
import { batchNice, spawnService } from '../../scripts/stack/services';

/** The niceness a process spawned from `spec` reports for itself (`nice` with no arguments prints it). */
async function niceOf(o: { nice?: number }): Promise<number> {
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nice-'));
  const service = spawnService({ name: 'probe', cmd: 'nice', args: [], logDir, nice: o.nice });
  await new Promise((resolve) => service.child.once('exit', resolve));
  return Number(fs.readFileSync(service.logFile, 'utf8').trim());
}

describe('batch work runs at a lower CPU priority (scripts/stack/services.ts, batchNice)', () => {
  it('spawns a process with the niceness its spec asks for, and leaves the others as they are', async () => {
    const own = os.getPriority();
    assert.equal(await niceOf({ nice: 10 }), Math.min(19, own + 10));
    assert.equal(await niceOf({}), own);
  });

  it('gives the worker BATCH_NICE, and the API nothing', () => {
    assert.equal(nodeSpec({ name: 'worker', entry: WORKER_ENTRY, env: {}, logDir: '.' }).nice, batchNice());
    assert.equal(nodeSpec({ name: 'api', entry: 'api/server.ts', env: {}, logDir: '.' }).nice, undefined);
  });

  it('reads BATCH_NICE: 5 by default, 0 turns it off, anything but 0 to 19 is refused by name', () => {
    assert.equal(batchNice({}), 5);
    assert.equal(batchNice({ BATCH_NICE: '0' }), 0);
    assert.equal(batchNice({ BATCH_NICE: '19' }), 19);
    for (const bad of ['20', '-1', 'abc', '', '1.5'])
      assert.throws(() => batchNice({ BATCH_NICE: bad }), /BATCH_NICE must be an integer from 0 to 19/, bad);
  });
});
