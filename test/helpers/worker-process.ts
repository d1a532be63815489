/**
 * A worker as a separate process on its own task queue, with an API bound to that queue, so a
 * test can kill the worker for real (SIGKILL) and start it again.
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { startServer } from '../../api/server';
import { WorkerPresence } from '../../api/worker-presence';
import { spawnNode } from '../../scripts/stack/processes';
import { Service, stopService } from '../../scripts/stack/services';
import { getHarness } from './harness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface KillableWorker {
  taskQueue: string;
  baseUrl: string;
  start(): Promise<void>;
  kill(): Promise<void>;
  /** The running worker's process id. */
  pid(): number;
  /** Stops the worker's process (SIGSTOP) without ending it: a worker that answers nothing, as one busy on its only thread. */
  pause(): void;
  /** Lets a paused worker go on (SIGCONT). */
  resume(): void;
  close(): Promise<void>;
}

export async function killableWorker(): Promise<KillableWorker> {
  const taskQueue = `killable-${randomBytes(4).toString('hex')}`;
  const logDir = fs.mkdtempSync(path.join(process.env.SUPPORT_AI_TEST_DATA ?? os.tmpdir(), 'worker-'));
  const env = {
    ...(process.env as Record<string, string>),
    TASK_QUEUE: taskQueue,
    API_PORT: '0',
    LOG_LEVEL: 'silent',
    KEY_CACHE_TTL_MS: '300',
  };
  // The shared harness first: it installs the process's Temporal runtime, which the API's ask worker then uses.
  const { temporal } = await getHarness();
  const api = await startServer(env);
  const presence = new WorkerPresence(temporal, temporal.options.namespace, taskQueue);
  let worker: Service | undefined;
  let starts = 0;
  return {
    taskQueue,
    baseUrl: `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`,
    async start() {
      // The worker logs at info so that its 'worker polling' line shows it is ready.
      const service = spawnNode(`worker-${++starts}`, 'worker/main.ts', { ...env, LOG_LEVEL: 'info' }, logDir);
      worker = service;
      for (let i = 0; i < 240; i++) {
        if (service.child.exitCode !== null)
          throw new Error(`worker exited: ${fs.readFileSync(service.logFile, 'utf8').slice(-2000)}`);
        // The line comes just before the first poll; Temporal must have seen one before the API trusts it.
        if (fs.readFileSync(service.logFile, 'utf8').includes('worker polling') && (await presence.isPolling())) return;
        await sleep(250);
      }
      throw new Error('worker did not start polling within 60 s');
    },
    async kill() {
      if (!worker) return;
      const exited = new Promise((r) => worker!.child.once('exit', r));
      worker.child.kill('SIGKILL');
      await exited;
      worker = undefined;
    },
    pid() {
      if (!worker?.child.pid) throw new Error('the worker is not running');
      return worker.child.pid;
    },
    pause() {
      worker?.child.kill('SIGSTOP');
    },
    resume() {
      worker?.child.kill('SIGCONT');
    },
    async close() {
      worker?.child.kill('SIGCONT');
      if (worker) await stopService(worker);
      await api.close();
    },
  };
}
