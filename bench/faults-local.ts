/**
 * `npm run bench:faults-local [-- options]`: what killing each process of `npm start`'s topology
 * costs, measured from outside as a client would. It runs `npm start` itself (scripts/stack/launcher.ts:
 * a fresh data folder, free ports), creates two tenants with the `keys` command, uploads a few articles and cases for
 * each, then keeps a light mixed load running (per tenant: a search every second, an ask every two
 * seconds, an upload of one case with a known id every two seconds, each sent on time whether the
 * previous ones have answered or not; the API's default deadlines)
 * while it kills, once each and in turn, Weaviate, Temporal, the embedding servers (all three) and
 * the worker with SIGKILL, reading their pids from the launcher's pid files. The launcher's
 * supervisor must bring each back by itself.
 *
 * Per fault: seconds from the kill to the first 503, the longest request that was running during
 * the outage (and whether any outlasted its deadline), seconds from the restart (a new pid) to the
 * first success of every kind of request, whether the supervisor restarted it. At the end every
 * upload that was acknowledged (200) is looked up by its id (a case search by conversationId):
 * acknowledged uploads that are missing are counted as lost.
 *
 * Writes bench/results/faults-local.json; docs/benchmarks.md shows it.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { launchStart, type Launched } from '../scripts/stack/launcher';
import { DEADLINE_MS, Kind, Load, Sample, sleep, waitRestarted } from './lib/fault-load';
import { REPO_ROOT, positiveInt, round, runInfo, writeResult } from './lib/run-info';

type Fault = 'weaviate' | 'temporal' | 'embeddings' | 'worker';

/** The processes each fault kills, by their pid files' names. */
const TARGETS: Record<Fault, string[]> = {
  weaviate: ['weaviate'],
  temporal: ['temporal'],
  embeddings: ['embeddings', 'embeddings-query', 'english-encoder'],
  worker: ['worker'],
};

const GOALS = { first_503_s: 2, recovered_s: 30, acknowledged_lost: 0 };

interface Options {
  baselineSeconds: number;
  afterSeconds: number;
  maxOutageSeconds: number;
  keepData: boolean;
  out: string;
}

/** A key with every scope for a new tenant, through the operators' `keys` command. */
function createKey(stack: Launched, tenant: string): string {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: stack.dataDir,
    WEAVIATE_HOST: '127.0.0.1',
    WEAVIATE_HTTP_PORT: String(stack.ports.weaviateHttp),
    WEAVIATE_GRPC_PORT: String(stack.ports.weaviateGrpc),
  };
  delete env.WEAVIATE_API_KEY;
  const out = spawnSync(
    process.execPath,
    ['scripts/bootstrap.js', 'keys', 'create', '--tenant', tenant, '--scopes', 'all', '--json'],
    { cwd: REPO_ROOT, env, encoding: 'utf8' },
  );
  if (out.status !== 0) throw new Error(`keys create failed: ${out.stderr}`);
  return JSON.parse(out.stdout.trim().split('\n').pop()!).key;
}

/** The first time after `from` at which every kind of request has succeeded at least once (started after `from`). */
function allKindsSucceeded(samples: Sample[], from: number): number | null {
  let latest = 0;
  for (const kind of ['search', 'ask', 'upload'] as Kind[]) {
    const first = samples
      .filter((s) => s.kind === kind && s.start >= from && s.status === 200)
      .sort((a, b) => a.end - b.end)[0];
    if (!first) return null;
    latest = Math.max(latest, first.end);
  }
  return latest;
}

async function runFault(o: { fault: Fault; load: Load; stack: Launched; options: Options }) {
  const { fault, load, stack, options } = o;
  console.log(`[faults] ${fault}: baseline ${options.baselineSeconds} s`);
  await sleep(options.baselineSeconds * 1000);
  const names = TARGETS[fault];
  const old = new Map(names.map((n) => [n, stack.pid(n)!]));
  for (const [name, pid] of old) if (!pid) throw new Error(`no pid file for ${name} in ${stack.dataDir}`);
  const killedAt = Date.now();
  for (const pid of old.values()) process.kill(pid, 'SIGKILL');
  console.log(`[faults] ${fault}: killed ${names.join(', ')}`);
  const restartedAt = await waitRestarted({
    pid: (name) => stack.pid(name),
    names,
    old,
    timeoutMs: options.maxOutageSeconds * 1000,
  });
  let recoveredAt: number | null = null;
  const giveUp = Date.now() + options.maxOutageSeconds * 1000;
  while (restartedAt && Date.now() < giveUp && !(recoveredAt = allKindsSucceeded(load.samples, restartedAt)))
    await sleep(500);
  console.log(
    `[faults] ${fault}: restarted ${restartedAt ? `after ${((restartedAt - killedAt) / 1000).toFixed(1)} s` : 'never'}; recovered ${recoveredAt ? `${((recoveredAt - (restartedAt ?? 0)) / 1000).toFixed(1)} s after` : 'never'}`,
  );
  await sleep(options.afterSeconds * 1000);
  const outageEnd = recoveredAt ?? Date.now();
  const during = load.samples.filter((s) => s.end >= killedAt && s.start <= outageEnd);
  const first503 = during.filter((s) => s.status === 503 && s.end >= killedAt).sort((a, b) => a.end - b.end)[0];
  const overDeadline = during.filter((s) => s.end - s.start > DEADLINE_MS[s.kind]);
  const byStatus: Record<string, number> = {};
  for (const s of during) byStatus[s.status] = (byStatus[s.status] ?? 0) + 1;
  const errors = [...new Set(during.filter((s) => s.error).map((s) => `${s.kind} ${s.status}: ${s.error}`))].slice(
    0,
    10,
  );
  const result = {
    killed: names,
    first_503_s: first503 ? round((first503.end - killedAt) / 1000, 2) : null,
    longest_request_ms: during.length ? Math.max(...during.map((s) => s.end - s.start)) : 0,
    requests_over_deadline: overDeadline.length,
    requests_by_status: byStatus,
    error_examples: errors,
    restarted_after_s: restartedAt ? round((restartedAt - killedAt) / 1000, 2) : null,
    recovered_s: recoveredAt && restartedAt ? round((recoveredAt - restartedAt) / 1000, 2) : null,
    restarted_by_supervisor: restartedAt !== null,
    acknowledged_lost: 0,
  };
  return { killedAt, result };
}

/**
 * What the API logged for each 500 it answered (the client sees only a request id): the error's
 * type and message, found by the request id in the API's log, so a run explains its 500s.
 */
function serverErrors(samples: Sample[], apiLog: string): { request_id: string; kind: Kind; logged: string }[] {
  const ids = samples.flatMap((s) => {
    const id = s.status === 500 ? /request id ([0-9a-f-]{36})/.exec(s.error ?? '')?.[1] : undefined;
    return id ? [{ id, kind: s.kind }] : [];
  });
  if (!ids.length || !fs.existsSync(apiLog)) return [];
  const logged = new Map<string, string>();
  for (const line of fs.readFileSync(apiLog, 'utf8').split('\n')) {
    if (!line.includes('"level":50')) continue;
    const entry = JSON.parse(line) as { requestId?: string; err?: { type?: string; message?: string } };
    if (entry.requestId) logged.set(entry.requestId, `${entry.err?.type}: ${entry.err?.message ?? ''}`.slice(0, 300));
  }
  return ids.map(({ id, kind }) => ({ request_id: id, kind, logged: logged.get(id) ?? 'not in the log' }));
}

/** Acknowledged uploads that cannot be found: a case search by their id answers 404. */
async function lostUploads(load: Load, baseUrl: string): Promise<string[]> {
  const lost: string[] = [];
  for (const [id, { key }] of load.acknowledged) {
    for (let attempt = 1; ; attempt++) {
      const res = await fetch(`${baseUrl}/v1/search/cases`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ conversationId: id }),
      });
      if (res.status === 200) break;
      if (res.status === 404 || attempt === 5) {
        lost.push(id);
        break;
      }
      await sleep(1000);
    }
  }
  return lost;
}

async function main(options: Options): Promise<void> {
  const info = runInfo();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'support-ai-faults-'));
  const stack = await launchStart({ dataDir });
  try {
    const tenants = ['faults-a', 'faults-b'].map((tenant) => ({ tenant, key: createKey(stack, tenant) }));
    const load = new Load({ baseUrl: stack.baseUrl, tenants, everyMs: { search: 1000, ask: 2000, upload: 2000 } });
    await load.seed();
    load.start();
    const runs: { fault: Fault; killedAt: number; result: Awaited<ReturnType<typeof runFault>>['result'] }[] = [];
    for (const fault of Object.keys(TARGETS) as Fault[])
      runs.push({ fault, ...(await runFault({ fault, load, stack, options })) });
    await load.stop();
    const lost = new Set(await lostUploads(load, stack.baseUrl));
    // A lost upload is charged to the last fault killed before it was acknowledged (the first fault, if none was).
    for (const s of load.samples.filter((x) => x.id && lost.has(x.id)))
      (runs.filter((r) => r.killedAt <= s.end).pop() ?? runs[0]).result.acknowledged_lost += 1;
    const faults = Object.fromEntries(runs.map((r) => [r.fault, r.result]));
    writeResult(options.out, {
      ...info,
      settings: {
        ...options,
        load: 'per tenant: a search every 1 s, an ask every 2 s, a one-case upload every 2 s, sent on time (open loop); 2 tenants',
        deadlines_ms: DEADLINE_MS,
      },
      goals: GOALS,
      acknowledged_uploads: load.acknowledged.size,
      acknowledged_lost: lost.size,
      faults,
      server_errors: serverErrors(load.samples, path.join(dataDir, 'logs', 'api.log')),
    });
  } finally {
    await stack.interrupt();
    if (options.keepData) console.log(`[faults] data and logs kept in ${dataDir}`);
    else fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const program = new Command('bench:faults-local')
  .description("kill each process of npm start's topology under load and measure the outage")
  .option('--baseline-seconds <n>', 'load before each kill', positiveInt, 10)
  .option('--after-seconds <n>', 'load after each recovery', positiveInt, 10)
  .option('--max-outage-seconds <n>', 'give up waiting for a restart or a recovery after this', positiveInt, 180)
  .option('--keep-data', 'keep the data folder and its logs')
  .option('--out <file>', 'result file', 'bench/results/faults-local.json')
  .action((o: Options) =>
    main(o).catch((err) => {
      console.error(`[faults] ${err.stack ?? err}`);
      process.exit(1);
    }),
  );
program.parse();
