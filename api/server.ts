/**
 * The API process: `node -r ts-node/register api/server.ts`. Reads the environment once,
 * connects to Temporal, listens, and closes cleanly on SIGINT/SIGTERM.
 */
import { Client, Connection } from '@temporalio/client';
import { type LogLevel, NativeConnection, Runtime, type WorkerOptions } from '@temporalio/worker';
import type { Server } from 'node:http';
import path from 'node:path';
import { loadServicesConfig, positiveEnv } from '../domain/config';
import { createCpuPool } from '../domain/cpu/pool';
import { DEFAULT_USE_CASES_DIR, UseCaseStore } from '../domain/evaluation/use-cases';
import { meteredChatGateway } from '../domain/models/token-meter';
import { createEmbedder, createEnglishEncoder, withSharedQueries } from '../domain/models/embeddings';
import { englishEncoderFor, localModel } from '../domain/sentiment/local-engine';
import { ApiKeyStore } from '../domain/weaviate/api-keys';
import { closeWeaviate, connectWeaviate } from '../domain/weaviate/client';
import { ensureCollections } from '../domain/weaviate/collections';
import { WeaviateRateCounts } from '../domain/weaviate/rate-counts';
import { startAskWorker } from '../worker/ask-worker';
import { temporalLogger } from '../worker/logger';
import { AnsweredAsks } from './answered-asks';
import { createApp } from './app';
import { listen } from './http-server';
import { loadApiCpu, loadApiLimits, loadTagTrainerTiming, rateLimitMaxUnsynced, receiveTimeoutMs } from './config';
import { logger } from './logger';
import { cachedVerifier, failFastVerifier } from './middlewares/auth';
import { DependencyHealth } from './dependency-health';
import { ensureRetentionSchedule } from './eval-batches';
import { DEFAULT_SYNC_MS, SharedWindowCounter } from './rate-limiter';
import { ReadLog } from './read-log';
import { ReadRunner } from './read-path';
import { createReadiness, dependencyProbes } from './readiness';
import { WorkflowRunner } from './workflow-runner';

export interface ServerOptions {
  /** A prebuilt workflow bundle holding askWorkflow, for the API's ask worker (the tests build one). */
  workflowBundle?: WorkerOptions['workflowBundle'];
}

export async function startServer(
  env = process.env,
  o: ServerOptions = {},
): Promise<{ server: Server; close(): Promise<void> }> {
  const config = loadServicesConfig(env);
  const port = Number(env.API_PORT ?? 3000);
  const cpuOptions = loadApiCpu(env);
  if (env.LOG_LEVEL) logger.level = env.LOG_LEVEL;
  const connection = await Connection.connect({ address: config.temporal.address });
  const temporal = new Client({ connection, namespace: config.temporal.namespace });
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
    syncMs: positiveEnv(env, 'RATE_LIMIT_SYNC_MS', DEFAULT_SYNC_MS),
    maxUnsynced: rateLimitMaxUnsynced(env),
    logger,
  });
  // Searches run here (read-path.ts): this process embeds queries and queries Weaviate itself.
  const readLog = new ReadLog({
    client: temporal,
    taskQueue: config.temporal.taskQueue,
    flushMs: positiveEnv(env, 'READ_LOG_FLUSH_MS', 10_000),
    logger,
  });
  const english = createEnglishEncoder(config);
  // An ask's question is embedded as its execution starts (withSharedQueries); its retrieval step here finds it.
  const embedder = withSharedQueries(createEmbedder(config.embeddings), { keepMs: 30_000, maxEntries: 1000 });
  const reads = new ReadRunner({ weaviate, embedder, english, log: readLog });
  const { chat, meter: tokens } = meteredChatGateway({
    config: config.chat,
    weaviate,
    syncMs: positiveEnv(env, 'TOKEN_SYNC_MS', 1000),
    log: (level, message, meta) => logger[level](meta, message),
  });
  // Asks run here, in this process's ask worker, with the same clients as the reads (worker/ask-worker.ts).
  const answered = new AnsweredAsks();
  const eagerAsks = env.ASK_EAGER_START !== 'false';
  const askWorker = await startAskWorker({
    connection: askConnection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    deps: { weaviate, embedder, english, chat },
    workflowBundle: o.workflowBundle,
    maxActivities: positiveEnv(env, 'API_MAX_MODEL_ACTIVITIES', 4),
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
  const cpu = createCpuPool(cpuOptions);
  const useCases = new UseCaseStore(env.USE_CASES_DIR ? path.resolve(env.USE_CASES_DIR) : DEFAULT_USE_CASES_DIR);
  for (const { file, error } of useCases.checkAll()) if (error) logger.error({ file, error }, 'invalid use-case file');
  const app = createApp({
    runner: new WorkflowRunner(
      temporal,
      config.temporal.taskQueue,
      eagerAsks ? new Client({ connection: askConnection, namespace: config.temporal.namespace }) : undefined,
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
    verifier: cachedVerifier(
      failFastVerifier(new ApiKeyStore(weaviate), health),
      Number(env.KEY_CACHE_TTL_MS ?? 10_000),
    ),
    readiness: createReadiness({ probes, config, chat }),
    health,
    logger,
    limits: loadApiLimits(env),
    rateCounter,
    trustProxy: env.TRUST_PROXY === 'true',
    tagTraining: loadTagTrainerTiming(env),
    cpu,
  });
  const server = await listen(app, {
    port,
    host: env.API_HOST ?? '127.0.0.1',
    receiveTimeoutMs: receiveTimeoutMs(env),
  });
  logger.info({ port }, 'API listening');
  return {
    server,
    async close() {
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

if (require.main === module) {
  // The ask worker's runtime logs through the API's log (worker/ask-worker.ts).
  Runtime.install({ logger: temporalLogger((process.env.WORKER_LOG_LEVEL as LogLevel) ?? 'WARN', logger) });
  startServer().then(
    ({ close }) => {
      const stop = () => void close().then(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    },
    (err) => {
      logger.error({ err }, 'API failed to start');
      process.exit(1);
    },
  );
}
