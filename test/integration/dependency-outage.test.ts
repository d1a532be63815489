import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'mocha';
import { runDir } from '../../scripts/stack/stack';
import { article } from '../helpers/factories';
import { api, createKey, type ApiResponse } from '../helpers/harness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The pid of one of the test stack's supervised processes. */
function pidOf(name: string): number {
  const dir = runDir(process.env.SUPPORT_AI_TEST_DATA ?? '');
  return Number(fs.readFileSync(path.join(dir, `${name}.pid`), 'utf8').trim());
}

/** Sends `request` until `done` holds for its answer (at most `attempts` times, a second apart); returns every answer. */
async function until(
  request: () => Promise<ApiResponse>,
  done: (r: ApiResponse) => boolean,
  attempts = 120,
): Promise<ApiResponse[]> {
  const seen: ApiResponse[] = [];
  for (let i = 0; i < attempts; i++) {
    const res = await request();
    seen.push(res);
    if (done(res)) return seen;
    await sleep(1000);
  }
  assert.fail(`never got the awaited answer; last: ${seen.at(-1)?.status} ${JSON.stringify(seen.at(-1)?.body)}`);
}

/** The answer a client gets while a dependency is known down: 503 with Retry-After, well before its 3 s deadline (else 408). */
function assertFastUnavailable(res: ApiResponse, what: RegExp): void {
  assert.equal(res.status, 503, JSON.stringify(res.body));
  assert.equal(res.body.status, 'UNAVAILABLE');
  assert.match(res.body.error, what);
  assert.ok(Number(res.headers.get('Retry-After')) > 0, 'Retry-After');
}

/**
 * Issue: with Weaviate or Temporal killed, requests hung 20 to 44 s (past their own deadline)
 * before a 503. Weaviate is killed here with SIGKILL (the test stack's supervisor starts it again);
 * Temporal, which restarts within a second, is stopped instead (SIGSTOP), the harder case of a
 * dependency that hangs; the API must come back by itself either way.
 */
describe('a dead dependency fails fast and the API recovers by itself', function () {
  this.timeout(300_000);
  const deadline = { 'Request-Timeout': '3' };
  let key: string;
  const search = () => api('POST', '/v1/search/cases', { key, body: { query: 'printer' }, headers: deadline });
  const upload = (headers: Record<string, string> = deadline) =>
    api('POST', '/v1/articles', { key, body: { articles: [article()] }, headers });
  const evaluate = () =>
    api('POST', '/v1/control/autoeval/evaluate', {
      key,
      body: { messages: [{ role: 'user', content: 'hi' }], output: 'Hello.' },
      headers: deadline,
    });

  before(async () => {
    ({ key } = await createKey());
    // The first upload of a fresh stack may take longer than the outage tests' short deadline.
    assert.equal((await upload({})).status, 200);
  });

  it('Weaviate killed: searches and uploads answer 503 with Retry-After before their deadline; all answer again once the supervisor restarted it', async () => {
    const pid = pidOf('weaviate');
    process.kill(pid, 'SIGKILL');
    // A search in flight at the kill ends with its retries (503) or its deadline (408); once the
    // breaker has seen Weaviate down, every search is refused at once, naming it.
    const answers = await until(
      () => search(),
      (r) => r.status === 503 && /the (vector|key) store is unavailable/.test(r.body.error),
      30,
    );
    for (const r of answers) {
      assert.ok([408, 503].includes(r.status), `${r.status} ${JSON.stringify(r.body)}`);
      if (r.status === 503) assertFastUnavailable(r, /is unavailable/);
    }
    assertFastUnavailable(await upload(), /the (vector|key) store is unavailable/);

    await until(
      () => search(),
      (r) => r.status === 200,
    );
    assert.notEqual(pidOf('weaviate'), pid, 'the supervisor started a new Weaviate');
    await until(
      () => upload(),
      (r) => r.status === 200,
      60,
    );
  });

  it('Temporal hung (stopped, not killed): uploads and evaluate answer 408 at their deadline, then 503 with Retry-After at once; searches go on; all answer again when it resumes', async () => {
    const pid = pidOf('temporal');
    process.kill(pid, 'SIGSTOP');
    try {
      for (const request of [evaluate, upload]) {
        const answers = await until(request, (r) => r.status === 503, 30);
        for (const r of answers) assert.ok([408, 503].includes(r.status), `${r.status} ${JSON.stringify(r.body)}`);
        assertFastUnavailable(answers.at(-1)!, /the workflow service is unavailable/);
      }
      const read = await search();
      assert.equal(read.status, 200, JSON.stringify(read.body));
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await until(
      () => evaluate(),
      (r) => r.status === 200,
    );
    await until(
      () => upload(),
      (r) => r.status === 200,
      60,
    );
  });
});
