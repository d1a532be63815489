/**
 * The Prometheus metrics of the API and the worker (docs/operations.md, "Metrics"), scraped from
 * their own endpoints on the real stack: requests by operation (never a raw path), refusals by
 * reason, a tenant's throttling under a bounded label, dependencies as the breakers see them,
 * uploads accepted by the API and stored by a worker process, and the Temporal runtime's own
 * metrics from that worker.
 */
import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'mocha';
import { randomBytes } from 'node:crypto';
import { sampleValue } from '../../bench/lib/metric-series';
import { freePort, Service, stopService } from '../../scripts/stack/services';
import { ApiInstance, apiInstance, createKey, requireStack } from '../helpers/harness';
import { supportCase } from '../helpers/factories';
import { startMetricsWorker } from '../helpers/metrics-worker';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function scrape(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
  return res.text();
}

async function until<T>(what: string, check: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

describe('metrics of the API and the worker', function () {
  this.timeout(180_000);
  const taskQueue = `metrics-${randomBytes(4).toString('hex')}`;
  let api: ApiInstance;
  let worker: Service;
  let apiMetrics: number;
  let workerMetrics: number;
  let workerSdkMetrics: number;

  before(async () => {
    requireStack();
    apiMetrics = await freePort();
    api = await apiInstance({
      TASK_QUEUE: taskQueue,
      API_METRICS_PORT: String(apiMetrics),
      RATE_LIMIT_PER_MINUTE: '1',
      METRICS_TENANT_LABELS: '1',
    });
    const started = await startMetricsWorker({ name: 'metrics-worker', taskQueue });
    ({ service: worker, metricsPort: workerMetrics, sdkMetricsPort: workerSdkMetrics } = started);
  });

  after(async () => {
    if (worker) await stopService(worker);
    await api?.close();
  });

  const send = (o: { key?: string; method?: string; path: string; body?: unknown }) =>
    fetch(`${api.url}${o.path}`, {
      method: o.method ?? 'POST',
      headers: {
        ...(o.key ? { Authorization: `Bearer ${o.key}` } : {}),
        ...(o.body ? { 'Content-Type': 'application/json' } : {}),
      },
      body: o.body ? JSON.stringify(o.body) : undefined,
    });

  it('names the process and sees its dependencies up', async () => {
    const text = await scrape(apiMetrics);
    assert.match(text, /^supportai_build_info\{process="api",version="[^"]+"\} 1$/m);
    for (const dependency of ['temporal', 'weaviate', 'embeddings'])
      assert.equal(sampleValue(text, `supportai_dependency_up{dependency="${dependency}"}`), 1, dependency);
    assert.match(text, /^supportai_dependency_probe_duration_seconds_count\{dependency="weaviate"\} [1-9]/m);
    assert.ok(text.includes('supportai_nodejs_eventloop_lag_p99_seconds'));
  });

  it('counts requests by operation, never by a raw path; an upload is accepted by the API and stored by the worker', async () => {
    const { key } = await createKey();
    // The API's series are those of this whole process, where other tests' APIs count too: compare before and after.
    const before = await scrape(apiMetrics);
    const uploads = 'supportai_http_requests_total{operation="uploadCases",status_class="2xx"}';
    const timed = 'supportai_http_request_duration_seconds_count{operation="uploadCases",status_class="2xx"}';
    const accepted = 'supportai_uploads_total{kind="cases",outcome="accepted"}';
    const probe = `/v1/no-such-route-${randomBytes(3).toString('hex')}`;
    assert.equal((await send({ method: 'GET', path: probe })).status, 404);
    const res = await send({ key, path: '/v1/cases', body: { data: [supportCase(), supportCase()] } });
    assert.equal(res.status, 200, await res.text());

    const text = await scrape(apiMetrics);
    assert.ok(!text.includes(probe));
    assert.ok((sampleValue(text, 'supportai_http_requests_total{operation="unmatched",status_class="4xx"}') ?? 0) >= 1);
    const added = (name: string) => (sampleValue(text, name) ?? 0) - (sampleValue(before, name) ?? 0);
    assert.ok(added(uploads) >= 1);
    assert.equal(added(timed), added(uploads));
    assert.ok(added(accepted) >= 2);
    const stored = sampleValue(await scrape(workerMetrics), 'supportai_uploads_total{kind="cases",outcome="stored"}');
    assert.equal(stored, 2);
  });

  it('counts the asks it starts, by how they started (eager by default)', async () => {
    const { key } = await createKey();
    const before = await scrape(apiMetrics);
    const res = await send({ key, path: '/v1/assistant/ask', body: { query: 'How do I reset my password?' } });
    assert.equal(res.status, 200, await res.text());
    const text = await scrape(apiMetrics);
    const added = (start: string) =>
      (sampleValue(text, `supportai_ask_starts_total{start="${start}"}`) ?? 0) -
      (sampleValue(before, `supportai_ask_starts_total{start="${start}"}`) ?? 0);
    assert.equal(added('eager'), 1);
    assert.equal(added('dispatched'), 0);
  });

  it("counts a tenant's 429s by reason, under its own label only for the first tenants", async () => {
    const before = await scrape(apiMetrics);
    const limited =
      sampleValue(before, 'supportai_admission_rejections_total{reason="rate_limit",dependency="none"}') ?? 0;
    const tenants = [`first-${randomBytes(3).toString('hex')}`, `second-${randomBytes(3).toString('hex')}`];
    for (const tenant of tenants) {
      const { key } = await createKey({ tenant });
      // RATE_LIMIT_PER_MINUTE is 1: the second request of each key is refused.
      const statuses = [];
      for (let i = 0; i < 2; i++)
        statuses.push((await send({ key, path: '/v1/sentiment', body: { text: 'ok' } })).status);
      assert.equal(statuses[1], 429);
    }
    const text = await scrape(apiMetrics);
    const refused = sampleValue(text, 'supportai_admission_rejections_total{reason="rate_limit",dependency="none"}');
    assert.ok((refused ?? 0) >= limited + 2, String(refused));
    // METRICS_TENANT_LABELS is 1: one tenant at most is named; the second is `other`. Tenants that
    // other tests' APIs in this process named before stay named, but no more are added past the bound.
    assert.ok(!text.includes(`tenant="${tenants[1]}"`));
    assert.ok((sampleValue(text, 'supportai_tenant_throttled_total{tenant="other"}') ?? 0) >= 1);
    const named = (t: string) =>
      t.split('\n').filter((l) => l.startsWith('supportai_tenant_throttled_total{') && !l.includes('tenant="other"'));
    assert.ok(named(text).length <= Math.max(named(before).length, 1), named(text).join('\n'));
  });

  it("reports the task queues' pollers and the worker's Temporal runtime metrics", async () => {
    const text = await until('the task queue watch', async () => {
      const scraped = await scrape(apiMetrics);
      return sampleValue(scraped, 'supportai_task_queue_pollers{task_queue="ingestion"}') === 1 ? scraped : undefined;
    });
    assert.equal(sampleValue(text, 'supportai_task_queue_pollers{task_queue="workflows"}'), 1);
    const sdk = await scrape(workerSdkMetrics);
    assert.match(sdk, new RegExp(`^temporal_[a-z_]+\\{[^}]*task_queue="${taskQueue}-ingestion"`, 'm'));
    assert.match(sdk, /^temporal_activity_schedule_to_start_latency_seconds_bucket\{/m);
  });

  it('answers 404 for anything but GET /metrics', async () => {
    assert.equal((await fetch(`http://127.0.0.1:${apiMetrics}/`)).status, 404);
    assert.equal((await fetch(`http://127.0.0.1:${apiMetrics}/metrics`, { method: 'POST' })).status, 404);
  });
});
