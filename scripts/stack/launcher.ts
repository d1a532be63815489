/**
 * `npm start` as a child process, for the tests and benchmarks that need its whole topology (every
 * process supervised): free ports, a data folder of the caller's, the operator key it prints, the
 * pid file of each process, and Ctrl-C as a terminal sends it.
 */
import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ClusterPorts, allClusterPorts, clusterPorts } from './cluster';
import { freePort, portFree } from './services';
import { StackPorts, freePorts, runDir } from './stack';

const root = path.resolve(__dirname, '..', '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the caller's environment may carry from a test or benchmark stack, set aside so that the launcher starts its own. */
const RUNNER_SETTINGS = [
  'EMBEDDINGS_URL',
  'EMBEDDINGS_QUERY_URL',
  'TAG_EMBEDDINGS_URL',
  'TEMPORAL_ADDRESS',
  'TEMPORAL_UI_URL',
  'WEAVIATE_API_KEY',
];

export interface Launched {
  child: ChildProcess;
  dataDir: string;
  ports: StackPorts;
  apiPort: number;
  /** The API's base URL, `http://127.0.0.1:<apiPort>`. */
  baseUrl: string;
  /** The key for tenant `default` printed on the first start of the data folder. */
  operatorKey?: string;
  /** Everything the launcher printed so far. */
  output(): string;
  /** The pid of a supervised process (`temporal`, `weaviate`, `embeddings`, `embeddings-query`, `english-encoder`, `worker`, `api`, or `launcher`), undefined while it is not running. */
  pid(name: string): number | undefined;
  /** `<dataDir>/logs/supervisor.log` so far. */
  supervisorLog(): string;
  /** Ctrl-C as a terminal sends it (SIGINT to the launcher and its children at once); resolves with its exit code. */
  interrupt(): Promise<number | null>;
}

export async function launchStart(o: {
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  startTimeoutMs?: number;
}): Promise<Launched> {
  const ports = await freePorts();
  const taken = new Set(Object.values(ports));
  let apiPort: number;
  do apiPort = await freePort();
  while (taken.has(apiPort));
  const env: NodeJS.ProcessEnv = {
    DATA_DIR: o.dataDir,
    API_PORT: String(apiPort),
    TEMPORAL_HEADLESS: o.env?.TEMPORAL_HEADLESS ?? process.env.TEMPORAL_HEADLESS ?? 'true',
    TEMPORAL_PORT: String(ports.temporal),
    TEMPORAL_UI_PORT: String(ports.temporalUi),
    TEMPORAL_METRICS_PORT: String(ports.temporalMetrics),
    WEAVIATE_HOST: '127.0.0.1',
    WEAVIATE_HTTP_PORT: String(ports.weaviateHttp),
    WEAVIATE_GRPC_PORT: String(ports.weaviateGrpc),
    WEAVIATE_GOSSIP_PORT: String(ports.weaviateGossip),
    WEAVIATE_RAFT_PORT: String(ports.weaviateRaft),
    WEAVIATE_METRICS_PORT: String(ports.weaviateMetrics),
    EMBEDDINGS_PORT: String(ports.embeddings),
    EMBEDDINGS_QUERY_PORT: String(ports.embeddingsQuery),
    TAG_EMBEDDINGS_PORT: String(ports.englishEncoder),
    CHAT_MODEL_PORT: String(ports.chatModel),
    PROMETHEUS_PORT: String(ports.prometheus),
    ALERTMANAGER_PORT: String(ports.alertmanager),
  };
  const launched = await launch({
    script: 'scripts/stack/start.ts',
    what: 'npm start',
    dataDir: o.dataDir,
    env,
    callerEnv: o.env,
    startTimeoutMs: o.startTimeoutMs,
  });
  return { ...launched, ports, apiPort, baseUrl: `http://127.0.0.1:${apiPort}` };
}

export type LaunchedCluster = Omit<Launched, 'ports' | 'apiPort'> & { ports: ClusterPorts };

/** A base for the cluster's ports (below 32768, as Temporal's membership ports must be) with every port of it free. */
async function freeClusterBase(): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const base = 20_000 + 100 * Math.floor(Math.random() * 120);
    if ((await Promise.all(allClusterPorts(clusterPorts(base)).map(portFree))).every(Boolean)) return base;
  }
  throw new Error('no free range of ports for the cluster below 32768');
}

/** `npm run start:cluster` on free ports and a data folder of the caller's. */
export async function launchCluster(o: {
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  startTimeoutMs?: number;
}): Promise<LaunchedCluster> {
  const base = await freeClusterBase();
  const env = { CLUSTER_DATA_DIR: o.dataDir, CLUSTER_PORT_BASE: String(base) };
  const launched = await launch({
    script: 'scripts/stack/start-cluster.ts',
    what: 'npm run start:cluster',
    dataDir: o.dataDir,
    env,
    callerEnv: o.env,
    startTimeoutMs: o.startTimeoutMs,
  });
  const ports = clusterPorts(base);
  return { ...launched, ports, baseUrl: `http://127.0.0.1:${ports.api}` };
}

/** Runs a launcher script in its own process group and waits until it says it is ready. */
async function launch(o: {
  script: string;
  what: string;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  callerEnv?: NodeJS.ProcessEnv;
  startTimeoutMs?: number;
}): Promise<Omit<Launched, 'ports' | 'apiPort' | 'baseUrl'>> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...o.callerEnv };
  for (const name of RUNNER_SETTINGS) if (!o.callerEnv?.[name]) delete env[name];
  Object.assign(env, o.env);
  // Its own process group, so that Ctrl-C can reach the launcher and its children at once, as from a terminal.
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', o.script], {
    cwd: root,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const timeoutMs = o.startTimeoutMs ?? 600_000;
  const deadline = Date.now() + timeoutMs;
  try {
    while (!output.includes('Press Ctrl-C to stop.')) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`${o.what} exited (${child.exitCode ?? child.signalCode}):\n${output}`);
      if (Date.now() > deadline) throw new Error(`${o.what} was not ready within ${timeoutMs / 1000} s:\n${output}`);
      await sleep(250);
    }
  } catch (err) {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(-child.pid!, 'SIGINT');
      await exited;
    }
    throw err;
  }
  const logFile = path.join(o.dataDir, 'logs', 'supervisor.log');
  return {
    child,
    dataDir: o.dataDir,
    operatorKey: /Operator API key for tenant "default".*\n\s+(\S+)/.exec(output)?.[1],
    output: () => output,
    pid(name) {
      try {
        return Number(fs.readFileSync(path.join(runDir(o.dataDir), `${name}.pid`), 'utf8'));
      } catch {
        return undefined;
      }
    },
    supervisorLog: () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : ''),
    async interrupt() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      process.kill(-child.pid!, 'SIGINT');
      return exited;
    },
  };
}
