/**
 * `npm run start:cluster`: the production topology on one host (scripts/stack/cluster.ts) with
 * persistent data in CLUSTER_DATA_DIR (`.data-cluster` by default): PostgreSQL, two Temporal server
 * processes, the Temporal Web UI, three Weaviate nodes (replication factor 3), the embedding
 * servers, two workers and two API instances, with HAProxy in front of the APIs, Temporal and
 * Weaviate. Every process is supervised as under `npm start` (restarted with backoff when it dies);
 * prints where everything is and, on the first start, an operator API key. Ctrl-C stops it all.
 * Prometheus and Alertmanager (scripts/stack/monitoring.ts) scrape every process, unless
 * PROMETHEUS_ENABLED=false.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadServicesConfig } from '../../domain/config';
import { ApiKeyStore } from '../../domain/weaviate/api-keys';
import { closeWeaviate, connectWeaviate } from '../../domain/weaviate/client';
import { ensureCollections } from '../../domain/weaviate/collections';
import { SCOPES } from '../../api/scopes';
import {
  CLUSTER_REPLICATION_FACTOR,
  CLUSTER_SIZE,
  balancerUp,
  DEFAULT_CLUSTER_PORT_BASE,
  clusterPorts,
  haproxySpec,
  postgresPassword,
  postgresSpec,
  setupTemporalNamespace,
  setupTemporalSchema,
  temporalServerSpec,
  temporalUiSpec,
  weaviateNodeSpecs,
} from './cluster';
import { monitoringEnabled, monitoringServices, writeProcessTargets } from './monitoring';
import { nodeSpec, workerPolling } from './processes';
import { provisionAll } from './provision';
import { provisionCluster } from './provision-cluster';
import { provisionObservability } from './provision-observability';
import { assertPortFree, httpOk } from './services';
import { modelServers, runDir, stackSupervisor, superviseVisibly } from './stack';
import { ensureWeaviateKey } from './weaviate-key';

/** Polls `check` every 500 ms until it holds, for at most a minute (a balancer marks a backend up after two good checks). */
async function waitUntil(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} did not answer within 60 s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function main(): Promise<void> {
  const dataDir = path.resolve(process.env.CLUSTER_DATA_DIR ?? '.data-cluster');
  fs.mkdirSync(dataDir, { recursive: true });
  const ports = clusterPorts(Number(process.env.CLUSTER_PORT_BASE ?? DEFAULT_CLUSTER_PORT_BASE));
  const logDir = path.join(dataDir, 'logs');
  const started = Date.now();
  const bins = await provisionAll();
  const cluster = await provisionCluster();
  const observability = monitoringEnabled() ? await provisionObservability() : undefined;
  const models = modelServers({ bins, ports, logDir });
  const supervisor = stackSupervisor(dataDir);
  const launcherPid = path.join(runDir(dataDir), 'launcher.pid');
  const workers = Array.from(
    { length: CLUSTER_SIZE.worker },
    () => undefined as ReturnType<typeof workerPolling> | undefined,
  );
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log('\n[cluster] stopping ...');
    // Our processes first: the workers finish their tasks while Temporal still runs.
    await supervisor.stop({
      first: [...ports.apiInstances.map((_, i) => `api-${i + 1}`), ...workers.map((_, i) => `worker-${i + 1}`)],
    });
    await Promise.all(workers.map((w) => w?.close()));
    await closeWeaviate();
    fs.rmSync(launcherPid, { force: true });
    process.exit(code);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stopAll(0));
  try {
    const all = [
      ports.api,
      ports.temporal,
      ports.weaviateHttp,
      ports.weaviateGrpc,
      ports.temporalUi,
      ports.balancerStatus,
      ports.postgres,
      ...(observability ? [ports.prometheus, ports.alertmanager] : []),
    ];
    for (const port of all) await assertPortFree(port, 'the cluster', 'CLUSTER_PORT_BASE');
    fs.mkdirSync(runDir(dataDir), { recursive: true });
    fs.writeFileSync(launcherPid, `${process.pid}\n`);
    const weaviateKey = ensureWeaviateKey(dataDir);
    const password = postgresPassword(dataDir);
    const temporalAddress = `127.0.0.1:${ports.temporal}`;
    console.log('[cluster] starting the balancer, PostgreSQL, Temporal, Weaviate and the embedding servers ...');
    await supervisor.start(haproxySpec({ ...cluster.haproxy, ports, dataDir, logDir }));
    const temporal = (async () => {
      await supervisor.start(postgresSpec({ bin: cluster.postgresBin, dataDir, port: ports.postgres, logDir }));
      await setupTemporalSchema({ sqlTool: cluster.temporalSqlTool, port: ports.postgres, password });
      // One after the other: the first creates the cluster's metadata, the second joins it.
      for (const [index, processPorts] of ports.temporalProcesses.entries()) {
        await supervisor.start(
          temporalServerSpec({
            index,
            bin: cluster.temporalServer,
            cli: bins.temporalBin,
            ports: processPorts,
            postgresPort: ports.postgres,
            password,
            dataDir,
            logDir,
          }),
        );
      }
      await waitUntil('Temporal through the balancer', () => balancerUp(ports, ['temporal']));
      await setupTemporalNamespace({ cli: bins.temporalBin, address: temporalAddress });
      await supervisor.start(
        temporalUiSpec({ bin: cluster.temporalUi, port: ports.temporalUi, temporalAddress, dataDir, logDir }),
      );
    })();
    const weaviateNodes = weaviateNodeSpecs({
      bin: bins.weaviateBin,
      nodes: ports.weaviateNodes,
      apiKey: weaviateKey,
      dataDir,
      logDir,
    });
    const monitoring =
      observability &&
      monitoringServices({
        bins: observability,
        dataDir,
        logDir,
        ports,
        temporal: ports.temporalProcesses.map((p, i) => ({
          targets: [`127.0.0.1:${p.metrics}`],
          labels: { process: `temporal-${i + 1}` },
        })),
        weaviate: ports.weaviateNodes.map((n, i) => ({
          targets: [`127.0.0.1:${n.metrics}`],
          labels: { process: `weaviate-${i}` },
        })),
      });
    await Promise.all([temporal, ...[...weaviateNodes, ...models.specs].map((spec) => supervisor.start(spec))]);
    // Once the others serve, so that a process still starting is not an alert.
    await Promise.all((monitoring?.specs ?? []).map((spec) => supervisor.start(spec)));
    if (monitoring) await superviseVisibly({ supervisor, dataDir });
    const env: Record<string, string> = {
      ...models.env,
      TEMPORAL_ADDRESS: temporalAddress,
      WEAVIATE_HOST: '127.0.0.1',
      WEAVIATE_HTTP_PORT: String(ports.weaviateHttp),
      WEAVIATE_GRPC_PORT: String(ports.weaviateGrpc),
      WEAVIATE_API_KEY: weaviateKey,
      WEAVIATE_REPLICATION_FACTOR: String(CLUSTER_REPLICATION_FACTOR),
      TEMPORAL_UI_URL: `http://127.0.0.1:${ports.temporalUi}`,
      // Client addresses arrive in X-Forwarded-For from the balancer.
      TRUST_PROXY: 'true',
      ...monitoring?.env,
    };
    Object.assign(process.env, env);
    const config = loadServicesConfig();
    await waitUntil('Weaviate through the balancer', () => balancerUp(ports, ['weaviate-http', 'weaviate-grpc']));
    await ensureCollections(await connectWeaviate(config.weaviate));
    await Promise.all([
      ...workers.map((_, i) => {
        const polling = (workers[i] = workerPolling({
          address: temporalAddress,
          namespace: config.temporal.namespace,
          taskQueue: config.temporal.taskQueue,
        }));
        return supervisor.start(
          nodeSpec({
            name: `worker-${i + 1}`,
            entry: 'worker/main.ts',
            env: {
              ...env,
              WORKER_METRICS_PORT: String(ports.workerMetrics[i].metrics),
              WORKER_SDK_METRICS_PORT: String(ports.workerMetrics[i].sdk),
            },
            logDir,
            healthy: polling.healthy,
            startTimeoutMs: 180_000,
          }),
        );
      }),
      ...ports.apiInstances.map((port, i) =>
        supervisor.start(
          nodeSpec({
            name: `api-${i + 1}`,
            entry: 'api/server.ts',
            env: {
              ...env,
              API_PORT: String(port),
              API_METRICS_PORT: String(ports.apiMetrics[i].metrics),
              API_SDK_METRICS_PORT: String(ports.apiMetrics[i].sdk),
            },
            logDir,
            healthy: () => httpOk(`http://127.0.0.1:${port}/healthz`),
            ports: [port],
          }),
        ),
      ),
    ]);
    await waitUntil('the APIs through the balancer', () => balancerUp(ports, ['api']));
    // Scraped once they serve: a process still starting is not an alert (ApiDown, NoWorkerPolling).
    if (monitoring)
      writeProcessTargets({
        dataDir,
        processes: [
          ...ports.apiMetrics.map((m, i) => ({ name: `api-${i + 1}`, ports: { api: m.metrics, 'api-sdk': m.sdk } })),
          ...ports.workerMetrics.map((m, i) => ({
            name: `worker-${i + 1}`,
            ports: { worker: m.metrics, 'worker-sdk': m.sdk },
          })),
        ],
      });
    const store = new ApiKeyStore(() => connectWeaviate(config.weaviate));
    const line = '-'.repeat(72);
    console.log(line);
    console.log(
      `API:          http://127.0.0.1:${ports.api}  (HAProxy over ${ports.apiInstances.length} instances: ${ports.apiInstances.join(', ')})`,
    );
    console.log(
      `Temporal:     ${temporalAddress}  (HAProxy over ${ports.temporalProcesses.length} server processes on PostgreSQL :${ports.postgres})`,
    );
    console.log(`Temporal UI:  http://127.0.0.1:${ports.temporalUi}`);
    console.log(
      `Weaviate:     http://127.0.0.1:${ports.weaviateHttp}, gRPC :${ports.weaviateGrpc}  (HAProxy over ${ports.weaviateNodes.length} nodes, replication factor ${CLUSTER_REPLICATION_FACTOR})`,
    );
    console.log(`Balancer:     http://127.0.0.1:${ports.balancerStatus}/  (health of every backend)`);
    if (monitoring) {
      console.log(`Prometheus:   ${monitoring.env.PROMETHEUS_URL}  (alerts: /api/v1/alerts, targets: /api/v1/targets)`);
      console.log(`Alertmanager: ${monitoring.env.ALERTMANAGER_URL}  (alerts: /api/v2/alerts)`);
    }
    console.log(`Logs:         ${logDir}  (restarts: supervisor.log)`);
    console.log(`Pid files:    ${runDir(dataDir)}`);
    if ((await store.list()).length === 0) {
      const { key } = await store.create({ tenant: 'default', scopes: [...SCOPES], name: 'operator (first start)' });
      console.log(`Operator API key for tenant "default" (shown once, store it now):\n  ${key}`);
    }
    console.log(`Started in ${Math.round((Date.now() - started) / 1000)} s.`);
    console.log(line);
    console.log('Press Ctrl-C to stop.');
  } catch (err) {
    console.error(`[cluster] ${(err as Error).message}`);
    await stopAll(1);
  }
}

main().catch((err) => {
  console.error(`[cluster] ${err.message}`);
  process.exit(1);
});
