import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'mocha';
import { requestTagTraining, waitForTagTraining } from '../../scripts/tag-trainer';
import { freshTenant, getHarness } from '../helpers/harness';
import { runScriptAsync } from '../helpers/run-script';
import { killableWorker, type KillableWorker } from '../helpers/worker-process';

describe('npm run tags -- status, when the worker does not answer', () => {
  let worker: KillableWorker;

  before(async function () {
    this.timeout(120_000);
    worker = await killableWorker();
    await worker.start();
  });
  after(async () => {
    await worker?.close();
  });

  it('says that the trainer did not answer in time and exits 1, never that there is no trainer', async function () {
    this.timeout(180_000);
    const { temporal: client } = await getHarness();
    const env = { TASK_QUEUE: worker.taskQueue };
    const tenant = freshTenant('tags-status');
    const { requestedAt } = await requestTagTraining({ client, taskQueue: worker.taskQueue, tenant });
    await waitForTagTraining({ client, tenant, since: requestedAt, timeoutMs: 60_000 });
    const answered = await runScriptAsync(env, 'scripts/tags.ts', 'status', '--tenant', tenant);
    assert.equal(answered.code, 0, answered.stderr);
    assert.match(answered.stdout, /^waiting\ntraining of .*too little to train on/);

    // A stopped process answers no query, as a worker whose only thread is busy. Temporal either
    // lets the command's own wait run out or gives up on the query first, depending on its load.
    worker.pause();
    try {
      const busy = await runScriptAsync(env, 'scripts/tags.ts', 'status', '--tenant', tenant);
      assert.equal(busy.code, 1, busy.stdout);
      assert.match(
        busy.stderr,
        new RegExp(
          `^tags: the tag trainer of tenant ${tenant} did not answer (within 10 s|\\(Failed to query Workflow\\)): the worker may be busy or not running`,
          'm',
        ),
      );
      assert.doesNotMatch(busy.stdout, /no tag trainer/);
    } finally {
      worker.resume();
    }

    const none = await runScriptAsync(env, 'scripts/tags.ts', 'status', '--tenant', freshTenant('no-trainer'));
    assert.equal(none.code, 0, none.stderr);
    assert.match(none.stdout, /has no tag trainer yet/);
    const again = await runScriptAsync(env, 'scripts/tags.ts', 'status', '--tenant', tenant);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^waiting\n/);
  });
});
