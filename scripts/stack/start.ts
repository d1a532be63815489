/**
 * `npm start`: provisions and starts the whole stack with persistent data, then the worker and
 * the API (restarted when they die); prints where everything is and, on first start, an operator
 * API key. Ctrl-C stops all.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadServicesConfig } from '../../activities/config';
import { ApiKeyStore } from '../../activities/weaviate/api-keys';
import { closeWeaviate, connectWeaviate } from '../../activities/weaviate/client';
import { ensureCollections } from '../../activities/weaviate/collections';
import { SCOPES } from '../../api/scopes';
import { spawnNode } from './processes';
import { Service, assertPortFree, httpOk, stopService, waitHealthy } from './services';
import { configuredPorts, startStack } from './stack';

async function main(): Promise<void> {
  const dataDir = path.resolve(process.env.DATA_DIR ?? '.data');
  fs.mkdirSync(dataDir, { recursive: true });
  const ports = configuredPorts();
  const apiPort = Number(process.env.API_PORT ?? 3000);
  await assertPortFree(apiPort, 'the API', 'API_PORT');
  const stack = await startStack({ dataDir, ports, headless: process.env.TEMPORAL_HEADLESS === 'true' });
  const own = new Map<string, Service>();
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log('\n[start] stopping ...');
    await Promise.all([...own.values()].map((s) => stopService(s)));
    await stack.stop();
    await closeWeaviate();
    process.exit(code);
  };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));
  try {
    const env = { ...stack.env, API_PORT: String(apiPort) };
    Object.assign(process.env, env);
    const config = loadServicesConfig();
    const weaviate = await connectWeaviate(config.weaviate);
    await ensureCollections(weaviate);
    const logDir = path.join(dataDir, 'logs');
    /** Runs one of our processes, and starts it again when it dies (a killed worker comes back). */
    const supervise = (name: string, entry: string): Service => {
      const service = spawnNode(name, entry, env, logDir);
      own.set(name, service);
      service.child.on('exit', (code, signal) => {
        if (stopping) return;
        console.error(`[start] ${name} exited (${code ?? signal}); starting it again in 2 s (log ${service.logFile})`);
        setTimeout(() => !stopping && supervise(name, entry), 2000);
      });
      return service;
    };
    supervise('worker', 'worker/main.ts');
    const api = supervise('api', 'api/server.ts');
    await waitHealthy(api, () => httpOk(`http://127.0.0.1:${apiPort}/healthz`), 60_000);
    const store = new ApiKeyStore(() => connectWeaviate(config.weaviate));
    const line = '-'.repeat(72);
    console.log(line);
    console.log(`API:          http://127.0.0.1:${apiPort}  (readiness: /readyz, OpenAPI: /openapi.json)`);
    if (process.env.TEMPORAL_HEADLESS !== 'true') console.log(`Temporal UI:  http://127.0.0.1:${ports.temporalUi}`);
    console.log(`Logs:         ${logDir}`);
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
