/**
 * The production topology on one host (`npm run start:cluster`): PostgreSQL; two Temporal server
 * processes (all roles each) on it, forming one cluster; the Temporal Web UI; three Weaviate nodes
 * forming one Raft cluster, every collection replicated three times; the embedding servers; and
 * HAProxy in front of Temporal's frontends and Weaviate's HTTP and gRPC ports (the workers and APIs
 * added by scripts/stack/start-cluster.ts get a balancer too). Every process runs under the same
 * supervisor as `npm start`'s.
 *
 * Every port is CLUSTER_PORT_BASE plus a fixed offset (clusterPorts), below 32768 since Temporal
 * stores its membership ports as smallint. Spread over several hosts, the same pieces talk over the
 * same ports (README, "Several hosts").
 */
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { SEARCH_ATTRIBUTES, ServiceSpec, httpOk, weaviateSpec } from './services';
import { ensureSecret } from './weaviate-key';

const execFileAsync = promisify(execFile);

export const DEFAULT_CLUSTER_PORT_BASE = 17000;
/** Temporal server processes, Weaviate nodes, API instances, worker processes. */
export const CLUSTER_SIZE = { temporal: 2, weaviate: 3, api: 2, worker: 2 } as const;
/** The replication factor of every collection in the cluster: each object on all three Weaviate nodes. */
export const CLUSTER_REPLICATION_FACTOR = 3;
/** History shards of the Temporal cluster: fixed when its database is created, and cannot change after. */
export const TEMPORAL_HISTORY_SHARDS = 16;

export interface TemporalProcessPorts {
  frontend: number;
  frontendHttp: number;
  history: number;
  matching: number;
  worker: number;
  membership: { frontend: number; history: number; matching: number; worker: number };
  /** Its Prometheus metrics (the server's `global.metrics.prometheus.listenAddress`), all four roles. */
  metrics: number;
}

export interface WeaviateNodePorts {
  http: number;
  grpc: number;
  gossip: number;
  data: number;
  raft: number;
  raftRpc: number;
  /** Its Prometheus metrics (listening on every interface: README, Security). */
  metrics: number;
}

/** A Node process's metrics endpoints: its own (prom-client) and its Temporal runtime's. */
export interface ProcessMetricsPorts {
  metrics: number;
  sdk: number;
}

export interface ClusterPorts {
  /** What clients use: the balancer's front ends, the UI, the balancer's own status page. */
  api: number;
  temporal: number;
  weaviateHttp: number;
  weaviateGrpc: number;
  temporalUi: number;
  balancerStatus: number;
  postgres: number;
  embeddings: number;
  embeddingsQuery: number;
  englishEncoder: number;
  apiInstances: number[];
  temporalProcesses: TemporalProcessPorts[];
  weaviateNodes: WeaviateNodePorts[];
  prometheus: number;
  alertmanager: number;
  /** The metrics endpoints of `api-1`, `api-2` and of `worker-1`, `worker-2`. */
  apiMetrics: ProcessMetricsPorts[];
  workerMetrics: ProcessMetricsPorts[];
}

/** Every port of the cluster, from its base: the front ends first, then each process's own. */
export function clusterPorts(base: number): ClusterPorts {
  if (!Number.isSafeInteger(base) || base < 1024 || base + 100 > 32767)
    throw new Error(`CLUSTER_PORT_BASE must be a whole number from 1024 to 32667, not ${base}`);
  const range = (n: number, first: number, step = 1) => Array.from({ length: n }, (_, i) => first + i * step);
  return {
    api: base,
    temporal: base + 1,
    weaviateHttp: base + 2,
    weaviateGrpc: base + 3,
    temporalUi: base + 4,
    balancerStatus: base + 5,
    postgres: base + 6,
    embeddings: base + 7,
    embeddingsQuery: base + 8,
    englishEncoder: base + 9,
    apiInstances: range(CLUSTER_SIZE.api, base + 10),
    prometheus: base + 12,
    alertmanager: base + 13,
    temporalProcesses: range(CLUSTER_SIZE.temporal, base + 20, 10).map((p) => ({
      frontend: p,
      frontendHttp: p + 1,
      history: p + 2,
      matching: p + 3,
      worker: p + 4,
      membership: { frontend: p + 5, history: p + 6, matching: p + 7, worker: p + 8 },
      metrics: p + 9,
    })),
    weaviateNodes: range(CLUSTER_SIZE.weaviate, base + 40, 10).map((p) => ({
      http: p,
      grpc: p + 1,
      gossip: p + 2,
      data: p + 3,
      raft: p + 4,
      raftRpc: p + 5,
      metrics: p + 6,
    })),
    apiMetrics: range(CLUSTER_SIZE.api, base + 70, 2).map((p) => ({ metrics: p, sdk: p + 1 })),
    workerMetrics: range(CLUSTER_SIZE.worker, base + 80, 2).map((p) => ({ metrics: p, sdk: p + 1 })),
  };
}

/** Every port of the cluster, front ends and processes alike. */
export function allClusterPorts(p: ClusterPorts): number[] {
  return [
    p.api,
    p.temporal,
    p.weaviateHttp,
    p.weaviateGrpc,
    p.temporalUi,
    p.balancerStatus,
    p.postgres,
    p.embeddings,
    p.embeddingsQuery,
    p.englishEncoder,
    ...p.apiInstances,
    p.prometheus,
    p.alertmanager,
    ...p.temporalProcesses.flatMap((t) => [
      t.frontend,
      t.frontendHttp,
      t.history,
      t.matching,
      t.worker,
      ...Object.values(t.membership),
      t.metrics,
    ]),
    ...p.weaviateNodes.flatMap((n) => Object.values(n)),
    ...[...p.apiMetrics, ...p.workerMetrics].flatMap((m) => [m.metrics, m.sdk]),
  ];
}

/** Whether something accepts TCP connections on a loopback port. */
export function tcpOpen(port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const done = (ok: boolean) => (socket.destroy(), resolve(ok));
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** PostgreSQL's user for Temporal; its password is `<dataDir>/postgres-password`. */
export const POSTGRES_USER = 'temporal';
const POSTGRES_PASSWORD_FILE = 'postgres-password';
const TEMPORAL_DATABASES = { temporal: 'postgresql/v12/temporal', temporal_visibility: 'postgresql/v12/visibility' };

const asRoot = () => process.getuid?.() === 0;
/** An ordinary user id for PostgreSQL inside its user namespace. */
const POSTGRES_NAMESPACE_UID = '1000';

/**
 * PostgreSQL refuses to run as root. As root, its commands run in a user namespace of their own
 * where root's files appear as an ordinary user's (`unshare --user --map-user`): PostgreSQL sees a
 * user that owns its data folder, and the files stay root's, reachable wherever root's are.
 */
function unprivileged(cmd: string, args: string[]): { cmd: string; args: string[] } {
  if (!asRoot()) return { cmd, args };
  const ids = [`--map-user=${POSTGRES_NAMESPACE_UID}`, `--map-group=${POSTGRES_NAMESPACE_UID}`];
  return { cmd: 'unshare', args: ['--user', ...ids, cmd, ...args] };
}

/** The data folder of PostgreSQL, initialised on first use with a password for POSTGRES_USER. */
function initPostgres(o: { bin: string; dir: string; password: string }): void {
  if (fs.existsSync(path.join(o.dir, 'PG_VERSION'))) return;
  fs.mkdirSync(o.dir, { recursive: true, mode: 0o700 });
  const pwfile = path.join(o.dir, '..', '.postgres-initdb-password');
  fs.writeFileSync(pwfile, `${o.password}\n`, { mode: 0o600 });
  try {
    const initdb = unprivileged(path.join(o.bin, 'initdb'), [
      '-D',
      o.dir,
      '-U',
      POSTGRES_USER,
      `--pwfile=${pwfile}`,
      '--auth-host=scram-sha-256',
      '--auth-local=scram-sha-256',
      '--encoding=UTF8',
      '--locale=C',
    ]);
    const out = spawnSync(initdb.cmd, initdb.args, { encoding: 'utf8' });
    if (out.status !== 0) throw new Error(`initdb failed (${out.status}): ${out.stderr || out.stdout}`);
  } finally {
    fs.rmSync(pwfile, { force: true });
  }
}

export function postgresSpec(o: { bin: string; dataDir: string; port: number; logDir: string }): ServiceSpec {
  const dir = path.join(o.dataDir, 'postgres');
  initPostgres({ bin: o.bin, dir, password: ensureSecret(o.dataDir, POSTGRES_PASSWORD_FILE) });
  const run = unprivileged(path.join(o.bin, 'postgres'), [
    '-D',
    dir,
    '-p',
    String(o.port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    `unix_socket_directories=${dir}`,
    // Two Temporal processes keep pools of connections; the default 100 is close.
    '-c',
    'max_connections=300',
  ]);
  return {
    name: 'postgres',
    ...run,
    logDir: o.logDir,
    healthy: () => tcpOpen(o.port),
    startTimeoutMs: 60_000,
    ports: [o.port],
  };
}

export const postgresPassword = (dataDir: string) => ensureSecret(dataDir, POSTGRES_PASSWORD_FILE);

/** What a command that failed printed (execFile's error carries its output). */
const commandOutput = (err: unknown) =>
  `${(err as { stdout?: string }).stdout ?? ''}${(err as { stderr?: string }).stderr ?? ''}`;

/** What the SQL tool says while PostgreSQL is starting: its port open, logins not yet accepted. */
const POSTGRES_NOT_READY = /starting up|57P03|no usable database connection|connection refused/i;

/**
 * Creates Temporal's two databases and brings their schemas to the server's version; run on every
 * start (idempotent: an existing database is kept, a current schema left as it is).
 */
export async function setupTemporalSchema(o: { sqlTool: string; port: number; password: string }): Promise<void> {
  for (const [db, schema] of Object.entries(TEMPORAL_DATABASES)) {
    const base = ['--plugin', 'postgres12', '--ep', '127.0.0.1', '-p', String(o.port), '-u', POSTGRES_USER, '--db', db];
    const run = async (args: string[], tolerate?: RegExp) => {
      // The password in the environment, not on a command line any user can list.
      const env = { ...process.env, SQL_PASSWORD: o.password };
      for (const deadline = Date.now() + 60_000; ;) {
        try {
          await execFileAsync(o.sqlTool, [...base, ...args], { env, timeout: 120_000 });
          return;
        } catch (err) {
          const output = commandOutput(err);
          if (tolerate?.test(output)) return;
          // PostgreSQL listens a moment before it accepts logins (right after initdb, or while it recovers).
          if (POSTGRES_NOT_READY.test(output) && Date.now() < deadline) {
            await new Promise((r) => setTimeout(r, 500));
            continue;
          }
          throw new Error(`temporal sql tool ${args[0]} on ${db} failed:\n${output.slice(-2000)}`);
        }
      }
    };
    await run(['create'], /already exists/);
    await run(['setup-schema', '-v', '0.0'], /already exists/);
    await run(['update-schema', '--schema-name', schema]);
  }
}

/** The dynamic config of the cluster's servers (the dev server's flag, as a file). */
function temporalDynamicConfig(dataDir: string): string {
  const file = path.join(dataDir, 'temporal-dynamic-config.yaml');
  fs.writeFileSync(
    file,
    [
      '# Written by the launcher on every start.',
      '# A dead worker\'s last poll is forgotten sooner, so "no worker" shows within seconds (api/worker-presence.ts).',
      'matching.longPollExpirationInterval:',
      '  - value: "10s"',
      'system.forceSearchAttributesCacheRefreshOnRead:',
      '  - value: true',
      '# Tasks of each queue handed out in turn between fairness keys (the tenant), not first come first served.',
      'matching.enableFairness:',
      '  - value: true',
      '',
    ].join('\n'),
  );
  return file;
}

export function temporalServerSpec(o: {
  index: number;
  bin: string;
  cli: string;
  ports: TemporalProcessPorts;
  postgresPort: number;
  password: string;
  dataDir: string;
  logDir: string;
}): ServiceSpec {
  const p = o.ports;
  return {
    name: `temporal-${o.index + 1}`,
    cmd: o.bin,
    args: ['start'],
    cwd: o.dataDir,
    env: {
      DB: 'postgres12',
      DB_PORT: String(o.postgresPort),
      POSTGRES_SEEDS: '127.0.0.1',
      POSTGRES_USER,
      POSTGRES_PWD: o.password,
      DBNAME: 'temporal',
      VISIBILITY_DBNAME: 'temporal_visibility',
      NUM_HISTORY_SHARDS: String(TEMPORAL_HISTORY_SHARDS),
      BIND_ON_IP: '127.0.0.1',
      FRONTEND_GRPC_PORT: String(p.frontend),
      FRONTEND_HTTP_PORT: String(p.frontendHttp),
      HISTORY_GRPC_PORT: String(p.history),
      MATCHING_GRPC_PORT: String(p.matching),
      WORKER_GRPC_PORT: String(p.worker),
      FRONTEND_MEMBERSHIP_PORT: String(p.membership.frontend),
      HISTORY_MEMBERSHIP_PORT: String(p.membership.history),
      MATCHING_MEMBERSHIP_PORT: String(p.membership.matching),
      WORKER_MEMBERSHIP_PORT: String(p.membership.worker),
      DYNAMIC_CONFIG_FILE_PATH: temporalDynamicConfig(o.dataDir),
      LOG_LEVEL: 'warn',
      // The embedded config template's global.metrics.prometheus.listenAddress.
      PROMETHEUS_ENDPOINT: `127.0.0.1:${p.metrics}`,
    },
    logDir: o.logDir,
    healthy: () => temporalServing(o.cli, p.frontend),
    startTimeoutMs: 120_000,
    ports: [p.frontend, p.frontendHttp, p.history, p.matching, p.worker, ...Object.values(p.membership), p.metrics],
  };
}

async function temporalServing(cli: string, port: number): Promise<boolean> {
  const health = await execFileAsync(cli, ['operator', 'cluster', 'health', '--address', `127.0.0.1:${port}`], {
    timeout: 5000,
  });
  return health.stdout.includes('SERVING');
}

/** Days a closed workflow run stays in the cluster's history, as on the dev server (24 h there). */
export const CLUSTER_RETENTION = '72h';

/**
 * The `default` namespace and the search attributes every workflow sets, created when missing
 * (on every start; the dev server takes both as flags).
 */
export async function setupTemporalNamespace(o: { cli: string; address: string }): Promise<void> {
  const cli = (...args: string[]) => execFileAsync(o.cli, [...args, '--address', o.address], { timeout: 30_000 });
  // Until the balancer sees a frontend up, and while a new namespace reaches every frontend, calls fail: try again.
  const deadline = Date.now() + 90_000;
  for (;;) {
    try {
      const exists = await cli('operator', 'namespace', 'describe', '--namespace', 'default').then(
        () => true,
        (err) => {
          if (/not found/i.test(commandOutput(err))) return false;
          throw err;
        },
      );
      if (!exists)
        await cli('operator', 'namespace', 'create', '--namespace', 'default', '--retention', CLUSTER_RETENTION);
      const listed = (await cli('operator', 'search-attribute', 'list', '--namespace', 'default')).stdout;
      const missing = SEARCH_ATTRIBUTES.map((sa) => sa.split('=')).filter(
        ([name]) => !new RegExp(`\\b${name}\\b`).test(listed),
      );
      if (missing.length === 0) return;
      await cli(
        'operator',
        'search-attribute',
        'create',
        '--namespace',
        'default',
        ...missing.flatMap(([name, type]) => ['--name', name, '--type', type]),
      );
    } catch (err) {
      if (Date.now() > deadline)
        throw new Error(`setting up Temporal's namespace failed: ${commandOutput(err) || (err as Error).message}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

/** The Web UI server, on its own config file pointing at the balancer's Temporal front end. */
export function temporalUiSpec(o: {
  bin: string;
  port: number;
  temporalAddress: string;
  dataDir: string;
  logDir: string;
}): ServiceSpec {
  const root = path.join(o.dataDir, 'temporal-ui');
  fs.mkdirSync(path.join(root, 'config'), { recursive: true });
  fs.writeFileSync(
    path.join(root, 'config', 'cluster.yaml'),
    [
      '# Written by the launcher on every start.',
      `temporalGrpcAddress: ${o.temporalAddress}`,
      'host: 127.0.0.1',
      `port: ${o.port}`,
      'enableUi: true',
      'defaultNamespace: default',
      'notifyOnNewVersion: false',
      'cors:',
      '  cookieInsecure: true',
      '',
    ].join('\n'),
  );
  return {
    name: 'temporal-ui',
    cmd: o.bin,
    args: ['--root', root, '--env', 'cluster', 'start'],
    logDir: o.logDir,
    healthy: () => httpOk(`http://127.0.0.1:${o.port}/`),
    startTimeoutMs: 60_000,
    ports: [o.port],
  };
}

/** The three Weaviate nodes of one Raft cluster, each on its own data folder. */
export function weaviateNodeSpecs(o: {
  bin: string;
  nodes: WeaviateNodePorts[];
  apiKey: string;
  dataDir: string;
  logDir: string;
}): ServiceSpec[] {
  const hostname = (i: number) => `node${i}`;
  const raftJoin = o.nodes.map((n, i) => `${hostname(i)}:${n.raft}`).join(',');
  return o.nodes.map((n, i) => ({
    ...weaviateSpec({
      bin: o.bin,
      httpPort: n.http,
      grpcPort: n.grpc,
      gossipPort: n.gossip,
      dataPort: n.data,
      raftPort: n.raft,
      raftRpcPort: n.raftRpc,
      metricsPort: n.metrics,
      apiKey: o.apiKey,
      dataDir: path.join(o.dataDir, `weaviate-${hostname(i)}`),
      logDir: o.logDir,
      name: `weaviate-${i}`,
      hostname: hostname(i),
      cluster: { join: `127.0.0.1:${o.nodes[0].gossip}`, raftJoin, expect: o.nodes.length },
    }),
    startTimeoutMs: 180_000,
  }));
}

/**
 * HAProxy's configuration: the API instances behind HTTP health checks (a request that could not
 * reach an instance is sent to the other); Weaviate's HTTP and gRPC behind its readiness; Temporal's
 * frontends behind a TCP check. A server marked down has its open connections closed, so gRPC
 * clients reconnect to a live one at once rather than waiting on a dead connection.
 */
export function haproxyConfig(ports: ClusterPorts): string {
  const servers = (prefix: string, list: number[], extra = (_i: number) => '') =>
    list.map((port, i) => `  server ${prefix}${i} 127.0.0.1:${port} check${extra(i)}`);
  return [
    '# Written by the launcher on every start.',
    'global',
    '  maxconn 4096',
    'defaults',
    '  timeout connect 2s',
    '  timeout check 2s',
    '  # Temporal long polls last up to 70 s; gRPC streams stay open.',
    '  timeout client 10m',
    '  timeout server 10m',
    '  default-server inter 1s fall 2 rise 2 on-marked-down shutdown-sessions',
    '',
    'frontend api',
    '  mode http',
    `  bind 127.0.0.1:${ports.api}`,
    '  default_backend api',
    'backend api',
    '  mode http',
    '  # The client address for the per-address limit on invalid keys (the APIs run with TRUST_PROXY=true).',
    '  option forwardfor',
    '  balance roundrobin',
    '  option httpchk GET /healthz',
    '  retry-on conn-failure',
    '  retries 2',
    '  option redispatch',
    ...servers('api', ports.apiInstances),
    '',
    'listen temporal',
    '  mode tcp',
    `  bind 127.0.0.1:${ports.temporal}`,
    '  balance roundrobin',
    ...servers(
      'temporal',
      ports.temporalProcesses.map((p) => p.frontend),
    ),
    '',
    'listen weaviate-http',
    '  mode http',
    `  bind 127.0.0.1:${ports.weaviateHttp}`,
    '  balance roundrobin',
    '  option httpchk GET /v1/.well-known/ready',
    '  retry-on conn-failure',
    '  option redispatch',
    ...servers(
      'node',
      ports.weaviateNodes.map((n) => n.http),
    ),
    '',
    'listen weaviate-grpc',
    '  mode tcp',
    `  bind 127.0.0.1:${ports.weaviateGrpc}`,
    '  balance roundrobin',
    '  option httpchk GET /v1/.well-known/ready',
    ...servers(
      'node',
      ports.weaviateNodes.map((n) => n.grpc),
      (i) => ` port ${ports.weaviateNodes[i].http}`,
    ),
    '',
    'frontend status',
    '  mode http',
    `  bind 127.0.0.1:${ports.balancerStatus}`,
    '  stats enable',
    '  stats uri /',
    '  stats refresh 5s',
    '  stats show-legends',
    '  monitor-uri /healthz',
    '',
  ].join('\n');
}

/** HAProxy's statistics from its status page's CSV: a row per front end, backend and server, by column name (`pxname`, `svname`, `status`, `stot`, …). */
export async function balancerStats(ports: ClusterPorts): Promise<Record<string, string>[]> {
  const res = await fetch(`http://127.0.0.1:${ports.balancerStatus}/;csv`, { signal: AbortSignal.timeout(2000) });
  const [header, ...lines] = (await res.text()).trim().split('\n');
  const columns = header.replace(/^# /, '').split(',');
  return lines.map((line) => Object.fromEntries(line.split(',').map((value, i) => [columns[i], value])));
}

/** Whether HAProxy has at least one server up in each of the named backends. */
export async function balancerUp(ports: ClusterPorts, backends: string[]): Promise<boolean> {
  const rows = await balancerStats(ports);
  return backends.every((name) => rows.some((r) => r.pxname === name && r.svname === 'BACKEND' && r.status === 'UP'));
}

export function haproxySpec(o: {
  bin: string;
  sharedLibDir: string;
  ports: ClusterPorts;
  dataDir: string;
  logDir: string;
}): ServiceSpec {
  const file = path.join(o.dataDir, 'haproxy.cfg');
  fs.writeFileSync(file, haproxyConfig(o.ports));
  return {
    name: 'haproxy',
    cmd: o.bin,
    args: ['-f', file, '-db'],
    env: o.sharedLibDir ? { LD_LIBRARY_PATH: o.sharedLibDir } : {},
    logDir: o.logDir,
    healthy: () => httpOk(`http://127.0.0.1:${o.ports.balancerStatus}/healthz`),
    startTimeoutMs: 30_000,
    ports: [o.ports.api, o.ports.temporal, o.ports.weaviateHttp, o.ports.weaviateGrpc, o.ports.balancerStatus],
  };
}
