/** The API and a worker in this process (scripts/stack/in-process.ts) plus API keys for bench tenants. */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InProcessApp, startInProcess } from '../../scripts/stack/in-process';
import { nodeSpec } from '../../scripts/stack/processes';
import { freePort, httpOk, startService, stopService } from '../../scripts/stack/services';
import { ApiClient } from './api-client';

export type { InProcessApp };

export async function startApp(): Promise<InProcessApp> {
  const started = Date.now();
  const app = await startInProcess();
  console.log(`[bench] worker and API started in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return app;
}

/** A tenant name no earlier run used: `<label>-<hex>`, within [A-Za-z0-9_-]{1,64}. */
export const freshTenant = (label: string) => `${label}-${randomBytes(4).toString('hex')}`.slice(0, 64);

/**
 * A client for a tenant with `keyCount` keys (the API rate-limits per key, 600 requests a minute,
 * so a benchmark that sends more spreads them over several keys of the same tenant).
 */
export async function tenantClient(
  app: InProcessApp,
  tenant: string,
  scopes: string[],
  keyCount = 1,
  headers: Record<string, string> = {},
): Promise<ApiClient> {
  const keys: string[] = [];
  for (let i = 0; i < keyCount; i++) keys.push((await app.keys.create({ tenant, scopes, name: 'benchmark' })).key);
  return new ApiClient(app.baseUrl, keys, headers);
}

/** A process of ours started next to the in-process app, answering HTTP on its own port. */
export interface ChildProcess {
  baseUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts `entry` as a child process with the in-process app's Weaviate and embedding servers (so
 * keys made with `app.keys` work on an API started this way) and its task queue unless `taskQueue`
 * names another, its port in `portVariable` and `env` added, and waits for its /healthz. A latency
 * benchmark then does not share the measured process's event loop with its own client.
 */
export async function startChildProcess(
  app: InProcessApp,
  o: { name: string; entry: string; portVariable: string; taskQueue?: string; env?: Record<string, string> },
): Promise<ChildProcess> {
  const port = await freePort();
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-${o.name}-`));
  const env = {
    ...(process.env as Record<string, string>),
    TASK_QUEUE: o.taskQueue ?? app.taskQueue,
    [o.portVariable]: String(port),
    LOG_LEVEL: 'warn',
    ...o.env,
  };
  const baseUrl = `http://127.0.0.1:${port}`;
  const service = await startService(
    nodeSpec({ name: o.name, entry: o.entry, env, logDir, healthy: () => httpOk(`${baseUrl}/healthz`), ports: [port] }),
  );
  console.log(`[bench] ${o.name} process started (log ${service.logFile})`);
  return { baseUrl, stop: () => stopService(service) };
}
