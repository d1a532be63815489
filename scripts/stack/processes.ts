/**
 * The project's own processes (worker, API) as children of the launcher, run through ts-node.
 */
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import os from 'node:os';
import path from 'node:path';
import { batchNice, Service, ServiceSpec, spawnService } from './services';

const root = path.resolve(__dirname, '..', '..');

export const DEFAULT_NODE_SERVICE_FLAGS = '--single-threaded-gc';

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
 * Node's flags for our processes: V8 collects garbage on the process's own thread
 * (`--single-threaded-gc`) instead of with helper threads. On a host whose few cores the services
 * keep busy, the helpers contend with the other processes for the same cores: at concurrency 16
 * the API process spent about 1.5 ms less CPU per ask this way (6 %), and bench:ask's in-process
 * baseline about 0.8 ms (docs/benchmarks.md, "Ask"). On a host with cores to spare,
 * `NODE_SERVICE_FLAGS=""` gives V8's defaults back; docker-compose.yml runs the same flags.
 */
export function nodeServiceFlags(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.NODE_SERVICE_FLAGS ?? DEFAULT_NODE_SERVICE_FLAGS).split(/\s+/).filter(Boolean);
}

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
  return {
    name: o.name,
    // The worker does the batch work (ingestion, grading, tag training): below the API (batchNice).
    nice: o.entry === WORKER_ENTRY ? batchNice() : undefined,
    cmd: process.execPath,
    args: [...nodeServiceFlags(), '-r', 'ts-node/register/transpile-only', path.join(root, o.entry)],
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
