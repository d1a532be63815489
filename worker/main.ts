/**
 * The worker process: `node -r ts-node/register worker/main.ts`. Stops cleanly on SIGINT/SIGTERM.
 */
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { loadServicesConfig } from '../activities/config';
import { closeWeaviate } from '../activities/weaviate/client';
import { createWorker } from './worker';

export async function run(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger((process.env.WORKER_LOG_LEVEL as any) ?? 'WARN') });
  const config = loadServicesConfig();
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  try {
    const worker = await createWorker({ config, connection });
    console.log(JSON.stringify({ level: 'info', msg: 'worker polling', taskQueue: config.temporal.taskQueue, time: new Date().toISOString() }));
    await worker.run();
  } finally {
    await connection.close();
    await closeWeaviate();
  }
}

if (require.main === module) {
  run().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
