/**
 * A worker process on a task queue of its own with its metrics endpoints on free ports (its own
 * and the Temporal runtime's), for the tests that scrape it (metrics, dashboards). Resolves once it
 * polls.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnNode } from '../../scripts/stack/processes';
import { freePort, type Service } from '../../scripts/stack/services';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface MetricsWorker {
  service: Service;
  metricsPort: number;
  sdkMetricsPort: number;
}

export async function startMetricsWorker(o: { name: string; taskQueue: string }): Promise<MetricsWorker> {
  const [metricsPort, sdkMetricsPort] = [await freePort(), await freePort()];
  const logDir = fs.mkdtempSync(path.join(process.env.SUPPORT_AI_TEST_DATA ?? os.tmpdir(), `${o.name}-`));
  const service = spawnNode(
    o.name,
    'worker/main.ts',
    {
      ...(process.env as Record<string, string>),
      TASK_QUEUE: o.taskQueue,
      // At info, so that its 'worker polling' line shows it is ready.
      LOG_LEVEL: 'info',
      WORKER_METRICS_PORT: String(metricsPort),
      WORKER_SDK_METRICS_PORT: String(sdkMetricsPort),
    },
    logDir,
  );
  for (const end = Date.now() + 120_000; !fs.readFileSync(service.logFile, 'utf8').includes('worker polling');) {
    if (service.child.exitCode !== null)
      throw new Error(`${o.name} exited: ${fs.readFileSync(service.logFile, 'utf8').slice(-2000)}`);
    if (Date.now() > end) throw new Error(`${o.name} did not poll within 120 s`);
    await sleep(250);
  }
  return { service, metricsPort, sdkMetricsPort };
}
