/**
 * The project's own processes (worker, API) as children of the launcher, run through ts-node.
 */
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import os from 'node:os';
import path from 'node:path';
import { batchNice, Service, ServiceSpec, spawnService } from './services';

const root = path.resolve(__dirname, '..', '..');

/** Node's flags of each of our processes unless NODE_SERVICE_FLAGS is set (see nodeServiceFlags). */
export const DEFAULT_NODE_FLAGS = {
  worker: '--single-threaded-gc',
  api: '--v8-pool-size=1 --heap-growing-percent=50',
} as const;
export type NodeProcess = keyof typeof DEFAULT_NODE_FLAGS;

/** The ports of the API's and the worker's metrics endpoints (README, "Ports"). */
export const METRICS_PORT_SETTINGS = [
  'API_METRICS_PORT',
  'API_SDK_METRICS_PORT',
  'WORKER_METRICS_PORT',
  'WORKER_SDK_METRICS_PORT',
] as const;

/**
 * The metrics endpoints off (port 0) for each of them `env` does not set: the test and benchmark
 * runs start several APIs and workers, which would otherwise all claim the fixed default ports; a
 * test or benchmark that scrapes them gives the processes it starts free ports of their own.
 */
export function metricsOffUnlessSet(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return Object.fromEntries(METRICS_PORT_SETTINGS.filter((name) => !env[name]).map((name) => [name, '0']));
}

/** The worker process's entry point. */
export const WORKER_ENTRY = 'worker/main.ts';

/**
 * Node's flags for one of our processes. The worker collects garbage on its own thread
 * (`--single-threaded-gc`), not with helper threads: on a host whose few cores the services keep
 * busy, the helpers contend with the other processes for the same cores; at concurrency 16 the
 * API process spent about 1.5 ms less CPU per ask that way (6 %; docs/benchmarks.md, "Ask"). The
 * API does not, because its event loop answers every tenant: during another tenant's 10 MB
 * uploads, collections on that thread held the loop for 80 to 105 ms. It keeps V8's concurrent
 * marking, with one helper thread (`--v8-pool-size=1`) rather than one per core, and lets its old
 * generation grow by half its live size between full collections (`--heap-growing-percent=50`)
 * instead of the tenth V8 chose there, which ran a full collection of its 90 MB every 300 ms
 * (docs/benchmarks.md, "Isolation"). Any other entry point (a benchmark's in-process baseline)
 * runs as the API does. `NODE_SERVICE_FLAGS` replaces these flags for every process
 * (`NODE_SERVICE_FLAGS=""` gives V8's defaults back); docker-compose.yml runs the same flags.
 */
export function nodeServiceFlags(o: { process: NodeProcess; env?: NodeJS.ProcessEnv }): string[] {
  const env = o.env ?? process.env;
  return (env.NODE_SERVICE_FLAGS ?? DEFAULT_NODE_FLAGS[o.process]).split(/\s+/).filter(Boolean);
}

/** Which of our processes an entry point is, for its node flags. */
export const nodeProcessOf = (entry: string): NodeProcess => (entry === WORKER_ENTRY ? 'worker' : 'api');

/** One of our entry points (`worker/main.ts`, `api/server.ts`) as a service, with its health check and port when it has them. */
export function nodeSpec(o: {
  name: string;
  entry: string;
  env: Record<string, string>;
  logDir: string;
  healthy?: ServiceSpec['healthy'];
  ports?: number[];
  startTimeoutMs?: number;
}): ServiceSpec {
  const runs = nodeProcessOf(o.entry);
  return {
    name: o.name,
    // The worker does the batch work (ingestion, grading, tag training): below the API (batchNice).
    nice: runs === 'worker' ? batchNice() : undefined,
    cmd: process.execPath,
    args: [...nodeServiceFlags({ process: runs }), '-r', 'ts-node/register/transpile-only', path.join(root, o.entry)],
    cwd: root,
    env: o.env,
    logDir: o.logDir,
    healthy: o.healthy,
    startTimeoutMs: o.startTimeoutMs ?? 60_000,
    ports: o.ports ?? [],
  };
}

export function spawnNode(name: string, entry: string, env: Record<string, string>, logDir: string): Service {
  return spawnService(nodeSpec({ name, entry, env, logDir }));
}

/**
 * A worker's health check: Temporal lists it among the pollers of its workflow task queue, by the
 * identity the SDK gives a worker (`<pid>@<host>`), so a restarted worker counts only once it
 * polls itself, not while the dead one's last poll is still listed. One connection, opened on
 * first use; `close` ends it.
 */
export function workerPolling(o: { address: string; namespace: string; taskQueue: string }) {
  let connection: Promise<Connection> | undefined;
  const connect = () =>
    (connection ??= Connection.connect({ address: o.address, connectTimeout: 2000 }).catch((err) => {
      connection = undefined;
      throw err;
    }));
  return {
    async healthy(service: Service): Promise<boolean> {
      const c = await connect();
      const res = await c.withDeadline(Date.now() + 2000, () =>
        c.workflowService.describeTaskQueue({
          namespace: o.namespace,
          taskQueue: { name: o.taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
          taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        }),
      );
      return (res.pollers ?? []).some((poller) => poller.identity === `${service.child.pid}@${os.hostname()}`);
    },
    async close(): Promise<void> {
      const pending = connection;
      connection = undefined;
      await (await pending?.catch(() => undefined))?.close();
    },
  };
}
