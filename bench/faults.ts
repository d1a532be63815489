/**
 * `npm run bench:faults [-- options]`: what killing each part of the cluster topology costs, seen
 * from outside as clients see it. It runs `npm run start:cluster` itself (a fresh data folder, free
 * ports), creates two tenants with the operator key's store, seeds a few cases, then keeps a steady
 * mixed load on the balancer (per tenant: a search every 500 ms, an ask every second, an upload of
 * one case with a known id every second, an evaluation every 2 s; open loop) while it kills, once
 * each and in turn, with SIGKILL: a Weaviate follower, the Weaviate Raft leader, one Temporal server
 * process, PostgreSQL, one worker, one API instance, and the embedding servers. The supervisor
 * brings each back by itself.
 *
 * Per fault, over the requests started from the kill until the observation ends (the restart plus
 * `--after-seconds`, at least `--observe-seconds` after the kill): requests by status (0 = no
 * answer), the success rate (2xx), the seconds from the first to the last failed request, the
 * failures that were not a fast 503, the longest request, the seconds from the restart until the
 * p95 of a 5 s window is back within 1.5× of the baseline's (every request of it a success), and
 * for PostgreSQL how searches fared while it was down. At the end every acknowledged upload is
 * looked up in Weaviate by its case id: one missing is lost, one stored as two objects is stored
 * twice; each is charged to the fault during or after which it was acknowledged.
 *
 * Writes bench/results/faults.json; docs/benchmarks.md shows it.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import type { WeaviateClient } from 'weaviate-client';
import { ApiKeyStore } from '../domain/weaviate/api-keys';
import { closeWeaviate, connectWeaviate } from '../domain/weaviate/client';
import { COLLECTIONS } from '../domain/weaviate/collections';
import { SCOPES } from '../api/scopes';
import { CLUSTER_REPLICATION_FACTOR } from '../scripts/stack/cluster';
import { LaunchedCluster, launchCluster } from '../scripts/stack/launcher';
import { readWeaviateKey } from '../scripts/stack/weaviate-key';
import { Load, Sample, sleep, waitRestarted } from './lib/fault-load';
import { positiveInt, round, runInfo, writeResult } from './lib/run-info';

type Fault =
  'weaviate_follower' | 'weaviate_leader' | 'temporal_process' | 'postgres' | 'worker' | 'api_instance' | 'embeddings';

const FAULTS: Fault[] = [
  'weaviate_follower',
  'weaviate_leader',
  'temporal_process',
  'postgres',
  'worker',
  'api_instance',
  'embeddings',
];

/** A failed request answered within this counts as a fast 503 (when it is a 503). */
const FAST_MS = 2000;
/** The window of the recovery measure, and how close its p95 must come to the baseline's. */
const RECOVERY_WINDOW_MS = 5000;
const RECOVERY_FACTOR = 1.5;

const GOALS = {
  all: { acknowledged_lost: 0, stored_twice: 0 },
  weaviate_follower: { success_rate: 0.99 },
  worker: { success_rate: 0.99 },
  api_instance: { success_rate: 0.99 },
  weaviate_leader: { error_seconds_max: 10, errors_all_fast_503: true },
  temporal_process: { error_seconds_max: 10, errors_all_fast_503: true },
  postgres: { writes_fail_as_fast_503: true, searches_keep_answering: true, full_service_within_s_of_restart: 15 },
} as const;

interface Options {
  faults: Fault[];
  postgresDownSeconds: number;
  baselineSeconds: number;
  afterSeconds: number;
  observeSeconds: number;
  maxOutageSeconds: number;
  keepData: boolean;
  out: string;
}

const ok = (s: Sample) => s.status >= 200 && s.status < 300 && !s.partial;
/** A sample's status for the counts: a partly stored upload is `200 partial`. */
const statusOf = (s: Sample) => (s.partial ? '200 partial' : String(s.status));

function p95(samples: Sample[]): number {
  const sorted = samples.map((s) => s.end - s.start).sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] : 0;
}

/** The Weaviate node that leads the Raft cluster, from any node's cluster statistics. */
async function raftLeader(cluster: LaunchedCluster, apiKey: string): Promise<number> {
  for (const [i, node] of cluster.ports.weaviateNodes.entries()) {
    try {
      const res = await fetch(`http://127.0.0.1:${node.http}/v1/cluster/statistics`, {
        headers: { Authorization: `Bearer ${apiKey}` },
        signal: AbortSignal.timeout(2000),
      });
      const body = (await res.json()) as { statistics?: { name: string; leaderId?: string }[] };
      const leader = body.statistics?.find((s) => s.leaderId)?.leaderId;
      if (leader) return Number(/^node(\d+)$/.exec(leader)?.[1]);
    } catch {
      if (i === cluster.ports.weaviateNodes.length - 1) throw new Error('no Weaviate node reports a Raft leader');
    }
  }
  throw new Error('no Weaviate node reports a Raft leader');
}

/** The processes a fault kills, by their pid files' names. */
async function targets(fault: Fault, cluster: LaunchedCluster, apiKey: string): Promise<string[]> {
  if (fault === 'weaviate_leader') return [`weaviate-${await raftLeader(cluster, apiKey)}`];
  if (fault === 'weaviate_follower') {
    const leader = await raftLeader(cluster, apiKey);
    return [`weaviate-${leader === 0 ? 1 : 0}`];
  }
  if (fault === 'temporal_process') return ['temporal-1'];
  if (fault === 'postgres') return ['postgres'];
  if (fault === 'worker') return ['worker-1'];
  if (fault === 'api_instance') return ['api-1'];
  return ['embeddings', 'embeddings-query', 'english-encoder'];
}

/** The first end of a 5 s window after `from` whose requests all succeeded, with a p95 within 1.5× of `baseline`. */
function recoveredAt(samples: Sample[], from: number, baselineP95: number, until: number): number | null {
  for (let start = from; start + RECOVERY_WINDOW_MS <= until; start += 1000) {
    const window = samples.filter((s) => s.start >= start && s.start < start + RECOVERY_WINDOW_MS);
    if (window.length >= 5 && window.every(ok) && p95(window) <= RECOVERY_FACTOR * baselineP95)
      return start + RECOVERY_WINDOW_MS;
  }
  return null;
}

async function runFault(o: { fault: Fault; load: Load; cluster: LaunchedCluster; apiKey: string; options: Options }) {
  const { fault, load, cluster, options } = o;
  console.log(`[faults] ${fault}: baseline ${options.baselineSeconds} s`);
  const baselineFrom = Date.now();
  await sleep(options.baselineSeconds * 1000);
  const baseline = load.samples.filter((s) => s.start >= baselineFrom && ok(s));
  const names = await targets(fault, cluster, o.apiKey);
  const old = new Map(names.map((n) => [n, cluster.pid(n)!]));
  for (const [name, pid] of old) if (!pid) throw new Error(`no pid file for ${name} in ${cluster.dataDir}`);
  const killedAt = Date.now();
  for (const pid of old.values()) process.kill(pid, 'SIGKILL');
  console.log(`[faults] ${fault}: killed ${names.join(', ')}`);
  // PostgreSQL stays stopped for a while: its port held, the supervisor's restarts fail until it is let go.
  if (fault === 'postgres') await holdPort(cluster.ports.postgres, options.postgresDownSeconds * 1000);
  const restartedAt = await waitRestarted({
    pid: (name) => cluster.pid(name),
    names,
    old,
    timeoutMs: options.maxOutageSeconds * 1000,
  });
  const observeUntil = Math.max(
    killedAt + options.observeSeconds * 1000,
    (restartedAt ?? killedAt) + options.afterSeconds * 1000,
  );
  await sleep(Math.max(0, observeUntil - Date.now()));
  await load.settled(observeUntil);
  const during = load.samples.filter((s) => s.start >= killedAt && s.start < observeUntil);
  const failed = during.filter((s) => !ok(s));
  const byStatus: Record<string, number> = {};
  for (const s of during) byStatus[statusOf(s)] = (byStatus[statusOf(s)] ?? 0) + 1;
  const baselineP95 = p95(baseline);
  const recovered = restartedAt ? recoveredAt(load.samples, restartedAt, baselineP95, observeUntil) : null;
  const notFast503 = failed.filter((s) => s.status !== 503 || s.end - s.start > FAST_MS);
  const result: Record<string, unknown> = {
    killed: names,
    requests_by_status: byStatus,
    success_rate: during.length ? round((during.length - failed.length) / during.length, 4) : null,
    error_seconds: failed.length
      ? round((Math.max(...failed.map((s) => s.end)) - Math.min(...failed.map((s) => s.start))) / 1000, 1)
      : 0,
    errors_not_fast_503: notFast503.length,
    longest_request_ms: during.length ? Math.max(...during.map((s) => s.end - s.start)) : 0,
    restarted_after_s: restartedAt ? round((restartedAt - killedAt) / 1000, 1) : null,
    baseline_p95_ms: baselineP95,
    recovery_s: recovered && restartedAt ? round((recovered - restartedAt) / 1000, 1) : null,
    acknowledged_lost: 0,
    stored_twice: 0,
    error_examples: [...new Set(failed.map((s) => `${s.kind} ${s.status}${s.error ? `: ${s.error}` : ''}`))].slice(
      0,
      8,
    ),
  };
  if (fault === 'postgres') {
    // While PostgreSQL was down (from the kill to the restart): how writes and searches fared.
    const down = during.filter((s) => s.start < (restartedAt ?? observeUntil));
    const writes = down.filter((s) => s.kind === 'upload');
    const searches = down.filter((s) => s.kind === 'search');
    result.while_down = {
      seconds: restartedAt ? round((restartedAt - killedAt) / 1000, 1) : null,
      writes_by_status: countBy(writes.map(statusOf)),
      writes_failed_not_fast_503: writes.filter((s) => !ok(s) && (s.status !== 503 || s.end - s.start > FAST_MS))
        .length,
      searches_by_status: countBy(searches.map(statusOf)),
    };
    const fullAfter = restartedAt
      ? load.samples.filter((s) => s.start >= restartedAt && !ok(s)).reduce((t, s) => Math.max(t, s.end), restartedAt)
      : null;
    result.full_service_s_after_restart = fullAfter && restartedAt ? round((fullAfter - restartedAt) / 1000, 1) : null;
  }
  console.log(
    `[faults] ${fault}: ${JSON.stringify(byStatus)}, restarted after ${result.restarted_after_s} s, recovered ${result.recovery_s} s after`,
  );
  return { killedAt, result };
}

/**
 * Holds a loopback port for `ms`, as a process still dying would, retrying while its dying owner
 * still has it: the supervisor's restarts fail until it is let go. A connection to it is reset at
 * once, as to a dead server (one accepted and left open would hang its client instead).
 */
async function holdPort(port: number, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const server = net.createServer((socket) => socket.resetAndDestroy());
    const held = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (held) {
      await sleep(Math.max(0, until - Date.now()));
      await new Promise((r) => server.close(r));
      return;
    }
    await sleep(20);
  }
}

const countBy = (values: string[]) =>
  values.reduce<Record<string, number>>((acc, v) => ((acc[v] = (acc[v] ?? 0) + 1), acc), {});

/** Objects per acknowledged case id, read from Weaviate at QUORUM (0: lost, 2 or more: stored twice). */
async function storedCopies(weaviate: WeaviateClient, load: Load): Promise<Map<string, number>> {
  const copies = new Map<string, number>([...load.acknowledged.keys()].map((id) => [id, 0]));
  const tenants = new Set([...load.acknowledged.values()].map((t) => t.tenant));
  for (const tenant of tenants) {
    const cases = weaviate.collections.use(COLLECTIONS.supportCase).withTenant(tenant);
    for await (const o of cases.iterator({ returnProperties: ['caseId'] })) {
      const id = String(o.properties.caseId);
      if (copies.has(id)) copies.set(id, copies.get(id)! + 1);
    }
  }
  return copies;
}

async function main(options: Options): Promise<void> {
  const info = runInfo();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'support-ai-faults-'));
  const started = Date.now();
  const cluster = await launchCluster({ dataDir, env: { LOG_LEVEL: 'warn' }, startTimeoutMs: 1_800_000 });
  const startSeconds = round((Date.now() - started) / 1000, 1);
  // Ctrl-C stops the cluster too (it runs in a process group of its own).
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => void cluster.interrupt().finally(() => process.exit(130)));
  const apiKey = readWeaviateKey(dataDir)!;
  try {
    const weaviate = await connectWeaviate({
      host: '127.0.0.1',
      httpPort: cluster.ports.weaviateHttp,
      grpcPort: cluster.ports.weaviateGrpc,
      apiKey,
      replicationFactor: CLUSTER_REPLICATION_FACTOR,
      consistency: 'QUORUM',
    });
    const keys = new ApiKeyStore(async () => weaviate);
    const tenants = [];
    for (const tenant of ['faults-a', 'faults-b']) {
      const { key } = await keys.create({ tenant, scopes: [...SCOPES], name: 'bench:faults' });
      tenants.push({ tenant, key });
    }
    const load = new Load({
      baseUrl: cluster.baseUrl,
      tenants,
      everyMs: { search: 500, ask: 1000, upload: 1000, evaluate: 2000 },
    });
    await load.seed();
    load.start();
    const runs: { fault: Fault; killedAt: number; result: Record<string, unknown> }[] = [];
    for (const fault of options.faults)
      runs.push({ fault, ...(await runFault({ fault, load, cluster, apiKey, options })) });
    await load.stop();
    // Replicas catch up in the background after a node's restart; QUORUM reads see every acknowledged write anyway.
    const copies = await storedCopies(weaviate, load);
    const ackedAt = new Map(load.samples.filter((s) => s.id && ok(s)).map((s) => [s.id!, s.end]));
    const charge = (id: string) => runs.filter((r) => r.killedAt <= ackedAt.get(id)!).pop() ?? runs[0];
    for (const [id, n] of copies) {
      if (n === 0) (charge(id).result.acknowledged_lost as number)++;
      if (n > 1) (charge(id).result.stored_twice as number)++;
    }
    writeResult(options.out, {
      ...info,
      settings: {
        ...options,
        topology:
          'npm run start:cluster: 2 APIs and 2 workers, 2 Temporal server processes on PostgreSQL, 3 Weaviate nodes (replication factor 3, QUORUM), HAProxy',
        load: 'per tenant: a search every 500 ms, an ask every 1 s, a one-case upload every 1 s, an evaluation every 2 s, sent on time (open loop); 2 tenants; through the balancer',
        fast_503_ms: FAST_MS,
        recovery: `the end of the first ${RECOVERY_WINDOW_MS / 1000} s window after the restart with every request a success and p95 within ${RECOVERY_FACTOR}x of the baseline`,
      },
      cluster_start_s: startSeconds,
      goals: GOALS,
      acknowledged_uploads: load.acknowledged.size,
      acknowledged_lost: [...copies.values()].filter((n) => n === 0).length,
      stored_twice: [...copies.values()].filter((n) => n > 1).length,
      lost_ids: [...copies].filter(([, n]) => n === 0).map(([id]) => id),
      faults: Object.fromEntries(runs.map((r) => [r.fault, r.result])),
    });
    await closeWeaviate();
  } finally {
    await cluster.interrupt();
    if (options.keepData) console.log(`[faults] data and logs kept in ${dataDir}`);
    else fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function faultList(value: string): Fault[] {
  const named = value.split(',').map((f) => f.trim());
  const unknown = named.filter((f) => !FAULTS.includes(f as Fault));
  if (unknown.length) throw new Error(`unknown faults: ${unknown.join(', ')}; known: ${FAULTS.join(', ')}`);
  return named as Fault[];
}

const program = new Command('bench:faults')
  .description('kill each part of the cluster topology under load and measure what it costs')
  .option('--faults <list>', `faults to cause, in order (${FAULTS.join(',')})`, faultList, FAULTS)
  .option('--postgres-down-seconds <n>', 'how long PostgreSQL stays stopped before it may start again', positiveInt, 10)
  .option('--baseline-seconds <n>', 'load before each kill', positiveInt, 20)
  .option('--after-seconds <n>', 'observation after each restart', positiveInt, 25)
  .option('--observe-seconds <n>', 'observation after each kill, at least', positiveInt, 40)
  .option('--max-outage-seconds <n>', 'give up waiting for a restart after this', positiveInt, 180)
  .option('--keep-data', 'keep the data folder and its logs')
  .option('--out <file>', 'result file', 'bench/results/faults.json')
  .action((o: Options) =>
    main(o).catch((err) => {
      console.error(`[faults] ${err.stack ?? err}`);
      process.exit(1);
    }),
  );
program.parse();
