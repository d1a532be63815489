/**
 * The whole dependency stack (Temporal dev server, Weaviate, embedding servers) started together,
 * each kept running by one supervisor (scripts/stack/supervisor.ts), which `npm start` also gives
 * the worker and the API. Returns the environment the worker and the API read
 * (domain/config.ts), the supervisor, and a stop function.
 *
 * Two embedding servers of the same model: one for passages and long queries, one for short
 * queries only (the two lanes of domain/models/embeddings.ts), so that a search never queues
 * behind an upload's passages: the servers share the CPU instead. A third server, an English
 * sentence encoder, gives the tag model a second reading of each text (domain/tags/model.ts).
 * On request, a local chat model server (llama.cpp's, scripts/stack/chat_server.py) runs with them.
 * Prometheus and Alertmanager (scripts/stack/monitoring.ts) scrape them and alert on their faults,
 * unless PROMETHEUS_ENABLED=false.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitoringEnabled, monitoringServices } from './monitoring';
import { Provisioned, provisionAll } from './provision';
import { provisionObservability } from './provision-observability';
import {
  assertPortFree,
  chatModelName,
  chatModelSpec,
  batchNice,
  embeddingsSpec,
  englishEncoderSpec,
  freePort,
  portFree,
  ServiceSpec,
  temporalSpec,
  weaviateSpec,
} from './services';
import { SupervisedProcess, Supervisor, backoffFromEnv } from './supervisor';
import { serveSupervisorMetrics } from './supervisor-metrics';
import { writeScrapeTargets } from './prometheus-config';
import type { MetricsServer } from '../../domain/observability/metrics-server';
import { ensureWeaviateKey } from './weaviate-key';

export interface StackPorts {
  temporal: number;
  temporalUi: number;
  /** The dev server's Prometheus metrics. */
  temporalMetrics: number;
  weaviateHttp: number;
  weaviateGrpc: number;
  weaviateGossip: number;
  weaviateData: number;
  weaviateRaft: number;
  weaviateRaftRpc: number;
  /** Weaviate's Prometheus metrics; 0: none. */
  weaviateMetrics: number;
  embeddings: number;
  embeddingsQuery: number;
  englishEncoder: number;
  chatModel: number;
  prometheus: number;
  alertmanager: number;
}

/** Threads of each embedding server: all cores for the bulk lane; see QUERY_SERVER_THREADS. */
const BULK_SERVER_THREADS = Math.max(1, os.cpus().length);
/**
 * The short-query server's threads: one. Measured on 2 cores with StackFAQ queries, one every
 * 200 ms, while the bulk server embedded passages non-stop: 1 thread, p50 42 ms and p95 71 ms
 * (idle 26 / 44 ms), passages unslowed; 2 threads, p50 140 ms and p95 1.7 s (idle 25 / 36 ms), and
 * half the passage rate: four spinning threads on two cores (docs/benchmarks.md, "Fairness").
 */
export const QUERY_SERVER_THREADS = 1;
/** The English encoder's threads (the tag model's second reading of a text): one, like the short-query server. */
const ENGLISH_ENCODER_THREADS = 1;
/** The chat model server's defaults (scripts/stack/chat_server.py says why): 2 threads, one slot of 4096 tokens. */
export const CHAT_MODEL_DEFAULTS = { threads: 2, ctx: 4096, parallel: 1 } as const;

/** A local chat model server to start with the stack. */
export interface LocalChatModel {
  /** The GGUF file to serve; the pinned Gemma 3 270M (provision.ts, ensureChatModel) when not given. */
  model?: string;
  threads?: number;
  /** The context window of each slot, in tokens. */
  ctx?: number;
  parallel?: number;
}

export interface StackOptions {
  dataDir: string;
  ports: StackPorts;
  headless: boolean;
  /** The supervisor to run the processes under; by default one of the stack's own, with `stackSupervisor`. */
  supervisor?: Supervisor;
  /** Also starts a local chat model server (on `ports.chatModel`); none when not given. */
  chatModel?: LocalChatModel;
  /** Where Alertmanager sends its notifications; ALERTMANAGER_WEBHOOK_URL when not given. */
  alertWebhookUrl?: string;
}

export interface RunningStack {
  env: Record<string, string>;
  /** The dependencies' processes, each `child` the latest one. */
  services: SupervisedProcess[];
  supervisor: Supervisor;
  /** The local chat model server, when `chatModel` asked for one: its OpenAI base URL, the model name it answers to, its context per slot. */
  chatModel?: { url: string; model: string; contextTokens: number };
  /** Stops every process the supervisor runs, including any added after the stack started. */
  stop(): Promise<void>;
}

/** Where the pid files of a stack's processes are: `<dataDir>/run/<name>.pid`. */
export const runDir = (dataDir: string) => path.join(dataDir, 'run');

/** A supervisor logging to `<dataDir>/logs/supervisor.log`, its restart delays from the environment (RESTART_BACKOFF_*, RESTART_STABLE_MS). */
export function stackSupervisor(dataDir: string, env: NodeJS.ProcessEnv = process.env): Supervisor {
  return new Supervisor({ logDir: path.join(dataDir, 'logs'), runDir: runDir(dataDir), backoff: backoffFromEnv(env) });
}

const int = (v: string | undefined, fallback: number) => (v ? Number.parseInt(v, 10) : fallback);

/** Fixed ports for `npm start`, each overridable by an environment variable. Weaviate's data and
 * Raft RPC ports follow its gossip and Raft ports. */
export function configuredPorts(env = process.env): StackPorts {
  const gossip = int(env.WEAVIATE_GOSSIP_PORT, 7946);
  const raft = int(env.WEAVIATE_RAFT_PORT, 8300);
  return {
    temporal: int(env.TEMPORAL_PORT, 7233),
    temporalUi: int(env.TEMPORAL_UI_PORT, 8233),
    temporalMetrics: int(env.TEMPORAL_METRICS_PORT, 7235),
    weaviateHttp: int(env.WEAVIATE_HTTP_PORT, 8080),
    weaviateGrpc: int(env.WEAVIATE_GRPC_PORT, 50051),
    weaviateGossip: gossip,
    weaviateData: gossip + 1,
    weaviateRaft: raft,
    weaviateRaftRpc: raft + 1,
    weaviateMetrics: int(env.WEAVIATE_METRICS_PORT, 2112),
    embeddings: int(env.EMBEDDINGS_PORT, 8000),
    embeddingsQuery: int(env.EMBEDDINGS_QUERY_PORT, 8001),
    englishEncoder: int(env.TAG_EMBEDDINGS_PORT, 8002),
    chatModel: int(env.CHAT_MODEL_PORT, 8003),
    prometheus: int(env.PROMETHEUS_PORT, 9090),
    alertmanager: int(env.ALERTMANAGER_PORT, 9093),
  };
}

/** LOCAL_CHAT_MODEL's name for the pinned model (Gemma 3 270M, q4_k_m; provision.ts, ensureChatModel). */
export const BUNDLED_CHAT_MODEL = 'gemma3-270m';

/**
 * The local chat model `npm start` runs, from LOCAL_CHAT_MODEL (`gemma3-270m`, the pinned model,
 * or the path of a .gguf file) and LOCAL_CHAT_THREADS, LOCAL_CHAT_CONTEXT (tokens per slot),
 * LOCAL_CHAT_PARALLEL; none without LOCAL_CHAT_MODEL.
 */
export function localChatModel(env = process.env): LocalChatModel | undefined {
  const named = env.LOCAL_CHAT_MODEL?.trim();
  if (!named) return undefined;
  const positive = (name: string) => {
    const value = env[name];
    if (value === undefined || value === '') return undefined;
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name} must be a whole number above 0, not "${value}"`);
    return n;
  };
  const settings = {
    threads: positive('LOCAL_CHAT_THREADS'),
    ctx: positive('LOCAL_CHAT_CONTEXT'),
    parallel: positive('LOCAL_CHAT_PARALLEL'),
  };
  if (named === BUNDLED_CHAT_MODEL) return settings;
  const model = path.resolve(named);
  if (!model.toLowerCase().endsWith('.gguf') || !fs.existsSync(model))
    throw new Error(
      `LOCAL_CHAT_MODEL=${named} is neither ${BUNDLED_CHAT_MODEL} (the pinned model) nor an existing .gguf file`,
    );
  return { ...settings, model };
}

/**
 * Free ports for a test run, so it never collides with a running `npm start`. Weaviate expects its
 * data port right after its gossip port and its Raft RPC port right after its Raft port.
 */
export async function freePorts(): Promise<StackPorts> {
  const taken = new Set<number>();
  const one = async (): Promise<number> => {
    for (;;) {
      const port = await freePort();
      if (!taken.has(port)) return (taken.add(port), port);
    }
  };
  const pair = async (): Promise<number> => {
    for (;;) {
      const port = await one();
      if (port < 65535 && !taken.has(port + 1) && (await portFree(port + 1))) return (taken.add(port + 1), port);
    }
  };
  const weaviateGossip = await pair();
  const weaviateRaft = await pair();
  return {
    temporal: await one(),
    temporalUi: await one(),
    temporalMetrics: await one(),
    weaviateHttp: await one(),
    weaviateGrpc: await one(),
    weaviateGossip,
    weaviateData: weaviateGossip + 1,
    weaviateRaft,
    weaviateRaftRpc: weaviateRaft + 1,
    weaviateMetrics: await one(),
    embeddings: await one(),
    embeddingsQuery: await one(),
    englishEncoder: await one(),
    chatModel: await one(),
    prometheus: await one(),
    alertmanager: await one(),
  };
}

const PORT_SETTINGS: Record<keyof StackPorts, string> = {
  temporal: 'TEMPORAL_PORT',
  temporalUi: 'TEMPORAL_UI_PORT',
  temporalMetrics: 'TEMPORAL_METRICS_PORT',
  weaviateHttp: 'WEAVIATE_HTTP_PORT',
  weaviateGrpc: 'WEAVIATE_GRPC_PORT',
  weaviateGossip: 'WEAVIATE_GOSSIP_PORT',
  weaviateData: 'WEAVIATE_GOSSIP_PORT (data port = gossip port + 1)',
  weaviateRaft: 'WEAVIATE_RAFT_PORT',
  weaviateRaftRpc: 'WEAVIATE_RAFT_PORT (RPC port = Raft port + 1)',
  weaviateMetrics: 'WEAVIATE_METRICS_PORT',
  embeddings: 'EMBEDDINGS_PORT',
  embeddingsQuery: 'EMBEDDINGS_QUERY_PORT',
  englishEncoder: 'TAG_EMBEDDINGS_PORT',
  chatModel: 'CHAT_MODEL_PORT',
  prometheus: 'PROMETHEUS_PORT',
  alertmanager: 'ALERTMANAGER_PORT',
};

/**
 * The embedding servers and the English encoder (those not replaced by EMBEDDINGS_URL or
 * TAG_EMBEDDINGS_URL), and the settings pointing the worker and the API at them.
 */
export function modelServers(o: {
  bins: Pick<Provisioned, 'embeddingsBin' | 'englishEncoder'>;
  ports: Pick<StackPorts, 'embeddings' | 'embeddingsQuery' | 'englishEncoder'>;
  logDir: string;
}): { specs: ServiceSpec[]; env: Record<string, string> } {
  const { bins, ports, logDir } = o;
  const specs = [
    ...(bins.embeddingsBin
      ? [
          // Uploads' passages are batch work, below the queries people wait for (batchNice).
          { name: 'embeddings', port: ports.embeddings, threads: BULK_SERVER_THREADS, nice: batchNice() },
          { name: 'embeddings-query', port: ports.embeddingsQuery, threads: QUERY_SERVER_THREADS },
        ].map((server) => embeddingsSpec({ ...server, bin: bins.embeddingsBin!, logDir }))
      : []),
    ...(bins.englishEncoder
      ? [
          englishEncoderSpec({
            ...bins.englishEncoder,
            port: ports.englishEncoder,
            threads: ENGLISH_ENCODER_THREADS,
            logDir,
          }),
        ]
      : []),
  ];
  const env: Record<string, string> = {
    EMBEDDINGS_URL: process.env.EMBEDDINGS_URL ?? `http://127.0.0.1:${ports.embeddings}/v1`,
    TAG_EMBEDDINGS_URL: process.env.TAG_EMBEDDINGS_URL ?? `http://127.0.0.1:${ports.englishEncoder}/v1`,
  };
  // An external server (EMBEDDINGS_URL) serves both lanes unless EMBEDDINGS_QUERY_URL names another.
  const queryUrl = process.env.EMBEDDINGS_URL
    ? process.env.EMBEDDINGS_QUERY_URL
    : `http://127.0.0.1:${ports.embeddingsQuery}/v1`;
  if (queryUrl) env.EMBEDDINGS_QUERY_URL = queryUrl;
  return { specs, env };
}

export async function startStack(o: StackOptions): Promise<RunningStack> {
  const monitored = monitoringEnabled();
  const [bins, observability] = await Promise.all([provisionAll(), monitored ? provisionObservability() : undefined]);
  for (const [key, setting] of Object.entries(PORT_SETTINGS) as [keyof StackPorts, string][]) {
    if (key === 'temporalUi' && o.headless) continue;
    if ((key === 'embeddings' || key === 'embeddingsQuery') && !bins.embeddingsBin) continue;
    if (key === 'englishEncoder' && !bins.englishEncoder) continue;
    if (key === 'chatModel' && !o.chatModel) continue;
    if ((key === 'prometheus' || key === 'alertmanager') && !monitored) continue;
    if (key === 'weaviateMetrics' && !o.ports.weaviateMetrics) continue;
    await assertPortFree(o.ports[key], key, setting);
  }
  const logDir = path.join(o.dataDir, 'logs');
  const weaviateKey = ensureWeaviateKey(o.dataDir);
  const supervisor = o.supervisor ?? stackSupervisor(o.dataDir);
  let supervisorMetrics: MetricsServer | undefined;
  const stop = async () => {
    await supervisor.stop();
    await supervisorMetrics?.close();
  };
  const chat = o.chatModel && {
    model: o.chatModel.model ?? bins.chatModel.model,
    threads: o.chatModel.threads ?? CHAT_MODEL_DEFAULTS.threads,
    ctx: o.chatModel.ctx ?? CHAT_MODEL_DEFAULTS.ctx,
    parallel: o.chatModel.parallel ?? CHAT_MODEL_DEFAULTS.parallel,
  };
  const models = modelServers({ bins, ports: o.ports, logDir });
  const monitoring =
    observability &&
    monitoringServices({
      bins: observability,
      dataDir: o.dataDir,
      logDir,
      ports: o.ports,
      temporal: [{ targets: [`127.0.0.1:${o.ports.temporalMetrics}`] }],
      weaviate: o.ports.weaviateMetrics ? [{ targets: [`127.0.0.1:${o.ports.weaviateMetrics}`] }] : [],
      webhookUrl: o.alertWebhookUrl,
    });
  const specs = [
    temporalSpec({
      bin: bins.temporalBin,
      port: o.ports.temporal,
      uiPort: o.ports.temporalUi,
      dbFile: path.join(o.dataDir, 'temporal.db'),
      headless: o.headless,
      logDir,
      metricsPort: o.ports.temporalMetrics,
    }),
    weaviateSpec({
      bin: bins.weaviateBin,
      httpPort: o.ports.weaviateHttp,
      grpcPort: o.ports.weaviateGrpc,
      gossipPort: o.ports.weaviateGossip,
      dataPort: o.ports.weaviateData,
      raftPort: o.ports.weaviateRaft,
      raftRpcPort: o.ports.weaviateRaftRpc,
      apiKey: weaviateKey,
      dataDir: path.join(o.dataDir, 'weaviate'),
      logDir,
      metricsPort: o.ports.weaviateMetrics,
    }),
    ...models.specs,
    ...(chat ? [chatModelSpec({ ...chat, python: bins.chatModel.python, port: o.ports.chatModel, logDir })] : []),
  ];
  let services: SupervisedProcess[];
  try {
    console.log(
      `[stack] starting Temporal, Weaviate and the embedding servers${chat ? ', the chat model' : ''}${monitoring ? ', Prometheus and Alertmanager' : ''} ...`,
    );
    services = await Promise.all(specs.map((spec) => supervisor.start(spec)));
    // Once the others serve, so that a process still starting is not an alert.
    services.push(...(await Promise.all((monitoring?.specs ?? []).map((spec) => supervisor.start(spec)))));
    if (monitoring) supervisorMetrics = await superviseVisibly({ supervisor, dataDir: o.dataDir });
    console.log(`[stack] ready: ${services.map((s) => s.name).join(', ')} (logs in ${logDir})`);
  } catch (err) {
    await stop();
    throw err;
  }
  const env: Record<string, string> = {
    TEMPORAL_ADDRESS: `127.0.0.1:${o.ports.temporal}`,
    WEAVIATE_HOST: '127.0.0.1',
    WEAVIATE_HTTP_PORT: String(o.ports.weaviateHttp),
    WEAVIATE_GRPC_PORT: String(o.ports.weaviateGrpc),
    WEAVIATE_API_KEY: weaviateKey,
    ...models.env,
    ...monitoring?.env,
  };
  if (!o.headless) env.TEMPORAL_UI_URL = `http://127.0.0.1:${o.ports.temporalUi}`;
  const chatModel = chat && {
    url: `http://127.0.0.1:${o.ports.chatModel}/v1`,
    model: chatModelName(chat.model),
    contextTokens: chat.ctx,
  };
  return { env, services, supervisor, chatModel, stop };
}

/**
 * Serves the supervisor's metrics (supervisor-metrics.ts) on a free port and names it to the
 * stack's Prometheus (job `supervisor`): a process it restarts within seconds still raises
 * ProcessExited.
 */
export async function superviseVisibly(o: { supervisor: Supervisor; dataDir: string }): Promise<MetricsServer> {
  const server = await serveSupervisorMetrics({ supervisor: o.supervisor });
  writeScrapeTargets({ dataDir: o.dataDir, job: 'supervisor', targets: [`127.0.0.1:${server.port}`] });
  return server;
}
