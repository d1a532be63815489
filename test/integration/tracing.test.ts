/**
 * Traces across processes (docs/operations.md, "Tracing"), against the test stack's real Jaeger:
 * an API and a worker run as processes of their own with OTEL_EXPORTER_OTLP_ENDPOINT pointing at
 * Jaeger's OTLP receiver; an upload and an ask each come back with the trace id in `X-Trace-Id`,
 * and Jaeger's query API (`/api/traces/<id>`) returns exactly one trace for it, every span linked to
 * the request's server span, with the spans each process produced. The request's log lines carry
 * the trace id. A client's `traceparent` never becomes the parent; without an endpoint there is no
 * header (test/unit/tracing.test.ts checks that no SDK is loaded then).
 */
import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'mocha';
import { spawnNode } from '../../scripts/stack/processes';
import { freePort, httpOk, stopService, type Service } from '../../scripts/stack/services';
import { article } from '../helpers/factories';
import { api, createKey, requireStack } from '../helpers/harness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, check: () => Promise<T | undefined>, ms = 90_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(500);
  }
}

/** A span as Jaeger's query API returns it, with its process's service name and pid. */
interface TracedSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  parent?: string;
  links: string[];
  service: string;
  pid: number;
}

interface JaegerTrace {
  traceID: string;
  spans: {
    traceID: string;
    spanID: string;
    operationName: string;
    processID: string;
    references?: { refType: string; traceID: string; spanID: string }[];
  }[];
  processes: Record<string, { serviceName: string; tags?: { key: string; value: unknown }[] }>;
}

/** Every trace Jaeger holds under `traceId`, each span with its process (404: none yet). */
async function jaegerTraces(traceId: string): Promise<TracedSpan[][]> {
  const res = await fetch(`${process.env.JAEGER_QUERY_URL}/api/traces/${traceId}`);
  if (res.status === 404) return [];
  if (res.status !== 200) throw new Error(`Jaeger answered ${res.status}: ${await res.text()}`);
  const { data } = (await res.json()) as { data: JaegerTrace[] };
  return data.map((t) =>
    t.spans.map((s) => {
      const from = t.processes[s.processID];
      return {
        traceID: s.traceID,
        spanID: s.spanID,
        operationName: s.operationName,
        parent: s.references?.find((r) => r.refType === 'CHILD_OF' && r.traceID === s.traceID)?.spanID,
        links: (s.references ?? []).filter((r) => r.traceID !== s.traceID).map((r) => r.traceID),
        service: from.serviceName,
        pid: Number(from.tags?.find((tag) => tag.key === 'process.pid')?.value),
      };
    }),
  );
}

/** The span names of a trace per process, `<service> (pid n)`: what the test reports. */
function namesByProcess(spans: TracedSpan[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const s of spans) (out[`${s.service} (pid ${s.pid})`] ??= []).push(s.operationName);
  for (const names of Object.values(out)) names.sort();
  return out;
}

/** The JSON log lines of a process's log file. */
function logLines(file: string): Record<string, unknown>[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('tracing: one trace per request across the API and the worker (Jaeger)', function () {
  this.timeout(240_000);
  const taskQueue = `tracing-${randomBytes(4).toString('hex')}`;
  let apiProcess: Service;
  let workerProcess: Service;
  let baseUrl: string;
  let key: string;

  before(async () => {
    requireStack();
    assert.ok(process.env.JAEGER_QUERY_URL && process.env.JAEGER_OTLP_ENDPOINT, 'the test stack runs Jaeger');
    const untraced = Object.fromEntries(
      Object.entries(process.env as Record<string, string>).filter(([name]) => !name.startsWith('OTEL_')),
    );
    const port = await freePort();
    const env = {
      ...untraced,
      TASK_QUEUE: taskQueue,
      KEY_CACHE_TTL_MS: '300',
      // Tracing on for these two processes only, sent every half second.
      OTEL_EXPORTER_OTLP_ENDPOINT: process.env.JAEGER_OTLP_ENDPOINT!,
      OTEL_BSP_SCHEDULE_DELAY: '500',
    };
    const logDir = fs.mkdtempSync(path.join(process.env.SUPPORT_AI_TEST_DATA ?? os.tmpdir(), 'tracing-'));
    workerProcess = spawnNode('tracing-worker', 'worker/main.ts', { ...env, LOG_LEVEL: 'info' }, logDir);
    apiProcess = spawnNode(
      'tracing-api',
      'api/server.ts',
      { ...env, API_PORT: String(port), LOG_LEVEL: 'info' },
      logDir,
    );
    baseUrl = `http://127.0.0.1:${port}`;
    await until('the API to answer', async () => ((await httpOk(`${baseUrl}/healthz`)) ? true : undefined));
    await until('the worker to poll', async () =>
      fs.readFileSync(workerProcess.logFile, 'utf8').includes('worker polling') ? true : undefined,
    );
    ({ key } = await createKey());
  });

  after(async () => {
    if (apiProcess) await stopService(apiProcess);
    if (workerProcess) await stopService(workerProcess);
  });

  const send = (o: { path: string; body: unknown; headers?: Record<string, string> }) =>
    fetch(`${baseUrl}${o.path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...o.headers },
      body: JSON.stringify(o.body),
    });

  /**
   * The one trace Jaeger holds for `traceId` once it has every span `complete` waits for; checks it is
   * one tree under the request's server span `root`.
   */
  async function oneTrace(traceId: string, root: string, complete: (spans: TracedSpan[]) => boolean) {
    const spans = await until(`trace ${traceId} in Jaeger`, async () => {
      const traces = await jaegerTraces(traceId);
      // Each process sends its spans in batches: the request's own span, ended last, may come after its children.
      const whole = (all: TracedSpan[]) => all.some((s) => s.operationName === root && s.parent === undefined);
      return traces.length === 1 && whole(traces[0]) && complete(traces[0]) ? traces[0] : undefined;
    });
    assert.ok(spans.every((s) => s.traceID === traceId));
    const ids = new Set(spans.map((s) => s.spanID));
    const roots = spans.filter((s) => s.parent === undefined);
    const shown = JSON.stringify(spans.map((s) => [s.operationName, s.spanID, s.parent, s.service]));
    assert.deepEqual(
      roots.map((s) => s.operationName),
      [root],
      `one root, the request: ${shown}`,
    );
    for (const s of spans) if (s.parent !== undefined) assert.ok(ids.has(s.parent), `${s.operationName}'s parent`);
    return spans;
  }

  const has = (spans: TracedSpan[], pid: number, name: string | RegExp) =>
    spans.some(
      (s) => s.pid === pid && (typeof name === 'string' ? s.operationName === name : name.test(s.operationName)),
    );

  let articleBody: ReturnType<typeof article>;

  it("an upload is one trace: the API's request and workflow start, the worker's workflow, activity, embedding and Weaviate calls", async () => {
    articleBody = article({
      articleId: `trace-${randomBytes(3).toString('hex')}`,
      title: 'Reset your password',
      body: 'To reset your password, open Settings and choose Reset password. The reset link is valid for 24 hours.',
    });
    const res = await send({ path: '/v1/articles', body: { articles: [articleBody] } });
    assert.equal(res.status, 200, await res.text());
    const traceId = res.headers.get('x-trace-id') ?? '';
    const requestId = res.headers.get('x-request-id');
    assert.match(traceId, /^[0-9a-f]{32}$/);
    assert.ok(requestId);

    const apiPid = apiProcess.child.pid!;
    const workerPid = workerProcess.child.pid!;
    const spans = await oneTrace(
      traceId,
      'uploadArticles',
      (all) =>
        has(all, apiPid, /^StartWorkflow:/) &&
        has(all, workerPid, /^RunWorkflow:/) &&
        has(all, workerPid, /^RunActivity:/) &&
        has(all, workerPid, /^embeddings /) &&
        has(all, workerPid, 'weaviate ingest'),
    );
    console.log(`      upload trace ${traceId}: ${JSON.stringify(namesByProcess(spans))}`);
    assert.ok(has(spans, apiPid, 'uploadArticles'));
    assert.deepEqual([...new Set(spans.map((s) => s.service))].sort(), ['support-ai-api', 'support-ai-worker']);
    assert.deepEqual([...new Set(spans.map((s) => s.pid))].sort(), [apiPid, workerPid].sort());

    // The request's log lines in the API: the request line and every line written while it ran.
    const apiLines = logLines(apiProcess.logFile).filter((l) => l.requestId === requestId);
    assert.ok(apiLines.some((l) => l.msg === 'request'));
    for (const line of apiLines) assert.equal(line.trace_id, traceId, JSON.stringify(line));
  });

  it("an ask is one trace: the API's request and workflow start, the workflow and its steps in an ask worker", async () => {
    const res = await send({ path: '/v1/assistant/ask', body: { query: 'How do I reset my password?' } });
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(body.links?.[0]?.url, articleBody.url);
    const traceId = res.headers.get('x-trace-id') ?? '';
    assert.match(traceId, /^[0-9a-f]{32}$/);

    const apiPid = apiProcess.child.pid!;
    const workerPid = workerProcess.child.pid!;
    const spans = await oneTrace(traceId, 'ask', (all) =>
      ['RunWorkflow:askWorkflow', /^RunActivity:/, 'weaviate search', /^embeddings /].every((name) =>
        [apiPid, workerPid].some((pid) => has(all, pid, name)),
      ),
    );
    const byProcess = namesByProcess(spans);
    console.log(`      ask trace ${traceId}: ${JSON.stringify(byProcess)}`);
    // The HTTP edge and the start are the API's; the workflow runs in whichever ask worker took its
    // first task: the API's own when started eagerly (docs/architecture.md), else the worker's.
    assert.ok(has(spans, apiPid, 'ask'));
    assert.ok(has(spans, apiPid, 'StartWorkflow:askWorkflow'));
    const ran = spans.find((s) => s.operationName === 'RunWorkflow:askWorkflow')!;
    assert.ok([apiPid, workerPid].includes(ran.pid));
    assert.equal(ran.service, ran.pid === apiPid ? 'support-ai-api' : 'support-ai-worker');

    const apiLines = logLines(apiProcess.logFile).filter((l) => l.requestId === res.headers.get('x-request-id'));
    assert.ok(apiLines.some((l) => l.msg === 'request'));
    for (const line of apiLines) assert.equal(line.trace_id, traceId, JSON.stringify(line));
  });

  it("keeps a client's traceparent as a link only, and ignores a malformed one", async () => {
    const clientTrace = randomBytes(16).toString('hex');
    const res = await send({
      path: '/v1/assistant/ask',
      body: { query: 'How long is the reset link valid?' },
      headers: { traceparent: `00-${clientTrace}-${randomBytes(8).toString('hex')}-01` },
    });
    assert.equal(res.status, 200, await res.text());
    const traceId = res.headers.get('x-trace-id') ?? '';
    assert.match(traceId, /^[0-9a-f]{32}$/);
    assert.notEqual(traceId, clientTrace);
    const spans = await oneTrace(traceId, 'ask', (all) =>
      all.some((s) => s.operationName === 'RunWorkflow:askWorkflow'),
    );
    assert.deepEqual(spans.find((s) => s.operationName === 'ask')!.links, [clientTrace]);
    assert.deepEqual(await jaegerTraces(clientTrace), [], 'nothing of ours joined the client trace');

    for (const traceparent of ['garbage', `00-${'0'.repeat(32)}-${'0'.repeat(16)}-01`, `ff-${'a'.repeat(200)}`]) {
      const other = await fetch(`${baseUrl}/healthz`, { headers: { traceparent } });
      assert.equal(other.status, 200);
      assert.match(other.headers.get('x-trace-id') ?? '', /^[0-9a-f]{32}$/);
    }
  });

  it('without an OTLP endpoint answers no trace id', async () => {
    // The suite's own API runs in this process, which never started tracing.
    const res = await api('GET', '/healthz');
    assert.equal(res.status, 200);
    assert.ok(res.headers.get('x-request-id'));
    assert.equal(res.headers.get('x-trace-id'), null);
  });
});
