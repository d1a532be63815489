/**
 * `npm run bench:observability [-- options]`: whether the service's metrics, alerts and traces do
 * what an operator needs, and what they cost (issue 35). It launches its own topologies:
 *
 * 1. Alerts under real faults. `npm start` (scripts/stack/launcher.ts: free ports, a data folder of
 *    its own, Prometheus and Alertmanager as it runs them) under a light steady load
 *    (bench/lib/fault-load.ts: two tenants, a search every second, an ask and a one-case upload
 *    every two), killing with SIGKILL, one at a time, Weaviate, the query embedding server
 *    (`embeddings-query`, the one of searches' and asks' short queries) and the worker. Prometheus's
 *    and Alertmanager's alerts are read every second (bench/lib/alert-watch.ts): the seconds from the
 *    kill until the cause alert of ops/prometheus/alerts.yml fires, and until it no longer fires once
 *    the supervisor has restarted the process; the other alerts that fired meanwhile, those
 *    Alertmanager inhibited (symptoms) apart from those it would notify. The supervisor's first
 *    restart waits `--outage-seconds` (RESTART_BACKOFF_INITIAL_MS): with its default of one second
 *    the embedding server is back in about two, and no alert should page for that. Then the same in
 *    `npm run start:cluster` for a Weaviate node (a follower of the Raft leader) and a worker
 *    (`--no-cluster` skips it: the cluster takes minutes to start).
 * 2. Traces. Every `npm start` here traces (OTEL_EXPORTER_OTLP_ENDPOINT: a Jaeger built from its Go
 *    module, bench/lib/jaeger-trace.ts). On one of its own, with ASK_EAGER_START=false: one article
 *    upload, and asks until each ask worker (the API's own, the worker process's) has run one; each
 *    trace read back from Jaeger's query API by the id of the answer's X-Trace-Id, its spans counted
 *    per process.
 * 3. Series. Requests from `--tenants` tenants (a key each; the first `--throttled-tenants` sent past
 *    their key's rate limit, so the tenant label is used), then the series of the API's and the
 *    worker's metrics endpoints, and Prometheus's count per job.
 * 4. Overhead. Case search and ask with observability on and off, interleaved in one run
 *    (bench/lib/observability-overhead.ts says how); the ratios on / off. The on pair traces one
 *    request in ten by default (`--trace-sample-ratio`, docs/operations.md's advice; 1: all).
 *
 * Writes bench/results/observability.json (or --out); docs/benchmarks.md, "Observability
 * (bench:observability)", describes the method and shows the numbers.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { loadApiConfig } from '../api/config';
import { SCOPES } from '../api/scopes';
import type { ServicesConfig } from '../domain/config';
import { ApiKeyStore } from '../domain/weaviate/api-keys';
import { closeWeaviate, connectWeaviate } from '../domain/weaviate/client';
import { CLUSTER_REPLICATION_FACTOR } from '../scripts/stack/cluster';
import { launchCluster, launchStart, type Launched, type LaunchedCluster } from '../scripts/stack/launcher';
import { freePort } from '../scripts/stack/services';
import { DEFAULT_BACKOFF } from '../scripts/stack/supervisor';
import { readWeaviateKey } from '../scripts/stack/weaviate-key';
import { runAlertFault, type AlertFault, type AlertFaultResult, type AlertFaultTiming } from './lib/alert-faults';
import type { AlertUrls } from './lib/alert-watch';
import { Load, type Tenant } from './lib/fault-load';
import {
  countSpans,
  settledTrace,
  startBenchJaeger,
  traceSpans,
  type BenchJaeger,
  type TraceSpan,
} from './lib/jaeger-trace';
import { endpointSeries, prometheusSeriesByJob, tenantTraffic } from './lib/metric-series';
import { measureOverhead, type OverheadOptions } from './lib/observability-overhead';
import { DEFAULT_DATASETS, positiveInt, ratioArg, resolveDatasets, round, runInfo, writeResult } from './lib/run-info';

const PARTS = ['alerts', 'trace', 'series', 'overhead'] as const;
type Part = (typeof PARTS)[number];

const API_SERVICE = 'support-ai-api';
const WORKER_SERVICE = 'support-ai-worker';
const TENANT_LABELS = loadApiConfig(process.env).metrics.tenantLabels;

const GOALS = {
  alert_firing_within_s: 30,
  alert_resolved_after_recovery: true,
  other_alerts_firing: 0,
  trace_spans_from: [API_SERVICE, WORKER_SERVICE],
  overhead_p50_c1_ratio_max: 1.03,
  overhead_throughput_c16_ratio_min: 0.97,
  /** Values of the tenant label in a process's metrics: METRICS_TENANT_LABELS tenants, then `other`. */
  tenant_label_values_max: TENANT_LABELS + 1,
};

/** The faults of `npm start`'s topology and the alert naming each one's cause. */
const START_FAULTS: AlertFault[] = [
  { name: 'weaviate', kill: ['weaviate'], cause: 'WeaviateDown' },
  { name: 'embeddings_query', kill: ['embeddings-query'], cause: 'EmbeddingServerDown' },
  { name: 'worker', kill: ['worker'], cause: 'NoWorkerPolling' },
];

/** The faults of the cluster topology (the Weaviate node is one that does not lead the Raft cluster). */
const CLUSTER_FAULTS = ['cluster_weaviate_node', 'cluster_worker'];
const FAULT_NAMES = [...START_FAULTS.map((f) => f.name), ...CLUSTER_FAULTS];

interface Options extends OverheadOptions {
  parts: Part[];
  faults: string[];
  cluster: boolean;
  outageSeconds: number;
  baselineSeconds: number;
  settleSeconds: number;
  quietSeconds: number;
  maxFaultSeconds: number;
  tenants: number;
  throttledTenants: number;
  keepData: boolean;
  out: string;
}

const log = (line: string) => console.log(`[observability] ${line}`);

/** The launched topologies still running: Ctrl-C stops them too (each runs in a process group of its own). */
const running = new Set<() => Promise<unknown>>();
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(
    signal,
    () => void Promise.allSettled([...running].map((stop) => stop())).finally(() => process.exit(130)),
  );

/** Keys with every scope for new tenants, written with the operators' key store into a stack's Weaviate. */
async function createKeys(weaviate: ServicesConfig['weaviate'], tenants: string[]): Promise<Tenant[]> {
  await closeWeaviate();
  try {
    const store = new ApiKeyStore(() => connectWeaviate(weaviate));
    const out: Tenant[] = [];
    for (const tenant of tenants)
      out.push({ tenant, key: (await store.create({ tenant, scopes: [...SCOPES], name: 'bench:observability' })).key });
    return out;
  } finally {
    await closeWeaviate();
  }
}

const startWeaviate = (stack: Launched): ServicesConfig['weaviate'] => ({
  host: '127.0.0.1',
  httpPort: stack.ports.weaviateHttp,
  grpcPort: stack.ports.weaviateGrpc,
  apiKey: readWeaviateKey(stack.dataDir),
  replicationFactor: 1,
  consistency: 'QUORUM',
});

const post = async (baseUrl: string, key: string, path: string, body: unknown) => {
  const res = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(120_000),
  });
  const text = await res.text();
  return { status: res.status, traceId: res.headers.get('x-trace-id'), text };
};

/** One request's trace: its spans per process and service, from Jaeger. */
async function requestTrace(o: { jaeger: BenchJaeger; traceId: string | null; status: number }) {
  const spans: TraceSpan[] = o.traceId ? await settledTrace({ queryUrl: o.jaeger.queryUrl, traceId: o.traceId }) : [];
  const counted = countSpans(spans);
  return {
    status: o.status,
    trace_id: o.traceId,
    spans: spans.length,
    services: Object.keys(counted.by_service).sort(),
    ...counted,
    operations: [...new Set(spans.map((s) => `${s.service}: ${s.operationName}`))].sort(),
  };
}

/** The most asks the trace part sends to see one run by each ask worker (the API's and the worker process's). */
const TRACE_ASKS_MAX = 20;

/** The service whose ask worker ran an ask's workflow, once its span is in Jaeger; null if it never shows. */
async function askRanIn(o: { jaeger: BenchJaeger; traceId: string }): Promise<string | null> {
  const giveUp = Date.now() + 30_000;
  while (Date.now() < giveUp) {
    const spans = await traceSpans({ queryUrl: o.jaeger.queryUrl, traceId: o.traceId }).catch(() => []);
    const ran = spans.find((s) => s.operationName === 'RunWorkflow:askWorkflow');
    if (ran) return ran.service;
    await new Promise((r) => setTimeout(r, 500));
  }
  return null;
}

/**
 * An upload and asks of a new tenant, each one trace read back from Jaeger. The stack's API starts
 * asks without eager start (ASK_EAGER_START=false), so the server hands each ask's first workflow
 * task to a poller of the ask queue: the API's own ask worker or the worker process's. Asks are sent
 * until each has run one (at most TRACE_ASKS_MAX); `ask` is the one the worker process ran, whose
 * trace crosses the processes as the upload's does.
 */
async function tracePart(o: { stack: Launched; jaeger: BenchJaeger; tenant: Tenant }) {
  const { baseUrl } = o.stack;
  const article = {
    articleId: `obs-trace-${randomBytes(3).toString('hex')}`,
    url: 'https://kb.bench.example/observability/reset-password',
    title: 'Reset your password',
    body: 'To reset your password, open Settings and choose Reset password. The reset link is valid for 24 hours.',
    timeOfCreation: Date.UTC(2024, 0, 1),
    timeLastPublished: Date.UTC(2024, 0, 1),
  };
  const uploaded = await post(baseUrl, o.tenant.key, '/v1/articles', { articles: [article] });
  if (uploaded.status !== 200) throw new Error(`the traced upload answered ${uploaded.status}: ${uploaded.text}`);
  const ranIn = new Map<string, Awaited<ReturnType<typeof post>>>();
  let asksSent = 0;
  while (asksSent < TRACE_ASKS_MAX && !(ranIn.has(API_SERVICE) && ranIn.has(WORKER_SERVICE))) {
    asksSent++;
    const asked = await post(baseUrl, o.tenant.key, '/v1/assistant/ask', { query: 'How do I reset my password?' });
    if (asked.status !== 200) throw new Error(`the traced ask answered ${asked.status}: ${asked.text}`);
    const service = asked.traceId ? await askRanIn({ jaeger: o.jaeger, traceId: asked.traceId }) : null;
    log(`trace: ask ${asksSent} (${asked.traceId}) ran in ${service}`);
    if (service && !ranIn.has(service)) ranIn.set(service, asked);
  }
  const inWorker = ranIn.get(WORKER_SERVICE);
  const inApi = ranIn.get(API_SERVICE);
  log(`trace: upload ${uploaded.traceId}; waiting for Jaeger to hold every span`);
  const upload = await requestTrace({ jaeger: o.jaeger, ...uploaded });
  const ask = inWorker ? await requestTrace({ jaeger: o.jaeger, ...inWorker }) : null;
  const askInApi = inApi ? await requestTrace({ jaeger: o.jaeger, ...inApi }) : null;
  log(
    `trace: upload ${upload.spans} spans ${JSON.stringify(upload.by_service)}, ask run by the worker ${ask?.spans ?? 0} spans ${JSON.stringify(ask?.by_service ?? {})}, ask run by the API ${askInApi?.spans ?? 0} spans ${JSON.stringify(askInApi?.by_service ?? {})} (${asksSent} asks sent)`,
  );
  return {
    upload_spans: upload.spans,
    ask_spans: ask?.spans ?? 0,
    processes: [...new Set([...upload.services, ...(ask?.services ?? [])])].sort(),
    asks_sent: asksSent,
    upload,
    ask,
    ask_in_api: askInApi,
  };
}

/** Traffic from many tenants, then the series of the API's and the worker's metrics. */
async function seriesPart(o: { stack: Launched; tenants: Tenant[]; throttled: number; ports: Record<string, number> }) {
  const rateLimit = loadApiConfig(process.env).limits.rateLimitPerMinute;
  const traffic = await tenantTraffic({
    baseUrl: o.stack.baseUrl,
    tenants: o.tenants,
    throttled: o.throttled,
    rateLimit,
  });
  log(
    `series: ${traffic.tenants} tenants sent requests (${JSON.stringify(traffic.by_status)}); ${traffic.throttled_429} refusals with 429 for ${traffic.throttled_tenants} tenants`,
  );
  // Two scrapes of Prometheus (every 2 s) before it is asked.
  await new Promise((r) => setTimeout(r, 5000));
  const [api, worker, apiSdk, workerSdk] = await Promise.all(
    ['API_METRICS_PORT', 'WORKER_METRICS_PORT', 'API_SDK_METRICS_PORT', 'WORKER_SDK_METRICS_PORT'].map((name) =>
      endpointSeries(o.ports[name]),
    ),
  );
  const byJob = await prometheusSeriesByJob(`http://127.0.0.1:${o.stack.ports.prometheus}`);
  const total = (api?.series ?? 0) + (worker?.series ?? 0);
  log(
    `series: ${total} in the API's and the worker's metrics (${api?.tenant_labelled ?? 0} of the API's with a tenant label, ${api?.tenant_values ?? 0} values)`,
  );
  return {
    series: total,
    detail: {
      traffic,
      api,
      worker,
      api_sdk: apiSdk ? { series: apiSdk.series } : null,
      worker_sdk: workerSdk ? { series: workerSdk.series } : null,
      tenant_labelled_series: (api?.tenant_labelled ?? 0) + (worker?.tenant_labelled ?? 0),
      tenant_label_values: Math.max(api?.tenant_values ?? 0, worker?.tenant_values ?? 0),
      tenant_label_other_used: Boolean(api?.tenant_other || worker?.tenant_other),
      metrics_tenant_labels: TENANT_LABELS,
      prometheus_series_by_job: byJob,
    },
  };
}

async function startFaults(o: { stack: Launched; tenants: Tenant[]; faults: string[]; timing: AlertFaultTiming }) {
  const urls: AlertUrls = {
    prometheusUrl: `http://127.0.0.1:${o.stack.ports.prometheus}`,
    alertmanagerUrl: `http://127.0.0.1:${o.stack.ports.alertmanager}`,
  };
  const load = new Load({
    baseUrl: o.stack.baseUrl,
    tenants: o.tenants,
    everyMs: { search: 1000, ask: 2000, upload: 2000 },
  });
  await load.seed();
  load.start();
  const results: Record<string, AlertFaultResult> = {};
  try {
    for (const fault of START_FAULTS.filter((f) => o.faults.includes(f.name)))
      results[fault.name] = await runAlertFault({
        fault,
        urls,
        pid: (name) => o.stack.pid(name),
        supervisorLog: o.stack.supervisorLog,
        timing: o.timing,
        log: (line) => log(`alerts: ${line}`),
      });
  } finally {
    await load.stop();
  }
  return { results, load: loadSummary(load) };
}

function loadSummary(load: Load) {
  const byStatus: Record<string, number> = {};
  for (const s of load.samples) byStatus[`${s.kind} ${s.status}`] = (byStatus[`${s.kind} ${s.status}`] ?? 0) + 1;
  return { requests: load.samples.length, by_kind_and_status: byStatus };
}

/** The Weaviate node that does not lead the Raft cluster, numbered as its pid file is (`weaviate-<n>`). */
async function weaviateFollower(cluster: LaunchedCluster, apiKey: string): Promise<number> {
  for (const node of cluster.ports.weaviateNodes) {
    try {
      const res = await fetch(`http://127.0.0.1:${node.http}/v1/cluster/statistics`, {
        headers: { Authorization: `Bearer ${apiKey}` },
        signal: AbortSignal.timeout(2000),
      });
      const body = (await res.json()) as { statistics?: { leaderId?: string }[] };
      const leader = body.statistics?.find((s) => s.leaderId)?.leaderId;
      if (leader) return Number(/^node(\d+)$/.exec(leader)?.[1]) === 0 ? 1 : 0;
    } catch {
      // the next node answers
    }
  }
  throw new Error('no Weaviate node reports a Raft leader');
}

async function clusterFaults(o: { options: Options; timing: AlertFaultTiming }) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'support-ai-obs-cluster-'));
  const started = Date.now();
  log('alerts: starting the cluster (minutes)');
  const cluster = await launchCluster({
    dataDir,
    env: { LOG_LEVEL: 'warn', ...restartBackoff(o.options) },
    startTimeoutMs: 1_800_000,
  });
  running.add(cluster.interrupt);
  const startSeconds = round((Date.now() - started) / 1000, 1);
  log(`alerts: cluster ready after ${startSeconds} s`);
  try {
    const apiKey = readWeaviateKey(dataDir)!;
    const tenants = await createKeys(
      {
        host: '127.0.0.1',
        httpPort: cluster.ports.weaviateHttp,
        grpcPort: cluster.ports.weaviateGrpc,
        apiKey,
        replicationFactor: CLUSTER_REPLICATION_FACTOR,
        consistency: 'QUORUM',
      },
      ['obs-cluster-a', 'obs-cluster-b'],
    );
    const follower = await weaviateFollower(cluster, apiKey);
    const faults: AlertFault[] = [
      { name: 'cluster_weaviate_node', kill: [`weaviate-${follower}`], cause: 'WeaviateDown' },
      { name: 'cluster_worker', kill: ['worker-1'], cause: 'NoWorkerPolling' },
    ].filter((f) => o.options.faults.includes(f.name));
    const urls: AlertUrls = {
      prometheusUrl: `http://127.0.0.1:${cluster.ports.prometheus}`,
      alertmanagerUrl: `http://127.0.0.1:${cluster.ports.alertmanager}`,
    };
    const load = new Load({ baseUrl: cluster.baseUrl, tenants, everyMs: { search: 1000, ask: 2000, upload: 2000 } });
    await load.seed();
    load.start();
    const results: Record<string, AlertFaultResult> = {};
    try {
      for (const fault of faults)
        results[fault.name] = await runAlertFault({
          fault,
          urls,
          pid: (name) => cluster.pid(name),
          supervisorLog: cluster.supervisorLog,
          timing: o.timing,
          log: (line) => log(`alerts (cluster): ${line}`),
        });
    } finally {
      await load.stop();
    }
    return { results, load: loadSummary(load), cluster_start_s: startSeconds };
  } finally {
    running.delete(cluster.interrupt);
    await cluster.interrupt();
    if (o.options.keepData) log(`alerts: cluster data and logs kept in ${dataDir}`);
    else fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * `parts` (of alerts, trace and series) on one `npm start`, with tracing on, every metrics port on a
 * free port, and `env` for its processes.
 */
async function startParts(o: { options: Options; jaeger: BenchJaeger; parts: Part[]; env?: Record<string, string> }) {
  const { options, parts } = o;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'support-ai-obs-start-'));
  const ports: Record<string, number> = {};
  for (const name of ['API_METRICS_PORT', 'API_SDK_METRICS_PORT', 'WORKER_METRICS_PORT', 'WORKER_SDK_METRICS_PORT'])
    ports[name] = await freePort();
  const started = Date.now();
  const stack = await launchStart({
    dataDir,
    env: {
      ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
      OTEL_EXPORTER_OTLP_ENDPOINT: o.jaeger.otlpEndpoint,
      ...restartBackoff(options),
      ...o.env,
    },
    startTimeoutMs: 1_200_000,
  });
  running.add(stack.interrupt);
  const startSeconds = round((Date.now() - started) / 1000, 1);
  log(
    `npm start (${parts.join(', ')}) ready after ${startSeconds} s (Prometheus :${stack.ports.prometheus}, Alertmanager :${stack.ports.alertmanager})`,
  );
  const out: {
    start_s: number;
    trace?: Awaited<ReturnType<typeof tracePart>>;
    alerts?: Awaited<ReturnType<typeof startFaults>>;
    series?: Awaited<ReturnType<typeof seriesPart>>;
  } = { start_s: startSeconds };
  try {
    const weaviate = startWeaviate(stack);
    if (parts.includes('trace')) {
      const [tenant] = await createKeys(weaviate, [`obs-trace-${randomBytes(3).toString('hex')}`]);
      out.trace = await tracePart({ stack, jaeger: o.jaeger, tenant });
    }
    if (parts.includes('alerts') && START_FAULTS.some((f) => options.faults.includes(f.name))) {
      const tenants = await createKeys(weaviate, ['obs-alerts-a', 'obs-alerts-b']);
      out.alerts = await startFaults({ stack, tenants, faults: options.faults, timing: timingOf(options) });
    }
    if (parts.includes('series')) {
      const names = Array.from({ length: options.tenants }, (_, i) => `obs-series-${String(i).padStart(3, '0')}`);
      const tenants = await createKeys(weaviate, names);
      log(`series: ${tenants.length} tenants with a key each`);
      out.series = await seriesPart({ stack, tenants, throttled: options.throttledTenants, ports });
    }
    return out;
  } finally {
    running.delete(stack.interrupt);
    await stack.interrupt();
    if (options.keepData) log(`npm start's data and logs kept in ${dataDir}`);
    else fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The supervisor's first restart after `--outage-seconds` (its cap raised to that when it is longer). */
const restartBackoff = (options: Options) => ({
  RESTART_BACKOFF_INITIAL_MS: String(options.outageSeconds * 1000),
  RESTART_BACKOFF_MAX_MS: String(Math.max(DEFAULT_BACKOFF.maxMs, options.outageSeconds * 1000)),
});

const timingOf = (options: Options): AlertFaultTiming => ({
  baselineSeconds: options.baselineSeconds,
  settleSeconds: options.settleSeconds,
  quietSeconds: options.quietSeconds,
  maxSeconds: options.maxFaultSeconds,
});

interface Check {
  goal: string;
  value: unknown;
  met: boolean | null;
}

function checks(r: {
  alerts: Record<string, AlertFaultResult> | null;
  trace: Awaited<ReturnType<typeof tracePart>> | null;
  overhead: Record<string, unknown> | null;
  seriesDetail: Awaited<ReturnType<typeof seriesPart>>['detail'] | null;
  concurrency: number;
}): Record<string, Check> {
  const out: Record<string, Check> = {};
  for (const [fault, a] of Object.entries(r.alerts ?? {})) {
    out[`${fault}_firing`] = {
      goal: `${a.alert} firing within ${GOALS.alert_firing_within_s} s of the kill`,
      value: a.firing_after_s,
      met: a.firing_after_s !== null && a.firing_after_s <= GOALS.alert_firing_within_s,
    };
    out[`${fault}_resolved`] = {
      goal: `${a.alert} no longer firing after the restart`,
      value: a.resolved_after_s,
      met: a.resolved_after_s !== null,
    };
    out[`${fault}_other_alerts`] = {
      goal: 'no other alert notifying (inhibited symptoms allowed)',
      value: a.other_alerts_firing,
      met: a.other_alerts_firing.length === GOALS.other_alerts_firing,
    };
  }
  if (r.trace)
    for (const kind of ['upload', 'ask'] as const)
      out[`${kind}_trace_processes`] = {
        goal: `spans from ${GOALS.trace_spans_from.join(' and ')}`,
        value: r.trace[kind]?.services ?? [],
        met: GOALS.trace_spans_from.every((s) => r.trace![kind]?.services.includes(s)),
      };
  if (r.overhead) {
    const high = `c${r.concurrency}`;
    for (const kind of ['search', 'ask']) {
      const p50 = r.overhead[`${kind}_p50_c1_ratio`] as number | null;
      const throughput = r.overhead[`${kind}_throughput_${high}_ratio`] as number | null;
      out[`${kind}_p50_c1_ratio`] = {
        goal: `<= ${GOALS.overhead_p50_c1_ratio_max}`,
        value: p50,
        met: p50 === null ? null : p50 <= GOALS.overhead_p50_c1_ratio_max,
      };
      out[`${kind}_throughput_${high}_ratio`] = {
        goal: `>= ${GOALS.overhead_throughput_c16_ratio_min}`,
        value: throughput,
        met: throughput === null ? null : throughput >= GOALS.overhead_throughput_c16_ratio_min,
      };
    }
  }
  if (r.seriesDetail)
    out.tenant_label_values = {
      goal: `<= ${GOALS.tenant_label_values_max} (METRICS_TENANT_LABELS tenants, then other)`,
      value: r.seriesDetail.tenant_label_values,
      met: r.seriesDetail.tenant_label_values <= GOALS.tenant_label_values_max,
    };
  return out;
}

async function main(options: Options): Promise<void> {
  const info = runInfo();
  const started = Date.now();
  const jaegerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'support-ai-obs-jaeger-'));
  // npm start's processes trace to it in every part (the cluster's do not trace), and the overhead part's "on" pair.
  const jaeger = await startBenchJaeger({ dataDir: jaegerDir });
  log(`Jaeger: query ${jaeger.queryUrl}, OTLP ${jaeger.otlpEndpoint}`);
  try {
    // The trace part runs on an npm start of its own, whose API starts asks without eager start (tracePart).
    const traced = options.parts.includes('trace')
      ? await startParts({ options, jaeger, parts: ['trace'], env: { ASK_EAGER_START: 'false' } })
      : undefined;
    const faultParts = options.parts.filter(
      (p) => p === 'series' || (p === 'alerts' && START_FAULTS.some((f) => options.faults.includes(f.name))),
    );
    const start = faultParts.length > 0 ? await startParts({ options, jaeger, parts: faultParts }) : undefined;
    const cluster =
      options.parts.includes('alerts') && options.cluster
        ? await clusterFaults({ options, timing: timingOf(options) })
        : undefined;
    let overhead: Record<string, unknown> | null = null;
    if (options.parts.includes('overhead')) {
      const overheadStarted = Date.now();
      overhead = await measureOverhead({ options, jaeger, keepData: options.keepData, log });
      overhead.total_seconds = round((Date.now() - overheadStarted) / 1000, 1);
    }
    const alerts = start?.alerts || cluster ? { ...start?.alerts?.results, ...cluster?.results } : null;
    const trace = traced?.trace ?? null;
    const goals = checks({
      alerts,
      trace,
      overhead,
      seriesDetail: start?.series?.detail ?? null,
      concurrency: options.concurrency,
    });
    const { datasets: _datasets, out: _out, ...settings } = options;
    writeResult(options.out, {
      ...info,
      settings: {
        ...settings,
        restart_backoff_initial_ms: options.outageSeconds * 1000,
        load_during_faults:
          'per tenant: a search every 1 s, an ask every 2 s, a one-case upload every 2 s, sent on time (open loop); 2 tenants',
      },
      goals: GOALS,
      alerts,
      trace,
      overhead,
      series: start?.series?.series ?? null,
      series_detail: start?.series?.detail ?? null,
      checks: goals,
      goals_met: Object.values(goals).every((c) => c.met !== false),
      notes: [
        'overhead: prom-client counts in both modes (it is compiled in); "off" turns off the metrics endpoints (ports 0), the scraping (no Prometheus running) and tracing (no OTLP endpoint: the SDK is not loaded).',
        `alerts: the supervisor's first restart waits ${options.outageSeconds} s (RESTART_BACKOFF_INITIAL_MS), so that each outage outlasts the cause alerts' "for" (10 s); other_alerts_firing lists the alerts that fired and that Alertmanager listed active (not inhibited, not silenced), or never received.`,
        "trace: on its own npm start with ASK_EAGER_START=false, so that the server hands an ask's first workflow task to either ask worker; asks are sent until each ask worker ran one. trace.ask is the one the worker process ran, trace.ask_in_api the one the API's own ask worker ran (where an eagerly started ask runs, the default: one process).",
      ],
      timings: {
        npm_start_s: start?.start_s ?? null,
        trace_npm_start_s: traced?.start_s ?? null,
        cluster_start_s: cluster?.cluster_start_s ?? null,
        total_seconds: round((Date.now() - started) / 1000, 1),
      },
      fault_load: { npm_start: start?.alerts?.load ?? null, cluster: cluster?.load ?? null },
    });
  } finally {
    await jaeger.stop();
    fs.rmSync(jaegerDir, { recursive: true, force: true });
  }
}

const partList = (value: string): Part[] => {
  const parts = value.split(',').map((s) => s.trim());
  for (const p of parts)
    if (!(PARTS as readonly string[]).includes(p))
      throw new InvalidArgumentError(`unknown part ${p}; one of ${PARTS.join(', ')}`);
  return parts as Part[];
};

const faultList = (value: string): string[] => {
  const faults = value.split(',').map((s) => s.trim());
  for (const f of faults)
    if (!FAULT_NAMES.includes(f))
      throw new InvalidArgumentError(`unknown fault ${f}; one of ${FAULT_NAMES.join(', ')}`);
  return faults;
};

const program = new Command('bench:observability')
  .description("Alerts under real faults, traces across processes, metrics' series and the cost of observability")
  .option('--parts <list>', `parts to run, comma-separated (${PARTS.join(', ')})`, partList, [...PARTS])
  .option('--faults <list>', `faults of the alert part, comma-separated (${FAULT_NAMES.join(', ')})`, faultList, [
    ...FAULT_NAMES,
  ])
  .option('--no-cluster', 'skip the faults in npm run start:cluster (minutes to start)')
  .option('--outage-seconds <n>', "the supervisor's first restart delay in the fault stacks", positiveInt, 30)
  .option('--baseline-seconds <n>', 'load before each kill', positiveInt, 10)
  .option('--settle-seconds <n>', 'alerts still read after the cause alert resolved', positiveInt, 15)
  .option('--quiet-seconds <n>', 'the most to wait for no alert pending or firing before a kill', positiveInt, 120)
  .option('--max-fault-seconds <n>', 'the most to watch the alerts after a kill', positiveInt, 300)
  .option('--tenants <n>', 'tenants sending requests before the series are counted', positiveInt, 100)
  .option('--throttled-tenants <n>', 'of them, those sent past their rate limit', positiveInt, 30)
  .option('--datasets <dir>', 'folder holding stackfaq/ (relative to the repository root)', DEFAULT_DATASETS)
  .option('--threads <n>', 'overhead: StackFAQ threads uploaded as cases and articles (125: all)', positiveInt, 125)
  .option('--keys <n>', 'API keys of the overhead tenant (the rate limit is per key)', positiveInt, 16)
  .option('--concurrency <n>', 'the high concurrency of the overhead part', positiveInt, 16)
  .option('--c1-requests <n>', 'overhead: calls per mode and kind at concurrency 1, over all rounds', positiveInt, 1200)
  .option('--high-requests <n>', 'overhead: calls per mode and kind at the high concurrency', positiveInt, 1920)
  .option('--rounds <n>', 'overhead: rounds, each running every measure in both modes', positiveInt, 8)
  .option(
    '--warmup <n>',
    'overhead: warm-up calls per mode and kind (twice as many at the high concurrency)',
    positiveInt,
    10,
  )
  .option('--max-round-seconds <n>', 'overhead: a measure stops sending after this long', positiveInt, 120)
  .option(
    '--trace-sample-ratio <r>',
    "overhead: the share of requests the on pair traces (OpenTelemetry's parentbased_traceidratio), docs/operations.md's advice for a busy deployment; 1: every request",
    ratioArg,
    0.1,
  )
  .option(
    '--no-sdk-metrics',
    'overhead: the on pair serves no Temporal runtime metrics (API_SDK_METRICS_PORT, WORKER_SDK_METRICS_PORT 0)',
  )
  .option('--no-tracing', 'overhead: the on pair does not trace (metrics alone: what tracing costs, by difference)')
  .option('--keep-data', 'keep the data folders and their logs')
  .option('--out <file>', 'result file (relative to the repository root)', 'bench/results/observability.json')
  .action((o: Options) =>
    main({ ...o, datasets: resolveDatasets(o.datasets) }).then(
      () => process.exit(0),
      (err) => {
        console.error(`[observability] ${err.stack ?? err}`);
        process.exit(1);
      },
    ),
  );
program.parse();
