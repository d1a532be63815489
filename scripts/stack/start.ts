/**
 * `npm start`: provisions and starts the whole stack with persistent data, then the worker and
 * the API, every process under one supervisor that starts it again when it dies (with backoff;
 * scripts/stack/supervisor.ts); prints where everything is and, on first start, an operator API
 * key. Ctrl-C stops all, without restarts.
 *
 * With LOCAL_CHAT_MODEL (`gemma3-270m`, the pinned model, or the path of a .gguf file) a local chat
 * model server runs too, and the API and the worker use it: CHAT_BASE_URL, CHAT_MODEL,
 * CHAT_CONTEXT_TOKENS and CHAT_BOUNDED_STRINGS point at it unless they are set.
 *
 * With JAEGER_ENABLED=true Jaeger runs too (scripts/stack/provision-jaeger.ts), and the API and the
 * worker send it their traces: OTEL_EXPORTER_OTLP_ENDPOINT points at it unless an endpoint is set.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadServicesConfig } from '../../domain/config';
import { ApiKeyStore } from '../../domain/weaviate/api-keys';
import { closeWeaviate, connectWeaviate } from '../../domain/weaviate/client';
import { ensureCollections } from '../../domain/weaviate/collections';
import { SCOPES } from '../../api/scopes';
import { loadApiConfig } from '../../api/config';
import { loadWorkerConfig } from '../../worker/config';
import { writeProcessTargets } from './monitoring';
import { nodeSpec, workerPolling } from './processes';
import { configuredJaegerPorts, ensureJaeger, startJaeger } from './provision-jaeger';
import { assertPortFree, httpOk } from './services';
import { configuredPorts, localChatModel, runDir, stackSupervisor, startStack } from './stack';

/** The launcher's own pid, next to those of the processes it supervises. */
const LAUNCHER_PID = 'launcher.pid';

async function main(): Promise<void> {
  const dataDir = path.resolve(process.env.DATA_DIR ?? '.data');
  fs.mkdirSync(dataDir, { recursive: true });
  const ports = configuredPorts();
  const chatModel = localChatModel();
  const apiPort = Number(process.env.API_PORT ?? 3000);
  await assertPortFree(apiPort, 'the API', 'API_PORT');
  const launcherPid = path.join(runDir(dataDir), LAUNCHER_PID);
  const supervisor = stackSupervisor(dataDir);
  let worker: ReturnType<typeof workerPolling> | undefined;
  fs.writeFileSync(launcherPid, `${process.pid}\n`);
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log('\n[start] stopping ...');
    // The API and the worker first: the worker finishes its tasks while Temporal still runs.
    await supervisor.stop({ first: ['api', 'worker'] });
    await worker?.close();
    await closeWeaviate();
    fs.rmSync(launcherPid, { force: true });
    process.exit(code);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stopAll(0));
  // JAEGER_ENABLED=true: Jaeger receives the API's and the worker's traces; its build (once) goes on meanwhile.
  const jaegerBin = process.env.JAEGER_ENABLED === 'true' ? ensureJaeger() : undefined;
  jaegerBin?.catch(() => undefined);
  try {
    const stack = await startStack({
      dataDir,
      ports,
      headless: process.env.TEMPORAL_HEADLESS === 'true',
      supervisor,
      chatModel,
    });
    const env: Record<string, string> = { ...stack.env, API_PORT: String(apiPort) };
    const jaeger =
      jaegerBin && (await startJaeger({ bin: await jaegerBin, ports: configuredJaegerPorts(), dataDir, supervisor }));
    // Tracing on for the API and the worker, unless an OTLP endpoint of the operator's own is set.
    if (jaeger && !process.env.OTEL_EXPORTER_OTLP_ENDPOINT && !process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
      env.OTEL_EXPORTER_OTLP_ENDPOINT = jaeger.JAEGER_OTLP_ENDPOINT;
    if (stack.chatModel) {
      const chat = {
        CHAT_BASE_URL: stack.chatModel.url,
        CHAT_MODEL: stack.chatModel.model,
        CHAT_CONTEXT_TOKENS: String(stack.chatModel.contextTokens),
        // llama.cpp's grammar honours maxLength (domain/models/bounded-strings.ts); another server may not.
        ...(process.env.CHAT_BASE_URL ? {} : { CHAT_BOUNDED_STRINGS: 'true' }),
      };
      for (const [name, value] of Object.entries(chat)) if (!process.env[name]) env[name] = value;
    }
    Object.assign(process.env, env);
    const config = loadServicesConfig();
    const [apiMetrics, workerMetrics] = [loadApiConfig().metrics, loadWorkerConfig().metrics];
    const weaviate = await connectWeaviate(config.weaviate);
    await ensureCollections(weaviate);
    const logDir = path.join(dataDir, 'logs');
    worker = workerPolling({
      address: config.temporal.address,
      namespace: config.temporal.namespace,
      taskQueue: config.temporal.taskQueue,
    });
    await Promise.all([
      // Up once it polls (the workflow bundle it runs was built at provisioning: worker/workflow-bundle.ts).
      supervisor.start(
        nodeSpec({
          name: 'worker',
          entry: 'worker/main.ts',
          env,
          logDir,
          healthy: worker.healthy,
          startTimeoutMs: 180_000,
        }),
      ),
      supervisor.start(
        nodeSpec({
          name: 'api',
          entry: 'api/server.ts',
          env,
          logDir,
          healthy: () => httpOk(`http://127.0.0.1:${apiPort}/healthz`),
          ports: [apiPort],
        }),
      ),
    ]);
    // Prometheus scrapes the API's and the worker's metrics endpoints (a port of 0 is off) once they
    // serve: a process still starting is not an alert (ApiDown, NoWorkerPolling).
    if (stack.env.PROMETHEUS_URL)
      writeProcessTargets({
        dataDir,
        processes: [
          { name: 'api', ports: { api: apiMetrics.port, 'api-sdk': apiMetrics.sdkPort } },
          { name: 'worker', ports: { worker: workerMetrics.port, 'worker-sdk': workerMetrics.sdkPort } },
        ],
      });
    const store = new ApiKeyStore(() => connectWeaviate(config.weaviate));
    const line = '-'.repeat(72);
    console.log(line);
    console.log(`API:          http://127.0.0.1:${apiPort}  (readiness: /readyz, OpenAPI: /openapi.json)`);
    if (process.env.TEMPORAL_HEADLESS !== 'true') console.log(`Temporal UI:  http://127.0.0.1:${ports.temporalUi}`);
    if (stack.env.PROMETHEUS_URL) {
      console.log(`Prometheus:   ${stack.env.PROMETHEUS_URL}  (alerts: /api/v1/alerts, targets: /api/v1/targets)`);
      console.log(`Alertmanager: ${stack.env.ALERTMANAGER_URL}  (alerts: /api/v2/alerts)`);
      const metrics = [
        `API :${apiMetrics.port}`,
        `API's Temporal SDK :${apiMetrics.sdkPort}`,
        `worker :${workerMetrics.port}`,
        `worker's Temporal SDK :${workerMetrics.sdkPort}`,
        `Temporal :${ports.temporalMetrics}`,
        ...(ports.weaviateMetrics ? [`Weaviate :${ports.weaviateMetrics}`] : []),
      ].filter((m) => !m.endsWith(':0'));
      console.log(`Metrics:      /metrics of ${metrics.join(', ')}`);
    }
    if (stack.chatModel) {
      const { url, model, contextTokens } = stack.chatModel;
      console.log(`Chat model:   ${url}  (${model}, ${contextTokens} tokens of context)`);
      if (process.env.CHAT_BASE_URL && process.env.CHAT_BASE_URL !== url)
        console.log(`              (not used: CHAT_BASE_URL is set to ${process.env.CHAT_BASE_URL})`);
    }
    if (jaeger) console.log(`Jaeger:       ${jaeger.JAEGER_QUERY_URL}  (a request's trace: /api/traces/<X-Trace-Id>)`);
    console.log(`Logs:         ${logDir}  (restarts: supervisor.log)`);
    console.log(`Pid files:    ${runDir(dataDir)}`);
    if ((await store.list()).length === 0) {
      const { key } = await store.create({ tenant: 'default', scopes: [...SCOPES], name: 'operator (first start)' });
      console.log(`Operator API key for tenant "default" (shown once, store it now):\n  ${key}`);
    }
    console.log(line);
    console.log('Press Ctrl-C to stop.');
  } catch (err) {
    console.error(`[start] ${(err as Error).message}`);
    await stopAll(1);
  }
}

main().catch((err) => {
  console.error(`[start] ${err.message}`);
  process.exit(1);
});
