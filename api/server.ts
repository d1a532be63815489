/**
 * The API process: `node -r ts-node/register api/server.ts`. Reads the environment once,
 * connects to Temporal, listens, and closes cleanly on SIGINT/SIGTERM.
 */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime, type WorkerOptions } from '@temporalio/worker';
import type { Server } from 'node:http';
import { createCpuPool } from '../domain/cpu/pool';
import { UseCaseStore, useCasesFolder } from '../domain/evaluation/use-cases';
import { meteredChatGateway } from '../domain/models/token-meter';
import { createEmbedder, createEnglishEncoder, withSharedQueries } from '../domain/models/embeddings';
import { englishEncoderFor, localModel } from '../domain/sentiment/local-engine';
import { ApiKeyStore } from '../domain/weaviate/api-keys';
import { closeWeaviate, connectWeaviate } from '../domain/weaviate/client';
import { markProcess } from '../domain/observability/metrics';
import { sdkMetricsTelemetry, startMetricsServer } from '../domain/observability/metrics-server';
import { SERVICE_NAMES, startTracing, stopTracing } from '../domain/observability/tracing';
import { ensureCollections } from '../domain/weaviate/collections';
import { WeaviateRateCounts } from '../domain/weaviate/rate-counts';
import { temporalLogger } from '../worker/logger';
import { tracingClientInterceptors } from '../worker/tracing';
import { AnsweredAsks } from './ask-runtime';
import { startAskWorker } from '../worker/ask-worker';
import { createApp } from './app';
import { listen } from './http-server';
import { type ApiConfig, loadApiConfig } from './config';
import { logger } from './logger';
import { cachedVerifier, failFastVerifier } from './middlewares/auth';
import { DependencyHealth } from './dependency-health';
import { ensureRetentionSchedule } from './eval-retention';
import { SharedWindowCounter } from './rate-limiter';
import { ReadLog } from './read-log';
import { ReadRunner } from './read-path';
import { createReadiness, dependencyProbes } from './readiness';
import { apiDataConverter } from './temporal-payloads';
import { watchTaskQueues } from './task-queue-watch';
import { WorkflowRunner } from './workflow-runner';

export interface ServerOptions {
  /** A prebuilt workflow bundle holding askWorkflow, for the API's ask worker (the tests build one). */
  workflowBundle?: WorkerOptions['workflowBundle'];
}

/** The API started from `env` (tests and in-process stacks): its configuration parsed, then startApi. */
export async function startServer(env = process.env, o: ServerOptions = {}): Promise<RunningApi> {
  return startApi({ ...o, config: loadApiConfig(env) });
}

export interface RunningApi {
  server: Server;
  close(): Promise<void>;
}

/** The API with its configuration parsed already (api/config.ts): nothing here reads the environment. */
export async function startApi(o: ServerOptions & { config: ApiConfig }): Promise<RunningApi> {
  const settings = o.config;
  const config = settings.services;
  logger.level = settings.logLevel;
  const connection = await Connection.connect({ address: config.temporal.address });
  // With tracing on, the workflows a request starts continue its trace (worker/tracing.ts).
  const interceptors = tracingClientInterceptors();
  const temporal = new Client({
    connection,
    namespace: config.temporal.namespace,
    dataConverter: apiDataConverter,
    interceptors,
  });
  // The ask worker's connection, shared with the client that starts asks eagerly (eager starts need that).
  const askConnection = await NativeConnection.connect({ address: config.temporal.address });
  const weaviate = () => connectWeaviate(config.weaviate);
  // The daily purge of batch-evaluation results past their retention (workflows/eval-batch.ts).
  await ensureRetentionSchedule({ client: temporal, taskQueue: config.temporal.taskQueue }).catch((err) =>
    logger.error(
      { err },
      'could not create the evaluation retention schedule; results will not be purged until it exists',
    ),
  );
  // The key store's collections must exist even when the API starts before any worker.
  await ensureCollections(await weaviate());
  // Per-key and per-address counts are shared with every instance using the same Weaviate.
  const rateCounter = new SharedWindowCounter({
    windowMs: 60_000,
    store: new WeaviateRateCounts(weaviate),
    syncMs: settings.rateLimit.syncMs,
    maxUnsynced: settings.rateLimit.maxUnsynced,
    logger,
  });
  // Searches run here (read-path.ts): this process embeds queries and queries Weaviate itself.
  const readLog = new ReadLog({
    client: temporal,
    taskQueue: config.temporal.taskQueue,
    flushMs: settings.readLogFlushMs,
    logger,
  });
  const english = createEnglishEncoder(config);
  // An ask's question is embedded as its execution starts (withSharedQueries); its retrieval step here finds it.
  const embedder = withSharedQueries(createEmbedder(config.embeddings), { keepMs: 30_000, maxEntries: 1000 });
  const reads = new ReadRunner({ weaviate, embedder, english, log: readLog });
  const { chat, meter: tokens } = meteredChatGateway({
    config: config.chat,
    weaviate,
    syncMs: settings.tokenSyncMs,
    log: (level, message, meta) => logger[level](meta, message),
  });
  // Asks run here, in this process's ask worker, with the same clients as the reads (worker/ask-worker.ts, api/ask-runtime).
  const answered = new AnsweredAsks();
  const eagerAsks = settings.eagerAsks;
  const askWorker = await startAskWorker({
    connection: askConnection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    deps: { weaviate, embedder, english, chat },
    workflowBundle: o.workflowBundle,
    maxActivities: settings.maxModelActivities,
    onEnded: (workflowId, outcome) => answered.deliver(workflowId, outcome),
  });
  const sentimentModel = chat.engine === 'local' ? localModel() : undefined;
  if (sentimentModel?.english && !englishEncoderFor(english, sentimentModel)) {
    logger.warn(
      { encoder: sentimentModel.english.encoder },
      'the sentiment model reads English messages with an English encoder that is not configured (TAG_EMBEDDINGS_URL): they are scored with E5 and the lexicon alone',
    );
  }
  // Circuit breakers: each dependency probed every 500 ms, so requests fail fast while one is down.
  const temporalProbe = Connection.lazy({ address: config.temporal.address, interceptors: [] });
  const probes = dependencyProbes({ temporalProbe, weaviate, config });
  const health = new DependencyHealth({ probes, logger, failuresToOpen: { temporal: 3, weaviate: 3 } }).start();
  // The reads' work on tenant text (summary, sentiment, tag) runs on these threads, off the event loop.
  const cpu = createCpuPool(settings.cpu);
  const useCases = new UseCaseStore(useCasesFolder(settings.useCasesDir));
  for (const { file, error } of useCases.checkAll()) if (error) logger.error({ file, error }, 'invalid use-case file');
  const app = createApp({
    runner: new WorkflowRunner(
      temporal,
      config.temporal.taskQueue,
      eagerAsks
        ? new Client({
            connection: askConnection,
            namespace: config.temporal.namespace,
            dataConverter: apiDataConverter,
            interceptors,
          })
        : undefined,
      settings.workerPresenceWindowMs,
    ),
    answered,
    // Only a run started eagerly is sure to run here, where the prefetched embedding is.
    prefetchQuery: eagerAsks ? (q) => embedder.prefetch(q) : undefined,
    chat,
    chatTimeoutMs: config.chat?.timeoutMs ?? 30_000,
    chatFallback: config.chat?.fallback,
    tokens,
    useCases,
    reads,
    verifier: cachedVerifier(failFastVerifier(new ApiKeyStore(weaviate), health), settings.keyCacheTtlMs),
    readiness: createReadiness({ probes, config, chat }),
    health,
    logger,
    limits: settings.limits,
    rateCounter,
    trustProxy: settings.trustProxy,
    tagTraining: settings.tagTraining,
    cpu,
  });
  const server = await listen(app, {
    port: settings.port,
    host: settings.host,
    receiveTimeoutMs: settings.receiveTimeoutMs,
  });
  logger.info({ port: settings.port }, 'API listening');
  const { metrics } = settings;
  markProcess({ process: 'api', tenantLabels: metrics.tenantLabels });
  const metricsServer = metrics.port ? await startMetricsServer({ host: metrics.host, port: metrics.port }) : undefined;
  const queues = watchTaskQueues({
    client: temporal,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    windowMs: settings.workerPresenceWindowMs,
    logger,
  });
  return {
    server,
    async close() {
      await metricsServer?.close();
      await queues.stop();
      rateCounter.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await tokens.stop();
      await readLog.stop();
      await askWorker.stop();
      await cpu.close();
      await health.stop();
      await connection.close();
      await askConnection.close();
      await temporalProbe.close();
      await closeWeaviate();
    },
  };
}

/** The API process: its configuration is read once, here; a bad setting stops it before anything starts. */
function main(): void {
  const failed = (err: unknown) => {
    logger.error({ err }, 'API failed to start');
    process.exit(1);
  };
  let config: ApiConfig;
  try {
    config = loadApiConfig(process.env);
  } catch (err) {
    return failed(err);
  }
  // The ask worker's runtime logs through the API's log (worker/ask-worker.ts, api/ask-runtime).
  Runtime.install({
    logger: temporalLogger(config.workerLogLevel, logger),
    telemetryOptions: sdkMetricsTelemetry({ host: config.metrics.host, port: config.metrics.sdkPort }),
  });
  // Tracing first, before any client exists: off unless an OTLP endpoint is set (docs/operations.md, "Tracing").
  startTracing({ service: SERVICE_NAMES.api })
    .then(() => startApi({ config }))
    .then(({ close }) => {
      const stop = () =>
        void close()
          .then(stopTracing)
          .then(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    }, failed);
}

if (require.main === module) main();
