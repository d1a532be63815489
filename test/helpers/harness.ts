/**
 * The shared test harness: a worker and the API, started once per mocha run against the real
 * stack that `npm test` launched (its addresses arrive in the environment), plus key factories.
 * Tests use fresh tenants, so they never see each other's data.
 */
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { loadServicesConfig } from '../../activities/config';
import { ApiKeyStore } from '../../activities/weaviate/api-keys';
import { connectWeaviate } from '../../activities/weaviate/client';
import { startServer } from '../../api/server';
import { SCOPES } from '../../api/scopes';
import { createWorker } from '../../worker/worker';

export interface Harness {
  baseUrl: string;
  temporal: Client;
  keys: ApiKeyStore;
  nativeConnection: NativeConnection;
  workflowBundle: { code: string };
  close(): Promise<void>;
}

let harness: Promise<Harness> | undefined;

export function requireStack(): void {
  if (!process.env.TEMPORAL_ADDRESS || !process.env.WEAVIATE_HTTP_PORT) {
    throw new Error('these tests need the real stack: run them with `npm test`');
  }
}

let runtimeInstalled = false;
export function installRuntime(): void {
  if (runtimeInstalled) return;
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  runtimeInstalled = true;
}

async function start(): Promise<Harness> {
  requireStack();
  installRuntime();
  const taskQueue = `test-${randomBytes(4).toString('hex')}`;
  const env = { ...process.env, TASK_QUEUE: taskQueue, API_PORT: '0', LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent', KEY_CACHE_TTL_MS: '300' };
  const config = loadServicesConfig(env);
  const nativeConnection = await NativeConnection.connect({ address: config.temporal.address });
  const workflowBundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), logger: new DefaultLogger('WARN') });
  const worker: Worker = await createWorker({ config, connection: nativeConnection, workflowBundle, taskQueue });
  const running = worker.run();
  const api = await startServer(env);
  const connection = await Connection.connect({ address: config.temporal.address });
  const { port } = api.server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
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

export function getHarness(): Promise<Harness> {
  harness ??= start();
  return harness;
}

export async function closeHarness(): Promise<void> {
  if (harness) await (await harness).close();
  harness = undefined;
}

/** A tenant name no other test uses. */
export const freshTenant = (label = 't') => `${label}-${randomBytes(5).toString('hex')}`;

/** Creates a key for a (fresh by default) tenant; all scopes unless given. */
export async function createKey(o: { tenant?: string; scopes?: string[] } = {}): Promise<{ key: string; tenant: string }> {
  const h = await getHarness();
  const tenant = o.tenant ?? freshTenant();
  const { key } = await h.keys.create({ tenant, scopes: o.scopes ?? [...SCOPES] });
  return { key, tenant };
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** A JSON request to the API under test. */
export async function api<T = any>(
  method: string,
  path: string,
  o: { key?: string; body?: unknown; headers?: Record<string, string>; rawBody?: string } = {},
): Promise<ApiResponse<T>> {
  const h = await getHarness();
  const headers: Record<string, string> = { ...o.headers };
  if (o.key) headers.Authorization = `Bearer ${o.key}`;
  if (o.body !== undefined || o.rawBody !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${h.baseUrl}${path}`, {
    method,
    headers,
    body: o.rawBody ?? (o.body === undefined ? undefined : JSON.stringify(o.body)),
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON: keep the text so the assertion shows it */
  }
  return { status: res.status, body, headers: res.headers };
}
