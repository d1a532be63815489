import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'mocha';
import { supportCase } from '../helpers/factories';
import { createKey } from '../helpers/harness';
import { KillableWorker, killableWorker } from '../helpers/worker-process';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a worker outage', function () {
  this.timeout(240_000);
  let w: KillableWorker;
  let key: string;

  before(async () => {
    w = await killableWorker();
    await w.start();
    ({ key } = await createKey({ scopes: ['search', 'cases:write'] }));
  });
  after(async () => w?.close());

  const send = async (path: string, body: unknown, timeoutSeconds: number) => {
    const started = Date.now();
    const res = await fetch(`${w.baseUrl}${path}`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        'Request-Timeout': String(timeoutSeconds),
      },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json(), ms: Date.now() - started };
  };
  /** Work that runs on the worker: a case upload (each one new, so it never attaches to an old run). */
  const upload = (timeoutSeconds = 5) => send('/v1/cases', { data: [supportCase()] }, timeoutSeconds);
  /** A read, which runs in the API process. */
  const search = () => send('/v1/search/cases', { query: 'printer' }, 5);

  it('turns requests into a 408 at their deadline, then a fast 503, never a hang; and recovers', async () => {
    assert.equal((await upload()).status, 200);
    await w.kill();

    const right = await upload(2);
    assert.ok([408, 503].includes(right.status), `status ${right.status}`);
    assert.ok(right.ms < 10_000, `took ${right.ms} ms`);

    let unavailable;
    for (let i = 0; i < 60 && !unavailable; i++) {
      const res = await upload(2);
      assert.ok([408, 503].includes(res.status), `status ${res.status}`);
      if (res.status === 503) unavailable = res;
      else await sleep(1000);
    }
    assert.ok(unavailable, 'no 503 within a minute of the worker dying');
    assert.equal(unavailable.body.status, 'UNAVAILABLE');
    assert.ok(unavailable.ms < 2000, `the 503 took ${unavailable.ms} ms`);
    // Searches need no worker: they go on answering while it is down.
    const read = await search();
    assert.equal(read.status, 200, JSON.stringify(read.body));
    assert.ok(read.body.results.length >= 1);

    await w.start();
    let recovered = false;
    for (let i = 0; i < 60 && !recovered; i++) {
      recovered = (await upload()).status === 200;
      if (!recovered) await sleep(1000);
    }
    assert.ok(recovered, 'requests did not succeed again after the worker came back');
  });
});
