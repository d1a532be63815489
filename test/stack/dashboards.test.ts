/**
 * The on-call dashboard (ops/dashboards/support-ai.json, docs/operations.md, "Dashboards"): the file
 * is what its description builds (scripts/dashboards), every panel is well formed and placed, and
 * every panel's query, run against the test stack's Prometheus after traffic that touches each
 * panel's metrics (an API in this process and a worker process, both scraped), is valid and
 * returns series.
 */
import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'mocha';
import { DASHBOARD_FILE, expectedDashboardJson } from '../../scripts/dashboards/build';
import { DATASOURCE_VARIABLE } from '../../scripts/dashboards/grafana';
import { evalBatchProgress, startEvalBatch } from '../../scripts/eval-batches';
import { requestTagTraining, waitForTagTraining } from '../../scripts/tag-trainer';
import { writeScrapeTargets } from '../../scripts/stack/prometheus-config';
import { freePort, Service, stopService } from '../../scripts/stack/services';
import { startChatServer, type ChatServer } from '../helpers/chat-server';
import { article, incident, supportCase } from '../helpers/factories';
import { startMetricsWorker } from '../helpers/metrics-worker';
import { ApiInstance, apiInstance, createKey, freshTenant, getHarness, requireStack } from '../helpers/harness';

interface Target {
  refId?: string;
  expr?: string;
  datasource?: { type?: string; uid?: string };
}
interface Panel {
  id: number;
  type: string;
  title?: string;
  datasource?: { type?: string; uid?: string };
  gridPos: { h: number; w: number; x: number; y: number };
  targets?: Target[];
}

const dashboard = () =>
  JSON.parse(fs.readFileSync(DASHBOARD_FILE, 'utf8')) as { panels: Panel[] } & Record<string, any>;
const graphPanels = () => dashboard().panels.filter((p) => p.type !== 'row');

/** Grafana's interval variables, as Prometheus can run them (the rates' windows at a 15 s scrape interval). */
function substitute(expr: string): string {
  return expr.replace(/\$\{?__(rate_interval|interval|range)\}?/g, '1m');
}

/** Every panel's query: its panel, refId and PromQL, variables substituted. */
function panelQueries(): { panel: string; refId: string; expr: string }[] {
  return graphPanels().flatMap((p) =>
    (p.targets ?? []).map((t) => ({ panel: p.title ?? '', refId: t.refId ?? '', expr: substitute(t.expr ?? '') })),
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the on-call dashboard, ops/dashboards/support-ai.json', () => {
  it('is what scripts/dashboards builds (run scripts/dashboards/build.ts after changing its description)', () => {
    assert.equal(fs.readFileSync(DASHBOARD_FILE, 'utf8'), expectedDashboardJson());
  });

  it('takes its Prometheus from a datasource variable, which every panel and query names', () => {
    const d = dashboard();
    assert.ok(d.schemaVersion >= 36, String(d.schemaVersion));
    const variable = d.templating.list.find((v: any) => v.name === DATASOURCE_VARIABLE);
    assert.deepEqual([variable?.type, variable?.query], ['datasource', 'prometheus']);
    const uid = `\${${DATASOURCE_VARIABLE}}`;
    for (const p of graphPanels()) {
      assert.ok(p.title?.trim(), `panel ${p.id} has a title`);
      assert.deepEqual(p.datasource, { type: 'prometheus', uid }, p.title);
      assert.ok(p.targets?.length, `${p.title} has queries`);
      const refIds = p.targets!.map((t) => t.refId);
      assert.equal(new Set(refIds).size, refIds.length, `${p.title}: refIds unique`);
      for (const t of p.targets!) {
        assert.match(t.refId ?? '', /^[A-Z]$/, p.title);
        assert.ok(t.expr?.trim(), `${p.title} ${t.refId} has an expression`);
        assert.deepEqual(t.datasource, { type: 'prometheus', uid }, p.title);
        assert.doesNotMatch(substitute(t.expr!), /\$/, `${p.title} ${t.refId}: a variable left`);
      }
    }
  });

  it('has unique panel ids, and places every panel on the 24-column grid without overlaps', () => {
    const panels = dashboard().panels;
    assert.equal(new Set(panels.map((p) => p.id)).size, panels.length);
    for (const p of panels) {
      const g = p.gridPos;
      assert.ok(g.x >= 0 && g.w > 0 && g.x + g.w <= 24 && g.y >= 0 && g.h > 0, `${p.title}: ${JSON.stringify(g)}`);
    }
    for (const [i, a] of panels.entries())
      for (const b of panels.slice(i + 1)) {
        const [ga, gb] = [a.gridPos, b.gridPos];
        const apart = ga.x + ga.w <= gb.x || gb.x + gb.w <= ga.x || ga.y + ga.h <= gb.y || gb.y + gb.h <= ga.y;
        assert.ok(apart, `"${a.title}" and "${b.title}" overlap`);
      }
  });
});

describe("the dashboard's queries against the test stack's Prometheus", function () {
  this.timeout(600_000);
  const taskQueue = `dash-${randomBytes(4).toString('hex')}`;
  const writer = `dashboards-${randomBytes(3).toString('hex')}`;
  const dataDir = process.env.SUPPORT_AI_TEST_DATA ?? '';
  let prometheus: string;
  let chat: ChatServer;
  let api: ApiInstance;
  let worker: Service;

  const send = async (o: { key?: string; method?: string; path: string; body?: unknown; business?: string }) => {
    const res = await fetch(`${api.url}${o.path}`, {
      method: o.method ?? 'POST',
      headers: {
        ...(o.key ? { Authorization: `Bearer ${o.key}` } : {}),
        ...(o.body ? { 'Content-Type': 'application/json' } : {}),
        ...(o.business ? { 'X-Business-Id': o.business } : {}),
      },
      body: o.body ? JSON.stringify(o.body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, text, json: () => JSON.parse(text) };
  };
  const ok = async (o: Parameters<typeof send>[0]) => {
    const res = await send(o);
    assert.ok(
      res.status >= 200 && res.status < 300,
      `${o.method ?? 'POST'} ${o.path}: ${res.status} ${res.text.slice(0, 300)}`,
    );
    return res;
  };

  before(async () => {
    requireStack();
    assert.ok(process.env.PROMETHEUS_URL && dataDir, 'the test stack runs Prometheus (PROMETHEUS_URL)');
    prometheus = process.env.PROMETHEUS_URL!;
    // The one allowed stand-in for a model: its replies are unusable, so each call is `ok` and counts
    // tokens, and the built-in engine answers instead (a fallback).
    chat = await startChatServer({ kind: 'answer', content: JSON.stringify({ sentiment: 500 }) });
    const apiMetrics = await freePort();
    api = await apiInstance({
      TASK_QUEUE: taskQueue,
      API_METRICS_PORT: String(apiMetrics),
      RATE_LIMIT_PER_MINUTE: '20',
      CHAT_BASE_URL: chat.baseUrl,
      CHAT_API_KEY: 'test',
      CHAT_MODEL: 'test-model',
      CHAT_TIMEOUT_MS: '5000',
      CHAT_FALLBACK: 'local',
    });
    const started = await startMetricsWorker({ name: 'dashboards-worker', taskQueue });
    worker = started.service;
    const { metricsPort: workerMetrics, sdkMetricsPort: workerSdkMetrics } = started;
    const at = (port: number) => [`127.0.0.1:${port}`];
    writeScrapeTargets({ dataDir, job: 'api', name: writer, targets: at(apiMetrics), labels: { process: writer } });
    writeScrapeTargets({
      dataDir,
      job: 'worker',
      name: writer,
      targets: at(workerMetrics),
      labels: { process: writer },
    });
    writeScrapeTargets({
      dataDir,
      job: 'worker-sdk',
      name: writer,
      targets: at(workerSdkMetrics),
      labels: { process: writer },
    });
  });

  after(async () => {
    if (dataDir)
      for (const job of ['api', 'worker', 'worker-sdk'] as const) writeScrapeTargets({ dataDir, job, name: writer });
    if (worker) await stopService(worker);
    await api?.close();
    await chat?.close();
  });

  it("serves traffic that touches every panel's metrics", async () => {
    const { key, tenant } = await createKey();
    const articleId = `dash-${randomBytes(3).toString('hex')}`;
    const body = 'Open Settings, choose Security and click Reset password. A link arrives by email.';
    await ok({ key, path: '/v1/articles', body: { articles: [article({ articleId, body })] } });
    await ok({ key, path: '/v1/cases', body: { data: [supportCase()] } });
    await ok({ key, path: '/v1/incidents', body: incident() });
    await ok({ key, path: '/v1/search/cases', body: { query: 'printer wifi' } });
    await ok({ key, method: 'GET', path: '/v1/community/search/articles?text=reset%20password', business: tenant });
    const ask = await ok({ key, path: '/v1/assistant/ask', body: { query: 'How do I reset my password?' } });
    await send({ key, path: '/v1/feedback', body: { id: ask.json().id, feedbackDetails: '1' } });
    const conversation = { subject: 'Printer', comments: [{ comment: 'The printer lost its wifi after the update.' }] };
    await ok({ key, path: '/v1/summary', body: conversation });
    await ok({ key, path: '/v1/sentiment', body: { message: 'The printer works again, thanks!' } });
    await send({ key, path: '/v1/tag', body: { message: 'The printer lost its wifi' } });
    await ok({
      key,
      path: '/v1/control/autoeval/evaluate',
      body: {
        messages: [{ role: 'user', content: 'How do I reset my password?' }],
        output: 'Open Settings and choose Reset password.',
        rules: [{ id: 'no-email', description: 'The answer must not contain any email addresses.' }],
      },
    });
    await ok({ key, method: 'DELETE', path: '/v1/articles', body: { articles: [{ articleId }] } });
    assert.equal((await send({ method: 'GET', path: `/v1/no-such-${articleId}` })).status, 404);
    assert.equal((await send({ key, path: '/v1/sentiment', body: {} })).status, 400);

    // A tenant over its rate limit (RATE_LIMIT_PER_MINUTE is 20 here): 429s by reason and by tenant. The limit
    // counts before the body is read, so requests with an empty body (400) reach it quickly.
    const throttled = await createKey();
    let refused = false;
    for (let i = 0; i < 60 && !refused; i++)
      refused = (await send({ key: throttled.key, path: '/v1/sentiment', body: {} })).status === 429;
    assert.ok(refused, 'a 429 within 60 requests');

    // A batch evaluation and a tag training, run by the worker process.
    const { temporal: client } = await getHarness();
    const file = path.join(fs.mkdtempSync(path.join(dataDir, 'dashboards-eval-')), 'calls.jsonl');
    const record = (i: number) =>
      JSON.stringify({
        id: `call-${i}`,
        messages: [{ role: 'user', content: 'How do I reset my password?' }],
        output: 'Open Settings, then Security, and choose Reset password.',
        model: 'model-a',
        timestamp: new Date().toISOString(),
      });
    fs.writeFileSync(file, `${[0, 1, 2].map(record).join('\n')}\n`);
    const batchTenant = freshTenant('dash-eval');
    const batch = await startEvalBatch({ client, taskQueue, tenant: batchTenant, path: file });
    const { requestedAt } = await requestTagTraining({ client, taskQueue, tenant });
    await waitForTagTraining({ client, tenant, since: requestedAt, timeoutMs: 120_000 });
    for (const end = Date.now() + 120_000; !(await evalBatchProgress({ client, workflowId: batch.workflowId })).done;) {
      if (Date.now() > end) throw new Error('the batch evaluation did not finish within 120 s');
      await sleep(250);
    }
  });

  it('runs every panel query in Prometheus: each is valid and returns series', async () => {
    const queries = panelQueries();
    const missing = new Set(queries);
    // Until Prometheus has scraped what the traffic counted: the file targets are read within
    // seconds, the Temporal server reports its backlog about once a minute.
    for (const end = Date.now() + 240_000; missing.size > 0 && Date.now() < end; await sleep(2000))
      for (const q of [...missing]) {
        const res = await fetch(`${prometheus}/api/v1/query?${new URLSearchParams({ query: q.expr })}`);
        const body = (await res.json()) as { status: string; error?: string; data?: { result: unknown[] } };
        assert.equal(body.status, 'success', `"${q.panel}" ${q.refId}: ${body.error}\n${q.expr}`);
        if ((body.data?.result.length ?? 0) > 0) missing.delete(q);
      }
    assert.deepEqual(
      [...missing].map((q) => `"${q.panel}" ${q.refId}: ${q.expr}`),
      [],
      'panel queries without series',
    );
  });
});
