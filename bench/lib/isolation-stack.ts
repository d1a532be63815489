/**
 * The service as bench:isolation measures it: a worker and the API as processes of their own (as
 * `npm start` runs them, with the same node flags), on a fresh task queue of the stack that
 * scripts/stack/bench.ts started, so the benchmark's own work never shares their event loops. The
 * API process has bench/lib/loop-delay-preload.js preloaded, which writes its event-loop delay to
 * a file; the service's code is unchanged.
 */
import { Client, Connection } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SCOPES } from '../../api/scopes';
import { loadServicesConfig } from '../../domain/config';
import { ApiKeyStore } from '../../domain/weaviate/api-keys';
import { connectWeaviate } from '../../domain/weaviate/client';
import { nodeSpec, workerPolling } from '../../scripts/stack/processes';
import { freePort, httpOk, startService, stopService, type Service } from '../../scripts/stack/services';

export interface IsolationStack {
  baseUrl: string;
  temporal: Client;
  logDir: string;
  /** Keys with every scope for a tenant. */
  keys(tenant: string, count: number): Promise<string[]>;
  /** The API's event-loop delay: the largest of each half second, by epoch ms. */
  loopDelays(): { t: number; max_ms: number }[];
  stop(): Promise<void>;
}

export async function startIsolationStack(): Promise<IsolationStack> {
  if (!process.env.TEMPORAL_ADDRESS) throw new Error('run it through `npm run bench:isolation`');
  const taskQueue = `isolation-${randomBytes(4).toString('hex')}`;
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-isolation-'));
  const loopFile = path.join(logDir, 'api-loop-delay.jsonl');
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    TASK_QUEUE: taskQueue,
    LOG_LEVEL: 'warn',
  };
  const config = loadServicesConfig(env);
  const polling = workerPolling({
    address: config.temporal.address,
    namespace: config.temporal.namespace,
    taskQueue,
  });
  const started: Service[] = [];
  const stop = async () => {
    for (const service of started.reverse()) await stopService(service);
    await polling.close();
  };
  try {
    const startedAt = Date.now();
    started.push(
      await startService(
        nodeSpec({
          name: 'worker',
          entry: 'worker/main.ts',
          env,
          logDir,
          healthy: polling.healthy,
          startTimeoutMs: 180_000,
        }),
      ),
    );
    const preload = require.resolve('./loop-delay-preload.js');
    started.push(
      await startService(
        nodeSpec({
          name: 'api',
          entry: 'api/server.ts',
          env: {
            ...env,
            API_PORT: String(port),
            NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --require ${preload}`.trim(),
            BENCH_LOOP_DELAY_FILE: loopFile,
          },
          logDir,
          healthy: () => httpOk(`${baseUrl}/healthz`),
          ports: [port],
        }),
      ),
    );
    console.log(
      `[isolation] worker and API processes started in ${((Date.now() - startedAt) / 1000).toFixed(1)} s (logs ${logDir})`,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  const connection = await Connection.connect({ address: config.temporal.address });
  const store = new ApiKeyStore(() => connectWeaviate(config.weaviate));
  return {
    baseUrl,
    temporal: new Client({ connection, namespace: config.temporal.namespace }),
    logDir,
    async keys(tenant, count) {
      const keys: string[] = [];
      for (let i = 0; i < count; i++)
        keys.push((await store.create({ tenant, scopes: [...SCOPES], name: 'bench:isolation' })).key);
      return keys;
    },
    loopDelays() {
      if (!fs.existsSync(loopFile)) return [];
      return fs
        .readFileSync(loopFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line));
    },
    async stop() {
      await connection.close();
      await stop();
    },
  };
}
