/**
 * `npm start` supervises every process it starts. This test runs the launcher
 * (scripts/stack/start.ts) as `npm start` does, on free ports and a data folder of its own, kills
 * Weaviate, Temporal and the passage embedding server with SIGKILL while an upload is being
 * stored, and checks that each comes back by itself: a log line for the exit, for each failed
 * attempt and for the recovery; /readyz not ready while it is down and ready again after; the
 * upload complete, nothing lost and nothing twice. While each is down, the test holds its port, as
 * a process still dying would: the restart must keep trying until the port is free. Then Ctrl-C
 * stops everything, without a restart.
 */
import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'mocha';
import weaviate, { WeaviateClient } from 'weaviate-client';
import { ApiKeyStore } from '../../domain/weaviate/api-keys';
import { COLLECTIONS } from '../../domain/weaviate/collections';
import { Launched, launchStart } from '../../scripts/stack/launcher';
import { runDir } from '../../scripts/stack/stack';
import { readWeaviateKey } from '../../scripts/stack/weaviate-key';
import { article } from '../helpers/factories';
import { freshTenant, requireStack } from '../helpers/harness';
import { alive, holdPort } from '../helpers/processes';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Articles per upload: enough batches that a kill lands while they are being stored. */
const ARTICLES = 400;
const WORDS = ['amber', 'basil', 'cobalt', 'delta', 'ember', 'fjord', 'garnet', 'harbor', 'indigo', 'juniper'];
const phrase = (i: number) =>
  `${WORDS[i % 10]} ${WORDS[Math.floor(i / 10) % 10]} ${WORDS[Math.floor(i / 100) % 10]} setting ${i}`;

describe('npm start supervises every process: Weaviate, Temporal and an embedding server killed with SIGKILL come back by themselves', function () {
  this.timeout(600_000);
  let launched: Launched;
  let client: WeaviateClient;
  let keys: ApiKeyStore;
  /** Tenants whose uploads completed. */
  const uploaded: { tenant: string; key: string }[] = [];

  const base = () => launched.baseUrl;
  const waitForLog = async (pattern: RegExp) => {
    for (;;) {
      const match = pattern.exec(launched.supervisorLog());
      if (match) return match;
      if (launched.child.exitCode !== null)
        throw new Error(`the launcher exited (${launched.child.exitCode}):\n${launched.output()}`);
      await sleep(200);
    }
  };
  const readPid = (name: string) => {
    const pid = launched.pid(name);
    assert.ok(pid, `no pid file for ${name}`);
    return pid;
  };
  const readiness = async () => {
    try {
      const res = await fetch(`${base()}/readyz`, { signal: AbortSignal.timeout(30_000) });
      return {
        status: res.status,
        body: (await res.json()) as { ready: boolean; dependencies: Record<string, { ready: boolean }> },
      };
    } catch (err) {
      return { status: 0, body: undefined, error: String(err) };
    }
  };
  const passages = () => client.collections.use(COLLECTIONS.articlePassage);
  const stored = async (tenant: string) => {
    if (!(await passages().tenants.getByName(tenant))) return 0;
    return (await passages().withTenant(tenant).aggregate.overAll()).totalCount;
  };

  before(async function () {
    this.timeout(600_000);
    requireStack();
    const dataDir = fs.mkdtempSync(path.join(process.env.SUPPORT_AI_TEST_DATA!, 'supervised-'));
    launched = await launchStart({ dataDir, env: { KEY_CACHE_TTL_MS: '300' } });
    assert.match(launched.operatorKey ?? '', /^sai_/, launched.output());
    client = await weaviate.connectToLocal({
      host: '127.0.0.1',
      port: launched.ports.weaviateHttp,
      grpcPort: launched.ports.weaviateGrpc,
      authCredentials: new weaviate.ApiKey(readWeaviateKey(dataDir)!),
    });
    keys = new ApiKeyStore(async () => client);
  });

  after(async function () {
    this.timeout(120_000);
    await client?.close().catch(() => undefined);
    await launched?.interrupt();
  });

  it("writes a pid file for every process it supervises, and the launcher's own", () => {
    assert.equal(readPid('launcher'), launched.child.pid);
    for (const name of ['temporal', 'weaviate', 'embeddings', 'embeddings-query', 'english-encoder', 'worker', 'api']) {
      const pid = readPid(name);
      assert.ok(alive(pid), `${name}: pid ${pid} is not running`);
      assert.match(launched.supervisorLog(), new RegExp(`\\[supervisor\\] ${name} started \\(pid ${pid}\\)`));
    }
  });

  /**
   * Starts an upload, kills `name` while its articles are being stored, holds `port` until the
   * supervisor has failed a restart on it, checks /readyz, frees the port, and waits for the
   * recovery; then the upload must be complete.
   */
  async function killDuringUpload(o: {
    name: string;
    dependency: 'weaviate' | 'temporal' | 'embeddings';
    port: number;
  }) {
    const tenant = freshTenant(`sup-${o.name}`);
    const { key } = await keys.create({ tenant, scopes: ['articles:write', 'search'] });
    const articles = Array.from({ length: ARTICLES }, (_, i) =>
      article({ articleId: `a-${i}`, title: `Guide ${i}`, body: `How to change the ${phrase(i)} in the console.` }),
    );
    let settled: { status: number; body: string } | undefined;
    const send = () => {
      settled = undefined;
      return fetch(`${base()}/v1/articles`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ articles }),
      })
        .then(
          async (res) => ({ status: res.status, body: await res.text() }),
          (err) => ({ status: 0, body: String(err) }),
        )
        .then((answer) => (settled = answer));
    };
    let upload = send();
    // Accepted once its articles are being stored; a 503 before that (the API saw a dependency as
    // down) accepted nothing, and is sent again.
    while ((await stored(tenant)) === 0) {
      if (settled?.status === 503) {
        await sleep(1000);
        upload = send();
      } else if (settled) throw new Error(`the upload ended before anything was stored: ${JSON.stringify(settled)}`);
      await sleep(100);
    }
    const atKill = await stored(tenant);
    const pid = readPid(o.name);
    process.kill(pid, 'SIGKILL');
    while (alive(pid)) await sleep(20);
    const holder = await holdPort(o.port).catch((err) => {
      throw new Error(
        `port ${o.port} of ${o.name} was taken again before the test could hold it (${err.message}):\n${launched.supervisorLog()}`,
      );
    });
    assert.ok(atKill < ARTICLES, `the upload was stored before ${o.name} could be killed`);

    let down;
    try {
      const exit = await waitForLog(
        new RegExp(
          `${o.name} \\(pid ${pid}\\) exited \\(signal SIGKILL\\) after [\\d.]+ s; restart attempt (\\d+) in ([\\d.]+) s`,
        ),
      );
      await waitForLog(
        new RegExp(
          `${o.name} restart attempt ${exit[1]} failed: port ${o.port} is still in use; restart attempt ${Number(exit[1]) + 1} in`,
        ),
      );
      down = await readiness();
    } finally {
      await new Promise((r) => holder.close(r));
    }
    assert.equal(down.status, 503, `/readyz while ${o.name} is down: ${JSON.stringify(down)}`);
    assert.equal(down.body!.ready, false);
    assert.equal(down.body!.dependencies[o.dependency].ready, false, JSON.stringify(down.body));

    const back = await waitForLog(new RegExp(`${o.name} is back \\(pid (\\d+)\\) after restart attempt \\d+`));
    const newPid = Number(back[1]);
    assert.notEqual(newPid, pid);
    assert.equal(readPid(o.name), newPid);
    assert.ok(alive(newPid));

    let up = await readiness();
    while (up.status !== 200) {
      await sleep(500);
      up = await readiness();
    }
    assert.equal(up.body!.ready, true);
    assert.equal(up.body!.dependencies[o.dependency].ready, true);

    // The upload was accepted before the kill (its articles were being stored): it completes.
    const answer = await upload;
    assert.ok([200, 408, 503].includes(answer.status), `upload: ${JSON.stringify(answer)}`);
    if (answer.status === 200) assert.deepEqual(JSON.parse(answer.body), { result: 'success' });
    for (let i = 0; i < 600 && (await stored(tenant)) < ARTICLES; i++) await sleep(1000);
    const all = await passages()
      .withTenant(tenant)
      .query.fetchObjects({ limit: 5000, returnProperties: ['articleId'] });
    const ids = all.objects.map((obj) => String(obj.properties.articleId));
    assert.equal(ids.length, ARTICLES, `every article stored once (upload answered ${answer.status})`);
    assert.equal(new Set(ids).size, ARTICLES);
    const search = await fetch(
      `${base()}/v1/community/search/articles?text=${encodeURIComponent(phrase(ARTICLES - 1))}&limit=3`,
      {
        headers: { Authorization: `Bearer ${key}`, 'X-Business-Id': tenant },
      },
    );
    const found = (await search.json()) as { articles?: { id: string }[] };
    assert.equal(found.articles?.[0]?.id, `a-${ARTICLES - 1}`, JSON.stringify(found));
    uploaded.push({ tenant, key });
  }

  it('restarts the passage embedding server, and an upload in flight completes', async () => {
    await killDuringUpload({ name: 'embeddings', dependency: 'embeddings', port: launched.ports.embeddings });
  });

  it('restarts Weaviate on its data folder and key: earlier content and API keys are still there, and an upload in flight completes', async () => {
    await killDuringUpload({ name: 'weaviate', dependency: 'weaviate', port: launched.ports.weaviateHttp });
    // What was stored before the restart, and the keys created then, are still there.
    for (const { tenant, key } of uploaded) {
      assert.equal(await stored(tenant), ARTICLES, tenant);
      const res = await fetch(`${base()}/v1/community/search/articles?text=${encodeURIComponent(phrase(0))}&limit=1`, {
        headers: { Authorization: `Bearer ${key}`, 'X-Business-Id': tenant },
      });
      assert.equal(res.status, 200, tenant);
    }
  });

  it('restarts the Temporal server on its SQLite file: an upload workflow in flight completes', async () => {
    await killDuringUpload({ name: 'temporal', dependency: 'temporal', port: launched.ports.temporal });
  });

  it('stops everything on Ctrl-C, without restarting anything', async () => {
    const pids = ['temporal', 'weaviate', 'embeddings', 'embeddings-query', 'english-encoder', 'worker', 'api'].map(
      (name) => ({ name, pid: readPid(name) }),
    );
    assert.equal(await launched.interrupt(), 0, launched.output());
    for (const { name, pid } of pids) assert.ok(!alive(pid), `${name} (pid ${pid}) still runs`);
    const log = launched.supervisorLog();
    const stop = log.indexOf('stopping: no more restarts');
    assert.ok(stop >= 0, log);
    assert.doesNotMatch(log.slice(stop), /restart attempt|is back|started/, log.slice(stop));
    assert.deepEqual(fs.readdirSync(runDir(launched.dataDir)), [], 'pid files left behind');
  });
});
