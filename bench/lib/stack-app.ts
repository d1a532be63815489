/** The API and a worker in this process (scripts/stack/in-process.ts) plus API keys for bench tenants. */
import { randomBytes } from 'node:crypto';
import { InProcessApp, startInProcess } from '../../scripts/stack/in-process';
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
