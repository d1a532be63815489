/**
 * The shared test harness: a worker and the API, started once per mocha run against the real
 * stack that `npm test` launched (its addresses arrive in the environment), plus key factories
 * and a JSON request helper.
 * Tests use fresh tenants, so they never see each other's data.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { startServer } from '../../api/server';
import { SCOPES } from '../../api/scopes';
import { InProcessApp, startInProcess } from '../../scripts/stack/in-process';

export type Harness = InProcessApp;

let harness: Promise<Harness> | undefined;

/** Fails a suite early, with the way to run it, when the real stack is not there. */
export function requireStack(): void {
  if (!process.env.TEMPORAL_ADDRESS || !process.env.WEAVIATE_HTTP_PORT)
    throw new Error('these tests need the real stack: run them with `npm test`');
}

export function getHarness(): Promise<Harness> {
  harness ??= startInProcess({
    env: {
      KEY_CACHE_TTL_MS: '300',
      AUTH_FAILURES_PER_MINUTE: '1000',
      READ_LOG_FLUSH_MS: '200',
      TAG_TRAINING_DEBOUNCE_MS: '1000',
    },
  });
  return harness;
}

export async function closeHarness(): Promise<void> {
  if (harness) await (await harness).close();
  harness = undefined;
}

/** A tenant name no other test uses. */
export const freshTenant = (label = 't') => `${label}-${randomBytes(5).toString('hex')}`;

/** Creates a key for a (fresh by default) tenant; all scopes unless given. */
export async function createKey(
  o: { tenant?: string; scopes?: string[] } = {},
): Promise<{ key: string; tenant: string }> {
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

export type ApiInstance = Awaited<ReturnType<typeof startServer>> & { url: string };

/** Another API process's worth in this one, on the harness's task queue and services, with `env` on top. */
export async function apiInstance(env: Record<string, string> = {}): Promise<ApiInstance> {
  const h = await getHarness();
  const started = await startServer({
    ...process.env,
    TASK_QUEUE: h.taskQueue,
    API_PORT: '0',
    LOG_LEVEL: 'silent',
    KEY_CACHE_TTL_MS: '300',
    ...env,
  });
  return { ...started, url: `http://127.0.0.1:${(started.server.address() as AddressInfo).port}` };
}
