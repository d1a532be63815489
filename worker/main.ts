/**
 * The worker process: `node -r ts-node/register worker/main.ts`. Stops cleanly on SIGINT/SIGTERM.
 */
import { NativeConnection, Runtime } from '@temporalio/worker';
import { markProcess } from '../domain/observability/metrics';
import { sdkMetricsTelemetry, startMetricsServer } from '../domain/observability/metrics-server';
import { SERVICE_NAMES, startTracing, stopTracing } from '../domain/observability/tracing';
import { closeWeaviate } from '../domain/weaviate/client';
import { loadWorkerConfig } from './config';
import { logger, temporalLogger } from './logger';
import { createWorker } from './worker';

/** Reads the configuration once, first: a bad setting stops the worker before it connects to anything. */
export async function run(): Promise<void> {
  const config = loadWorkerConfig(process.env);
  logger.level = config.logLevel;
  // Before any client or worker: off unless an OTLP endpoint is set (docs/operations.md, "Tracing").
  await startTracing({ service: SERVICE_NAMES.worker });
  const { metrics } = config;
  Runtime.install({
    logger: temporalLogger(config.workerLogLevel),
    telemetryOptions: sdkMetricsTelemetry({ host: metrics.host, port: metrics.sdkPort }),
  });
  markProcess({ process: 'worker', tenantLabels: metrics.tenantLabels });
  const metricsServer = metrics.port ? await startMetricsServer({ host: metrics.host, port: metrics.port }) : undefined;
  const { address, taskQueue } = config.services.temporal;
  const connection = await NativeConnection.connect({ address });
  try {
    const worker = await createWorker({ config, connection });
    logger.info({ taskQueue }, 'worker polling');
    await worker.run();
  } finally {
    await connection.close();
    await closeWeaviate();
    await stopTracing();
    await metricsServer?.close();
  }
}

if (require.main === module) {
  run().catch((err) => {
    logger.error({ err }, 'worker failed');
    process.exit(1);
  });
}
