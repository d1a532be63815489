/**
 * One Weaviate client per process, connected lazily and shared by the activities and the API.
 */
import weaviate, { WeaviateClient } from 'weaviate-client';
import type { ServicesConfig } from '../config';

let clientPromise: Promise<WeaviateClient> | undefined;

export function connectWeaviate(config: ServicesConfig['weaviate']): Promise<WeaviateClient> {
  clientPromise ??= weaviate
    .connectToLocal({
      host: config.host,
      port: config.httpPort,
      grpcPort: config.grpcPort,
      timeout: { init: 5, query: 30, insert: 90 },
      authCredentials: config.apiKey ? new weaviate.ApiKey(config.apiKey) : undefined,
    })
    .catch((err) => {
      clientPromise = undefined; // the next call tries again instead of caching the failure
      throw err;
    });
  return clientPromise;
}

export async function closeWeaviate(): Promise<void> {
  const pending = clientPromise;
  clientPromise = undefined;
  if (pending) await (await pending.catch(() => undefined))?.close();
}
