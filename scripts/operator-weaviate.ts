/**
 * The Weaviate of a running stack, for the operator commands (keys, feedback): WEAVIATE_HOST /
 * WEAVIATE_HTTP_PORT / WEAVIATE_GRPC_PORT, with WEAVIATE_API_KEY or else the key `npm start`
 * keeps in DATA_DIR. A Weaviate that cannot be reached is reported with what to set.
 */
import path from 'node:path';
import type { WeaviateClient } from 'weaviate-client';
import { loadServicesConfig } from '../domain/config';
import { closeWeaviate, connectWeaviate } from '../domain/weaviate/client';
import { ensureCollections } from '../domain/weaviate/collections';
import { readWeaviateKey, weaviateKeyPath } from './stack/weaviate-key';

export async function withWeaviate<T>(fn: (weaviate: () => Promise<WeaviateClient>) => Promise<T>): Promise<T> {
  const dataDir = path.resolve(process.env.DATA_DIR ?? '.data');
  const config = loadServicesConfig({
    ...process.env,
    WEAVIATE_API_KEY: process.env.WEAVIATE_API_KEY || readWeaviateKey(dataDir),
  });
  try {
    const { host, httpPort, grpcPort } = config.weaviate;
    const client = await connectWeaviate(config.weaviate).catch((err) => {
      throw new Error(
        `cannot reach Weaviate at ${host}:${httpPort} (gRPC ${grpcPort}): ${err.message}. Is the stack running (npm start)? ` +
          `Otherwise set WEAVIATE_HOST, WEAVIATE_HTTP_PORT and WEAVIATE_GRPC_PORT, and WEAVIATE_API_KEY or DATA_DIR (the key is read from ${weaviateKeyPath(dataDir)}).`,
      );
    });
    await ensureCollections(client);
    return await fn(() => connectWeaviate(config.weaviate));
  } finally {
    await closeWeaviate();
  }
}
