/**
 * The worker process: `node -r ts-node/register worker/main.ts`. Stops cleanly on SIGINT/SIGTERM.
 */
import { LogLevel, NativeConnection, Runtime } from '@temporalio/worker';
import { loadServicesConfig } from '../domain/config';
import { closeWeaviate } from '../domain/weaviate/client';
import { logger, temporalLogger } from './logger';
import { createWorker } from './worker';

export async function run(): Promise<void> {
  Runtime.install({ logger: temporalLogger((process.env.WORKER_LOG_LEVEL as LogLevel) ?? 'WARN') });
  const config = loadServicesConfig();
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  try {
    const worker = await createWorker({ config, connection });
    logger.info({ taskQueue: config.temporal.taskQueue }, 'worker polling');
    await worker.run();
  } finally {
    await connection.close();
    await closeWeaviate();
  }
}

if (require.main === module) {
  run().catch((err) => {
    logger.error({ err }, 'worker failed');
    process.exit(1);
  });
}
