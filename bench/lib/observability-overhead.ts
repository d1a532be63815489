/**
 * What metrics and tracing cost the hot paths (bench:observability): case search and ask through
 * two pairs of processes (an API and a worker each, on task queues of their own) against one bench
 * stack (Temporal, Weaviate, the embedding servers; scripts/stack/stack.ts without its monitoring),
 * both pairs running throughout (the corpus is uploaded before they start, through a third pair
 * stopped after it, so that neither measured pair carries the upload's work):
 *
 * - on: every metrics endpoint on (API_METRICS_PORT, API_SDK_METRICS_PORT, WORKER_METRICS_PORT,
 *   WORKER_SDK_METRICS_PORT), scraped by a Prometheus running with the stack's configuration (every
 *   2 s, the alert rules evaluated, its Alertmanager beside it), and tracing on
 *   (OTEL_EXPORTER_OTLP_ENDPOINT: Jaeger);
 * - off: the four ports 0 (no endpoint), no OTLP endpoint (no tracing SDK loaded), and Prometheus
 *   and Alertmanager frozen (SIGSTOP), so nothing is scraped (Temporal's and Weaviate's own metrics
 *   ports stay open, unread).
 *
 * prom-client's counting is compiled into both: "off" removes the endpoints, the scraping and
 * tracing, not the counters. A round measures search and ask at concurrency 1 (p50) and at the high
 * concurrency (throughput), closed loops (bench/lib/latency-run.ts), each measure in both modes back
 * to back, the mode that goes first alternating from measure to measure and from round to round, so
 * that a drift of the machine's speed, or a minute of other work on it, hits both modes alike. The
 * judged ratios are on / off, the median over the rounds of each round's pair; those of the samples
 * pooled over the rounds are beside them.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { median } from 'simple-statistics';
import { loadServicesConfig } from '../../domain/config';
import { ApiKeyStore } from '../../domain/weaviate/api-keys';
import { closeWeaviate, connectWeaviate } from '../../domain/weaviate/client';
import { monitoringServices, writeProcessTargets } from '../../scripts/stack/monitoring';
import { METRICS_PORT_SETTINGS, WORKER_ENTRY, nodeSpec, workerPolling } from '../../scripts/stack/processes';
import { provisionObservability } from '../../scripts/stack/provision-observability';
import {
  freePort,
  httpOk,
  startService,
  stopService,
  type Service,
  type ServiceSpec,
} from '../../scripts/stack/services';
import { freePorts, startStack, type RunningStack, type StackPorts } from '../../scripts/stack/stack';
import { ApiClient, chunks } from './api-client';
import { loadStackFaq, stackFaqCase } from './datasets';
import { sleep } from './fault-load';
import type { BenchJaeger } from './jaeger-trace';
import { shuffledQueries, stackFaqArticle } from './latency-corpus';
import { pooledStats, ratio, runRound, type Call, type Round } from './latency-run';
import { cpuSpan } from './process-cpu';

export interface OverheadOptions {
  datasets: string;
  /** StackFAQ threads uploaded (all 125 by default; fewer for a quick run). */
  threads: number;
  keys: number;
  concurrency: number;
  c1Requests: number;
  highRequests: number;
  rounds: number;
  warmup: number;
  maxRoundSeconds: number;
  /**
   * The share of requests the *on* pair traces (OpenTelemetry's `parentbased_traceidratio` sampler);
   * undefined: the SDK's default, every request.
   */
  traceSampleRatio?: number;
  /** Whether the *on* pair serves the Temporal runtimes' metrics (API_SDK_METRICS_PORT, WORKER_SDK_METRICS_PORT). */
  sdkMetrics: boolean;
  /** Whether the *on* pair traces (false: metrics alone, to split the cost). */
  tracing: boolean;
}

type Mode = 'on' | 'off';
type Kind = 'search' | 'ask';
const KINDS: Kind[] = ['search', 'ask'];
const SCOPES = ['cases:write', 'articles:write', 'search', 'ask'];
/** Seconds Prometheus runs, once every target answered, before an "on" phase measures: a scrape and a rule evaluation (every 2 s). */
const SCRAPING_SETTLE_S = 3;
/** The most to wait for every scrape target to have answered. */
const SCRAPING_START_TIMEOUT_S = 60;

/** One API and one worker on a task queue of their own. */
interface Pair {
  mode: Mode;
  baseUrl: string;
  taskQueue: string;
  metricsPorts: Record<(typeof METRICS_PORT_SETTINGS)[number], number>;
  services: Service[];
}

const stringEnv = (env: NodeJS.ProcessEnv) =>
  Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));

/** The stack's dependencies, as bench stacks run them, with Prometheus and Alertmanager left out (this part starts Prometheus itself). */
async function startDependencies(dataDir: string): Promise<{ stack: RunningStack; ports: StackPorts }> {
  const before = process.env.PROMETHEUS_ENABLED;
  process.env.PROMETHEUS_ENABLED = 'false';
  try {
    const ports = await freePorts();
    return { stack: await startStack({ dataDir, ports, headless: true }), ports };
  } finally {
    if (before === undefined) delete process.env.PROMETHEUS_ENABLED;
    else process.env.PROMETHEUS_ENABLED = before;
  }
}

/** The *on* pair's sampler settings: OpenTelemetry's own variables, or none for the SDK's default. */
const samplerEnv = (ratio: number | undefined): Record<string, string> =>
  ratio === undefined
    ? {}
    : { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: String(ratio) };

async function startPair(o: {
  mode: Mode;
  /** The services' names' suffix (`api-<name>`), the mode's by default. */
  name?: string;
  stack: RunningStack;
  jaeger: BenchJaeger;
  logDir: string;
  traceSampleRatio?: number;
  sdkMetrics: boolean;
  tracing: boolean;
}): Promise<Pair> {
  const base = Object.fromEntries(
    Object.entries({ ...stringEnv(process.env), ...o.stack.env }).filter(([name]) => !name.startsWith('OTEL_')),
  );
  const taskQueue = `obs-${o.name ?? o.mode}-${randomBytes(3).toString('hex')}`;
  const apiPort = await freePort();
  const metricsPorts = Object.fromEntries(
    await Promise.all(
      METRICS_PORT_SETTINGS.map(async (name) => {
        const on = o.mode === 'on' && (o.sdkMetrics || !name.includes('_SDK_'));
        return [name, on ? await freePort() : 0];
      }),
    ),
  ) as Pair['metricsPorts'];
  const env: Record<string, string> = {
    ...base,
    TASK_QUEUE: taskQueue,
    API_PORT: String(apiPort),
    LOG_LEVEL: 'warn',
    ...Object.fromEntries(Object.entries(metricsPorts).map(([name, port]) => [name, String(port)])),
    ...(o.mode === 'on' && o.tracing
      ? { OTEL_EXPORTER_OTLP_ENDPOINT: o.jaeger.otlpEndpoint, ...samplerEnv(o.traceSampleRatio) }
      : {}),
  };
  const temporal = loadServicesConfig(env).temporal;
  const polling = workerPolling({ address: temporal.address, namespace: temporal.namespace, taskQueue });
  const baseUrl = `http://127.0.0.1:${apiPort}`;
  const services: Service[] = [];
  try {
    services.push(
      await startService(
        nodeSpec({
          name: `worker-${o.name ?? o.mode}`,
          entry: WORKER_ENTRY,
          env,
          logDir: o.logDir,
          healthy: polling.healthy,
          startTimeoutMs: 180_000,
        }),
      ),
    );
    services.push(
      await startService(
        nodeSpec({
          name: `api-${o.name ?? o.mode}`,
          entry: 'api/server.ts',
          env,
          logDir: o.logDir,
          healthy: () => httpOk(`${baseUrl}/healthz`),
          ports: [apiPort],
          startTimeoutMs: 120_000,
        }),
      ),
    );
  } catch (err) {
    for (const s of services) await stopService(s);
    throw err;
  } finally {
    await polling.close();
  }
  return { mode: o.mode, baseUrl, taskQueue, metricsPorts, services };
}

/** Uploads the StackFAQ threads as cases (for searches) and as articles (for asks). */
async function uploadCorpus(o: { client: ApiClient; datasets: string; threads: number; log: (line: string) => void }) {
  const { client, log } = o;
  const loaded = loadStackFaq(o.datasets);
  const threads = loaded.threads.slice(0, o.threads);
  const ids = new Set(threads.map((t) => t.thread_id));
  const queries = loaded.queries.filter((q) => ids.has(q.thread_id));
  const started = Date.now();
  for (const chunk of chunks(threads.map(stackFaqCase), 125)) {
    const res = await client.upload('/v1/cases', { data: chunk });
    if (res.result !== 'success') throw new Error(`case upload was ${res.result}`);
  }
  for (const chunk of chunks(threads.map(stackFaqArticle), 25)) {
    const res = await client.upload('/v1/articles', { articles: chunk });
    if (res.result !== 'success') throw new Error(`article upload was ${res.result}`);
  }
  log(
    `${threads.length} StackFAQ threads uploaded as cases and articles in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  return { threads: threads.length, queries: shuffledQueries(queries) };
}

/**
 * Prometheus and Alertmanager as the stack runs them: started for the first "on" phase, frozen
 * (SIGSTOP: no scrape, no rule evaluation, no CPU) for an "off" one and thawed (SIGCONT) for the next
 * "on" one, as a running Prometheus would be, rather than restarted, whose replay of its growing
 * write-ahead log at every start cost the "on" phases after it. An "on" phase measures once every
 * scrape target has answered and a scrape and a rule evaluation more have passed.
 */
class Scraping {
  private services: Service[] = [];
  private frozen = false;
  constructor(
    private readonly specs: ServiceSpec[],
    private readonly url: string,
  ) {}

  async set(on: boolean): Promise<void> {
    if (on && this.services.length === 0) {
      for (const spec of this.specs) this.services.push(await startService(spec));
      const giveUp = Date.now() + SCRAPING_START_TIMEOUT_S * 1000;
      while (Date.now() < giveUp && Object.values(await this.targets()).some((health) => health !== 'up'))
        await sleep(500);
      await sleep(SCRAPING_SETTLE_S * 1000);
    } else if (on && this.frozen) {
      this.signal('SIGCONT');
      this.frozen = false;
      await sleep(SCRAPING_SETTLE_S * 1000);
    } else if (!on && this.services.length > 0 && !this.frozen) {
      this.signal('SIGSTOP');
      this.frozen = true;
    }
  }

  private signal(name: NodeJS.Signals): void {
    for (const service of this.services) service.child.kill(name);
  }

  /** Stops Prometheus and Alertmanager (thawed first, so that they can end). */
  async stop(): Promise<void> {
    if (this.frozen) this.signal('SIGCONT');
    this.frozen = false;
    for (const service of this.services.reverse()) await stopService(service);
    this.services = [];
  }

  /** The pids of Prometheus and Alertmanager, undefined while stopped. */
  pids(): Record<string, number | undefined> {
    return Object.fromEntries(this.specs.map((spec, i) => [spec.name, this.services[i]?.child.pid]));
  }

  /** The health of each scrape target, `job/instance` → `up`, `down` or `unknown` (not scraped yet); none while stopped. */
  async targets(): Promise<Record<string, string>> {
    try {
      const res = await fetch(`${this.url}/api/v1/targets?state=active`, { signal: AbortSignal.timeout(5000) });
      const body = (await res.json()) as {
        data: { activeTargets: { labels: Record<string, string>; health: string }[] };
      };
      const targets = body.data.activeTargets.map((t) => [`${t.labels.job}/${t.labels.instance}`, t.health]);
      return targets.length ? Object.fromEntries(targets) : { none: 'unknown' };
    } catch {
      return { none: 'unknown' };
    }
  }
}

/** The median of the ratios that are numbers, to 3 decimals; null for none. */
function medianRatio(values: (number | null)[]): number | null {
  const numbers = values.filter((v): v is number => v !== null);
  return numbers.length ? Math.round(median(numbers) * 1000) / 1000 : null;
}

/** Each process's CPU seconds over the phases' summed wall time: the cores it used on average (a process not running: 0). */
function coresUsed(spans: { wall_s: number; cpu_s: Record<string, number | null> }[]): Record<string, number> {
  const wall = spans.reduce((a, s) => a + s.wall_s, 0);
  const names = [...new Set(spans.flatMap((s) => Object.keys(s.cpu_s)))];
  return Object.fromEntries(
    names.map((name) => [name, Math.round((spans.reduce((a, s) => a + (s.cpu_s[name] ?? 0), 0) / wall) * 1000) / 1000]),
  );
}

export async function measureOverhead(o: {
  options: OverheadOptions;
  jaeger: BenchJaeger;
  keepData: boolean;
  log: (line: string) => void;
}) {
  const { options, log } = o;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'support-ai-obs-overhead-'));
  const logDir = path.join(dataDir, 'logs');
  const { stack, ports } = await startDependencies(dataDir);
  const pairs: Pair[] = [];
  let scraping: Scraping | undefined;
  try {
    const bins = await provisionObservability();
    const prometheusPort = await freePort();
    const monitoring = monitoringServices({
      bins,
      dataDir,
      logDir,
      ports: { prometheus: prometheusPort, alertmanager: await freePort() },
      temporal: [{ targets: [`127.0.0.1:${ports.temporalMetrics}`] }],
      weaviate: [{ targets: [`127.0.0.1:${ports.weaviateMetrics}`] }],
    });
    const prometheusUrl = monitoring.env.PROMETHEUS_URL;
    scraping = new Scraping(monitoring.specs, prometheusUrl);

    // The corpus goes in through a pair of its own, stopped before the measured pairs start, so that
    // neither of them has handled the upload (its requests, its heap, its ingestion runs).
    const loader = await startPair({
      mode: 'off',
      name: 'load',
      stack,
      jaeger: o.jaeger,
      logDir,
      sdkMetrics: false,
      tracing: false,
    });
    pairs.push(loader);
    // The keys once an API has created the schema.
    const weaviate = loadServicesConfig({ ...process.env, ...stack.env }).weaviate;
    await closeWeaviate();
    const store = new ApiKeyStore(() => connectWeaviate(weaviate));
    const tenant = `bench-obs-${randomBytes(4).toString('hex')}`;
    const keys: string[] = [];
    for (let i = 0; i < options.keys; i++)
      keys.push((await store.create({ tenant, scopes: SCOPES, name: 'bench:observability' })).key);
    await closeWeaviate();
    const corpus = await uploadCorpus({
      client: new ApiClient(loader.baseUrl, keys),
      datasets: options.datasets,
      threads: options.threads,
      log: (line) => log(`overhead: ${line}`),
    });
    for (const s of [...loader.services].reverse()) await stopService(s);
    pairs.splice(pairs.indexOf(loader), 1);

    for (const mode of ['on', 'off'] as Mode[])
      pairs.push(
        await startPair({
          mode,
          stack,
          jaeger: o.jaeger,
          logDir,
          traceSampleRatio: options.traceSampleRatio,
          sdkMetrics: options.sdkMetrics,
          tracing: options.tracing,
        }),
      );
    const on = pairs[0];
    writeProcessTargets({
      dataDir,
      processes: [
        {
          name: 'api-on',
          ports: { api: on.metricsPorts.API_METRICS_PORT, 'api-sdk': on.metricsPorts.API_SDK_METRICS_PORT },
        },
        {
          name: 'worker-on',
          ports: { worker: on.metricsPorts.WORKER_METRICS_PORT, 'worker-sdk': on.metricsPorts.WORKER_SDK_METRICS_PORT },
        },
      ],
    });
    log(`overhead: API and worker pairs on and off started (logs in ${logDir})`);
    const clients: Record<Mode, ApiClient> = {
      on: new ApiClient(on.baseUrl, keys),
      off: new ApiClient(pairs[1].baseUrl, keys),
    };
    const levels = [
      { label: 'c1', concurrency: 1, perRound: Math.ceil(options.c1Requests / options.rounds) },
      {
        label: `c${options.concurrency}`,
        concurrency: options.concurrency,
        perRound: Math.ceil(options.highRequests / options.rounds),
      },
    ];
    // Searches and asks have queries of their own (asks' embeddings are shared with a search of the
    // same text for 30 s). Both modes send the same queries in the same order in a round: the
    // warm-up the first, each level and round the next ones.
    const queries: Record<Kind, string[]> = {
      search: corpus.queries.filter((_, i) => i % 2 === 0),
      ask: corpus.queries.filter((_, i) => i % 2 === 1),
    };
    const offsets: Record<string, number[]> = {};
    let next = options.warmup * 3;
    for (const level of levels)
      for (let r = 0; r < options.rounds; r++) {
        (offsets[level.label] ??= []).push(next);
        next += level.perRound;
      }
    const traceIds: Record<Mode, number> = { on: 0, off: 0 };
    const call =
      (kind: Kind, mode: Mode, offset: number): Call =>
      async (i) => {
        const query = queries[kind][(offset + i) % queries[kind].length];
        const res =
          kind === 'search'
            ? await clients[mode].raw('POST', '/v1/search/cases', { query, offset: 0, limit: 10 })
            : await clients[mode].raw('POST', '/v1/assistant/ask', { query });
        if (res.headers.get('x-trace-id')) traceIds[mode] += 1;
        return { status: res.status };
      };
    const maxMs = options.maxRoundSeconds * 1000;

    for (const mode of ['on', 'off'] as Mode[]) {
      await scraping.set(mode === 'on');
      for (const kind of KINDS) {
        await runRound(options.warmup, 1, maxMs, call(kind, mode, 0));
        await runRound(options.warmup * 2, options.concurrency, maxMs, call(kind, mode, options.warmup));
      }
    }
    log('overhead: warmed up');
    const rounds: Record<string, Round[]> = {};
    const targetsWhenOn: Record<string, string>[] = [];
    const phaseOrder: string[] = [];
    const cpu: Record<Mode, ReturnType<ReturnType<typeof cpuSpan>['stop']>[]> = { on: [], off: [] };
    const pairOf = (mode: Mode) => pairs.find((p) => p.mode === mode)!;
    const measures = KINDS.flatMap((kind) => levels.map((level) => ({ kind, level })));
    // The API's CPU time over the calls of each measure in each mode: what a call costs the process
    // that traces and counts it, read apart from the latency, which the other processes share.
    const apiCpuPerCall: Record<string, Record<Mode, { cpu_s: number; calls: number }>> = {};
    // Round r's on / off of one measure, run back to back.
    const roundRatio = (kind: Kind, label: string, field: 'p50_ms' | 'per_s', r: number) =>
      ratio(
        pooledStats([rounds[`${kind}_on_${label}`][r]])[field],
        pooledStats([rounds[`${kind}_off_${label}`][r]])[field],
      );
    for (let r = 0; r < options.rounds; r++) {
      // Each measure runs in both modes back to back, the mode that goes first alternating from one
      // measure to the next and, for the same measure, from one round to the next.
      for (const [m, { kind, level }] of measures.entries()) {
        for (const mode of ((r + m) % 2 === 0 ? ['on', 'off'] : ['off', 'on']) as Mode[]) {
          phaseOrder.push(`${kind}_${level.label}_${mode}`);
          await scraping.set(mode === 'on');
          if (mode === 'on') targetsWhenOn.push(await scraping.targets());
          const idle = pairOf(mode === 'on' ? 'off' : 'on');
          const span = cpuSpan({
            ...scraping.pids(),
            jaeger: o.jaeger.pid,
            api: pairOf(mode).services[1].child.pid,
            worker: pairOf(mode).services[0].child.pid,
            idle_pair_api: idle.services[1].child.pid,
            idle_pair_worker: idle.services[0].child.pid,
            // The stack's processes: Temporal and Weaviate serve their own metrics to the scrapes.
            ...Object.fromEntries(stack.services.map((s) => [s.name, s.child?.pid])),
          });
          const result = await runRound(
            level.perRound,
            level.concurrency,
            maxMs,
            call(kind, mode, offsets[level.label][r]),
          );
          (rounds[`${kind}_${mode}_${level.label}`] ??= []).push(result);
          const used = span.stop();
          cpu[mode].push(used);
          const apiCpu = (apiCpuPerCall[`${kind}_${level.label}`] ??= {
            on: { cpu_s: 0, calls: 0 },
            off: { cpu_s: 0, calls: 0 },
          });
          apiCpu[mode].cpu_s += used.cpu_s.api ?? 0;
          apiCpu[mode].calls += result.samples.length;
        }
      }
      log(
        `overhead: round ${r + 1}/${options.rounds}: p50 on / off at c1: search ${roundRatio('search', 'c1', 'p50_ms', r)}, ask ${roundRatio('ask', 'c1', 'p50_ms', r)}`,
      );
    }
    await scraping.stop();

    const high = `c${options.concurrency}`;
    const stats = Object.fromEntries(Object.entries(rounds).map(([name, list]) => [name, pooledStats(list)]));
    const perRound = Object.fromEntries(
      Object.entries(rounds).map(([name, list]) => [
        name,
        list.map((r) => {
          const p = pooledStats([r]);
          return { p50_ms: p.p50_ms, per_s: p.per_s };
        }),
      ]),
    );
    const p50Ratio = (kind: Kind) => ratio(stats[`${kind}_on_c1`].p50_ms, stats[`${kind}_off_c1`].p50_ms);
    const throughputRatio = (kind: Kind) =>
      ratio(stats[`${kind}_on_${high}`].per_s, stats[`${kind}_off_${high}`].per_s);
    // Each round's on / off of the same measure: how far single pairs spread.
    const pairedRatios = (kind: Kind, label: string, field: 'p50_ms' | 'per_s') =>
      rounds[`${kind}_on_${label}`].map((_, r) => roundRatio(kind, label, field, r));
    const paired = Object.fromEntries(
      KINDS.flatMap((kind) => [
        [`${kind}_p50_c1`, pairedRatios(kind, 'c1', 'p50_ms')],
        [`${kind}_throughput_${high}`, pairedRatios(kind, high, 'per_s')],
      ]),
    );
    return {
      // The judged ratios: the median of the rounds' pairs, which a single slow or fast phase of
      // either mode (this machine's speed swings by a third within seconds) does not move.
      search_p50_c1_ratio: medianRatio(paired.search_p50_c1),
      [`search_throughput_${high}_ratio`]: medianRatio(paired[`search_throughput_${high}`]),
      ask_p50_c1_ratio: medianRatio(paired.ask_p50_c1),
      [`ask_throughput_${high}_ratio`]: medianRatio(paired[`ask_throughput_${high}`]),
      // The same of the samples pooled over the rounds (the judged figures until dd94e01).
      pooled_ratios: {
        search_p50_c1: p50Ratio('search'),
        [`search_throughput_${high}`]: throughputRatio('search'),
        ask_p50_c1: p50Ratio('ask'),
        [`ask_throughput_${high}`]: throughputRatio('ask'),
      },
      stats,
      per_round: perRound,
      per_round_ratios: paired,
      phase_order: phaseOrder,
      cpu_cores_while_measuring: { on: coresUsed(cpu.on), off: coresUsed(cpu.off) },
      api_cpu_ms_per_call: Object.fromEntries(
        Object.entries(apiCpuPerCall).map(([measure, modes]) => [
          measure,
          Object.fromEntries(
            Object.entries(modes).map(([mode, m]) => [mode, Math.round((m.cpu_s / Math.max(1, m.calls)) * 1e5) / 100]),
          ),
        ]),
      ),
      checks: {
        answers_with_trace_id: traceIds,
        prometheus_targets_when_on: targetsWhenOn[0] ?? {},
        prometheus_targets_down_when_on: targetsWhenOn.flatMap((t) =>
          Object.entries(t)
            .filter(([, health]) => health !== 'up')
            .map(([target]) => target),
        ),
      },
      protocol: {
        corpus: `one tenant: the ${corpus.threads} StackFAQ threads as cases (searched) and as articles (asked), uploaded through a pair of their own before the measured pairs started`,
        queries:
          'StackFAQ paraphrased questions, fixed shuffle, every other one for searches and the others for asks; in each round both modes send the same queries in the same order',
        calls_per_mode: { c1: levels[0].perRound * options.rounds, [high]: levels[1].perRound * options.rounds },
        rounds: options.rounds,
        warmup_per_mode: options.warmup,
        keys: options.keys,
        traced_share_when_on: options.traceSampleRatio ?? 1,
        temporal_runtime_metrics_when_on: options.sdkMetrics,
        tracing_when_on: options.tracing,
      },
    };
  } finally {
    await scraping?.stop().catch(() => undefined);
    for (const pair of pairs) for (const s of [...pair.services].reverse()) await stopService(s);
    await stack.stop();
    if (o.keepData) log(`overhead: data and logs kept in ${dataDir}`);
    else fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
