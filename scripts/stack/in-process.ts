/**
 * A worker and the API in this process, against a running stack whose addresses are in the
 * environment. The tests and the benchmarks use it; `npm start` runs them as child processes.
 */
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, LogLevel, NativeConnection, Runtime } from '@temporalio/worker';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { ApiKeyStore } from '../../domain/weaviate/api-keys';
import { connectWeaviate } from '../../domain/weaviate/client';
import { startServer } from '../../api/server';
import { temporalLogger } from '../../worker/logger';
import { loadWorkerConfig } from '../../worker/config';
import { createWorker } from '../../worker/worker';
import { workflowBundle as sharedWorkflowBundle } from '../../worker/workflow-bundle';

export interface InProcessApp {
  baseUrl: string;
  taskQueue: string;
  temporal: Client;
  keys: ApiKeyStore;
  nativeConnection: NativeConnection;
  workflowBundle: { codePath: string };
  close(): Promise<void>;
}

let runtimeInstalled = false;
/**
 * The Temporal runtime of the tests' process, with its log level; installed once, by whichever test needs it first.
 * The core's own logs go through the same logger and level (they would otherwise print at WARN on stderr: every
 * worker on the time-skipping test server warns that the server keeps no heartbeat details of failed activities).
 */
export function installRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  // An API started before (its ask worker's connection) has made the default runtime already: keep that one.
  if (Runtime._instance) return;
  const level = (process.env.WORKER_LOG_LEVEL as LogLevel) ?? 'ERROR';
  Runtime.install({
    logger: temporalLogger(level),
    telemetryOptions: { logging: { filter: { core: level }, forward: {} } },
  });
}

export async function startInProcess(o: { env?: Record<string, string> } = {}): Promise<InProcessApp> {
  if (!process.env.TEMPORAL_ADDRESS || !process.env.WEAVIATE_HTTP_PORT) {
    throw new Error('this needs the real stack: run it through `npm test` or `npm run bench:*`');
  }
  installRuntime();
  const taskQueue = `inproc-${randomBytes(4).toString('hex')}`;
  const env = {
    ...process.env,
    TASK_QUEUE: taskQueue,
    API_PORT: '0',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    ...o.env,
  };
  const workerConfig = loadWorkerConfig(env);
  const config = workerConfig.services;
  const nativeConnection = await NativeConnection.connect({ address: config.temporal.address });
  const workflowBundle = await sharedWorkflowBundle({ logger: new DefaultLogger('WARN') });
  const worker = await createWorker({ config: workerConfig, connection: nativeConnection, workflowBundle, taskQueue });
  const running = worker.run();
  const api = await startServer(env, { workflowBundle });
  const connection = await Connection.connect({ address: config.temporal.address });
  const { port } = api.server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    taskQueue,
    temporal: new Client({ connection, namespace: config.temporal.namespace }),
    keys: new ApiKeyStore(() => connectWeaviate(config.weaviate)),
    nativeConnection,
    workflowBundle,
    async close() {
      await api.close();
      worker.shutdown();
      await running;
      await connection.close();
      await nativeConnection.close();
    },
  };
}
