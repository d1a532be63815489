/**
 * How many series the API's and the worker's metrics cost once many tenants use the service
 * (bench:observability): traffic from many tenants (a search, an ask and a one-case upload each,
 * and, for some, requests past their key's rate limit, so that the tenant label of
 * `supportai_tenant_throttled_total` is used), then the series of each metrics endpoint counted
 * from its exposition text, the tenant-labelled ones apart, and Prometheus's own count per job.
 */
import { randomUUID } from 'node:crypto';
import { mapPool } from './api-client';
import { caseRecord, type Tenant } from './fault-load';

/** The series of one endpoint: sample lines, per metric family (histograms' `_bucket`, `_sum`, `_count` under their family), and those with a `tenant` label. */
export interface EndpointSeries {
  series: number;
  by_family: Record<string, number>;
  tenant_labelled: number;
  /** The distinct values of the `tenant` label. */
  tenant_values: number;
  tenant_other: boolean;
}

/** A sample line's metric name and its `tenant` label value, when it has one. */
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s/;
const TENANT = /(?:^|,)tenant="([^"]*)"/;

/** The value of the one sample whose name and labels start with `prefix` (e.g. `name{a="b"`) in an exposition text, or undefined. */
export function sampleValue(text: string, prefix: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** Counts the series of Prometheus's text exposition format. */
export function countSeries(text: string): EndpointSeries {
  const byFamily: Record<string, number> = {};
  const tenants = new Set<string>();
  let series = 0;
  let tenantLabelled = 0;
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const sample = SAMPLE.exec(line);
    if (!sample) continue;
    series += 1;
    const family = sample[1].replace(/_(bucket|sum|count)$/, '');
    byFamily[family] = (byFamily[family] ?? 0) + 1;
    const tenant = sample[2] ? TENANT.exec(sample[2]) : null;
    if (tenant) {
      tenantLabelled += 1;
      tenants.add(tenant[1]);
    }
  }
  return {
    series,
    by_family: Object.fromEntries(Object.entries(byFamily).sort(([, a], [, b]) => b - a)),
    tenant_labelled: tenantLabelled,
    tenant_values: tenants.size,
    tenant_other: tenants.has('other'),
  };
}

/** Reads and counts one metrics endpoint (`http://host:port/metrics`); null when the port is 0 or it does not answer. */
export async function endpointSeries(port: number): Promise<EndpointSeries | null> {
  if (!port) return null;
  try {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5000) });
    return res.ok ? countSeries(await res.text()) : null;
  } catch {
    return null;
  }
}

/** Prometheus's series per scrape job, `count by (job) ({__name__=~".+"})`, at the moment of asking. */
export async function prometheusSeriesByJob(prometheusUrl: string): Promise<Record<string, number> | null> {
  const query = new URLSearchParams({ query: 'count by (job) ({__name__=~".+"})' });
  try {
    const res = await fetch(`${prometheusUrl}/api/v1/query?${query}`, { signal: AbortSignal.timeout(10_000) });
    if (!res.ok) return null;
    const body = (await res.json()) as { data: { result: { metric: { job?: string }; value: [number, string] }[] } };
    return Object.fromEntries(body.data.result.map((r) => [r.metric.job ?? '(none)', Number(r.value[1])]));
  } catch {
    return null;
  }
}

const post = (baseUrl: string, key: string, path: string, body: unknown) =>
  fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(120_000),
  }).then(
    async (res) => {
      await res.arrayBuffer();
      return res.status;
    },
    () => 0,
  );

export interface TenantTraffic {
  tenants: number;
  /** Answers of the regular requests (a search, an ask and an upload per tenant), by status. */
  by_status: Record<string, number>;
  throttled_tenants: number;
  /** Requests sent past the rate limit, and how many of them were answered 429. */
  throttling_requests: number;
  throttled_429: number;
}

/**
 * Per tenant a case search, an ask and a one-case upload (`concurrency` tenants at a time); then,
 * for the first `throttled` tenants, requests their key's rate limit refuses: invalid searches
 * (answered 400 below the limit, since the limit is checked before the body) until 429s come,
 * `rateLimit` + 50 at the most, 8 at a time.
 */
export async function tenantTraffic(o: {
  baseUrl: string;
  tenants: Tenant[];
  throttled: number;
  rateLimit: number;
  concurrency?: number;
}): Promise<TenantTraffic> {
  const byStatus: Record<string, number> = {};
  const count = (status: number) => (byStatus[status] = (byStatus[status] ?? 0) + 1);
  await mapPool(o.tenants, o.concurrency ?? 4, async (t, i) => {
    count(await post(o.baseUrl, t.key, '/v1/search/cases', { query: 'printer does not print after update' }));
    count(
      await post(o.baseUrl, t.key, '/v1/assistant/ask', { query: 'How do I fix a printer that stopped printing?' }),
    );
    count(await post(o.baseUrl, t.key, '/v1/cases', { data: [caseRecord(`series-${randomUUID()}`, i)] }));
  });
  let requests = 0;
  let refused = 0;
  for (const t of o.tenants.slice(0, o.throttled)) {
    let sent = 0;
    let tenantRefused = 0;
    await mapPool(Array.from({ length: 8 }), 8, async () => {
      while (sent < o.rateLimit + 50 && tenantRefused < 5) {
        sent += 1;
        if ((await post(o.baseUrl, t.key, '/v1/search/cases', {})) === 429) tenantRefused += 1;
      }
    });
    requests += sent;
    refused += tenantRefused;
  }
  return {
    tenants: o.tenants.length,
    by_status: byStatus,
    throttled_tenants: Math.min(o.throttled, o.tenants.length),
    throttling_requests: requests,
    throttled_429: refused,
  };
}
