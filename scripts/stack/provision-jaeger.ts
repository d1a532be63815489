/**
 * Jaeger v2 (the all-in-one on the OpenTelemetry Collector), which receives the API's and the
 * worker's spans over OTLP/HTTP and answers its query API (`/api/traces/<id>`): built from its Go
 * module into the cache folder once per version, and started as a supervised service bound to
 * 127.0.0.1, with in-memory storage. The test stack always runs it (test/integration/tracing.test.ts
 * queries it); `npm start` runs it with JAEGER_ENABLED=true (docs/operations.md, "Tracing").
 *
 * `go install` refuses Jaeger's module (its go.mod has replace directives), so it is built inside a
 * module of its own, `<cache>/bin/jaeger-<version>/module`: `go mod init`, `go get -tool
 * github.com/jaegertracing/jaeger/cmd/jaeger@<version>` (which takes Jaeger's dependency versions),
 * then `go build`. About 4 minutes with an empty Go cache on 2 idle cores (13 on busy ones); a
 * binary of that version (`go version -m`) is never built again. JAEGER_BIN names a binary instead.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cacheDir, goModuleVersion, log, runWithProgress, which } from './provision';
import { assertPortFree, httpOk, type ServiceSpec } from './services';
import type { Supervisor } from './supervisor';

/** Jaeger's Go module version (v1.76.0 is Jaeger 2.x: the module's tags kept their v1 major). */
export const JAEGER_VERSION = 'v1.76.0';
const JAEGER_PACKAGE = 'github.com/jaegertracing/jaeger/cmd/jaeger';

/** Jaeger's binary: JAEGER_BIN, a `jaeger` of the pinned version on the PATH, or the cache's, built when missing. */
export async function ensureJaeger(): Promise<string> {
  const named = process.env.JAEGER_BIN;
  if (named) {
    if (!fs.existsSync(named)) throw new Error(`JAEGER_BIN=${named} does not exist`);
    if (goModuleVersion(named) !== JAEGER_VERSION)
      log(`warning: ${named} is not Jaeger ${JAEGER_VERSION}; using it as JAEGER_BIN says`);
    return named;
  }
  const onPath = which('jaeger');
  if (onPath && goModuleVersion(onPath) === JAEGER_VERSION) return onPath;
  const dir = path.join(cacheDir(), 'bin', `jaeger-${JAEGER_VERSION}`);
  const bin = path.join(dir, 'jaeger');
  if (fs.existsSync(bin) && goModuleVersion(bin) === JAEGER_VERSION) return bin;
  if (!which('go'))
    throw new Error(`Jaeger ${JAEGER_VERSION} is not built and no Go toolchain is on PATH; set JAEGER_BIN`);

  const module = path.join(dir, 'module');
  fs.rmSync(module, { recursive: true, force: true });
  fs.mkdirSync(module, { recursive: true });
  const init = spawnSync('go', ['mod', 'init', 'jaeger-build'], { cwd: module, encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`go mod init failed: ${init.stderr}`);
  const env = { ...process.env, CGO_ENABLED: '0' };
  await runWithProgress(
    `fetching Jaeger ${JAEGER_VERSION}'s modules`,
    'go',
    ['get', '-tool', `${JAEGER_PACKAGE}@${JAEGER_VERSION}`],
    env,
    module,
  );
  // Built under a temporary name: a binary at `bin` is always a whole one.
  const partial = `${bin}.${process.pid}.tmp`;
  await runWithProgress(
    `building Jaeger ${JAEGER_VERSION}`,
    'go',
    ['build', '-o', partial, JAEGER_PACKAGE],
    env,
    module,
  );
  fs.renameSync(partial, bin);
  if (goModuleVersion(bin) !== JAEGER_VERSION)
    throw new Error(`the build of Jaeger ${JAEGER_VERSION} produced ${bin} of another module version`);
  return bin;
}

export interface JaegerPorts {
  /** The OTLP/HTTP receiver (`/v1/traces`). */
  otlpHttp: number;
  /** The query API's HTTP port (`/api/services`, `/api/traces/<id>`). */
  query: number;
  /** The query API's gRPC port (Jaeger always opens it). */
  queryGrpc: number;
}

const int = (v: string | undefined, fallback: number) => (v ? Number.parseInt(v, 10) : fallback);

/** `npm start`'s Jaeger ports, Jaeger's own defaults unless JAEGER_OTLP_PORT, JAEGER_QUERY_PORT or JAEGER_QUERY_GRPC_PORT say otherwise. */
export function configuredJaegerPorts(env = process.env): JaegerPorts {
  return {
    otlpHttp: int(env.JAEGER_OTLP_PORT, 4318),
    query: int(env.JAEGER_QUERY_PORT, 16686),
    queryGrpc: int(env.JAEGER_QUERY_GRPC_PORT, 16685),
  };
}

const PORT_SETTINGS: Record<keyof JaegerPorts, string> = {
  otlpHttp: 'JAEGER_OTLP_PORT',
  query: 'JAEGER_QUERY_PORT',
  queryGrpc: 'JAEGER_QUERY_GRPC_PORT',
};

/**
 * Jaeger's configuration (the OpenTelemetry Collector's format): only an OTLP/HTTP receiver, the
 * in-memory store and the query API, each on 127.0.0.1, no telemetry port of its own, and no
 * traces of its own queries.
 */
export function jaegerConfig(ports: JaegerPorts): string {
  return `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 100000
  jaeger_query:
    enable_tracing: false
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:${ports.query}
    grpc:
      endpoint: 127.0.0.1:${ports.queryGrpc}
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${ports.otlpHttp}
processors:
  batch:
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`;
}

/** Jaeger as a service: its configuration written to `<dataDir>/jaeger.yaml`, healthy once its query API answers. */
export function jaegerSpec(o: { bin: string; ports: JaegerPorts; dataDir: string; logDir: string }): ServiceSpec {
  const config = path.join(o.dataDir, 'jaeger.yaml');
  fs.writeFileSync(config, jaegerConfig(o.ports));
  return {
    name: 'jaeger',
    cmd: o.bin,
    args: ['--config', config],
    logDir: o.logDir,
    healthy: () => httpOk(`http://127.0.0.1:${o.ports.query}/api/services`),
    startTimeoutMs: 60_000,
    ports: [o.ports.otlpHttp, o.ports.query, o.ports.queryGrpc],
  };
}

/**
 * Starts Jaeger under `supervisor` (provisioned already: `bin`) and returns the settings naming it:
 * JAEGER_QUERY_URL (its query API) and JAEGER_OTLP_ENDPOINT (the base URL of its OTLP receiver, for
 * OTEL_EXPORTER_OTLP_ENDPOINT). Setting that turns tracing on is left to the caller.
 */
export async function startJaeger(o: {
  bin: string;
  ports: JaegerPorts;
  dataDir: string;
  supervisor: Supervisor;
}): Promise<{ JAEGER_QUERY_URL: string; JAEGER_OTLP_ENDPOINT: string }> {
  for (const [key, setting] of Object.entries(PORT_SETTINGS) as [keyof JaegerPorts, string][])
    await assertPortFree(o.ports[key], `Jaeger (${key})`, setting);
  const logDir = path.join(o.dataDir, 'logs');
  await o.supervisor.start(jaegerSpec({ bin: o.bin, ports: o.ports, dataDir: o.dataDir, logDir }));
  return {
    JAEGER_QUERY_URL: `http://127.0.0.1:${o.ports.query}`,
    JAEGER_OTLP_ENDPOINT: `http://127.0.0.1:${o.ports.otlpHttp}`,
  };
}
