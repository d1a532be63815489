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
export async function tenantClient(app: InProcessApp, tenant: string, scopes: string[], keyCount = 1, headers: Record<string, string> = {}): Promise<ApiClient> {
  const keys: string[] = [];
  for (let i = 0; i < keyCount; i++) keys.push((await app.keys.create({ tenant, scopes, name: 'benchmark' })).key);
  return new ApiClient(app.baseUrl, keys, headers);
}

/** The API in a process of its own, as `npm start` runs it, on the in-process app's task queue and stores. */
export interface ApiProcess {
  baseUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts `api/server.ts` as a child process next to the in-process app: the same Temporal task
 * queue, Weaviate and embedding servers, so keys made with `app.keys` work on it. A latency
 * benchmark that calls code in its own process beside the API then does not share the API's
 * event loop with its client and its direct calls.
 */
export async function startApiProcess(app: InProcessApp): Promise<ApiProcess> {
  const port = await freePort();
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-api-'));
  const env = { ...(process.env as Record<string, string>), TASK_QUEUE: app.taskQueue, API_PORT: String(port), LOG_LEVEL: 'warn' };
  const baseUrl = `http://127.0.0.1:${port}`;
  const service = await startService(nodeSpec({ name: 'api', entry: 'api/server.ts', env, logDir, healthy: () => httpOk(`${baseUrl}/healthz`), ports: [port] }));
  console.log(`[bench] API process started (log ${service.logFile})`);
  return { baseUrl, stop: () => stopService(service) };
}
