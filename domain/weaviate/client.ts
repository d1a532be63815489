/**
 * One Weaviate client per process, connected lazily and shared by the activities and the API.
 *
 * On a replicated Weaviate (WEAVIATE_REPLICATION_FACTOR above 1) every collection handle the
 * client gives out reads and writes at WEAVIATE_CONSISTENCY, QUORUM by default: a write is
 * acknowledged once a majority of the object's copies hold it, and a read or search asks a
 * majority too, so any read sees every acknowledged write (majority + majority > copies), also
 * while a restarted node is still catching up (reads at ONE served by it could miss objects), and
 * one node of three can be down without failing either. The same level serves every operation on
 * purpose: API keys, idempotency look-ups, rate counts, stored answers and searches all need to
 * see what another instance wrote a moment ago (docs/api.md, "Replication").
 */
import weaviate, { WeaviateClient } from 'weaviate-client';
import type { ServicesConfig } from '../config';

let clientPromise: Promise<WeaviateClient> | undefined;

/** The replication factor new collections get, per client (domain/weaviate/collections.ts reads it). */
const replicationFactors = new WeakMap<WeaviateClient, number>();

export const replicationFactorOf = (client: WeaviateClient) => replicationFactors.get(client) ?? 1;

/** Makes every collection handle of `client` read and write at `level`. */
function readAndWriteAt(client: WeaviateClient, level: ServicesConfig['weaviate']['consistency']): void {
  const use = client.collections.use.bind(client.collections);
  client.collections.use = ((name: string) => use(name).withConsistency(level)) as typeof client.collections.use;
  client.collections.get = client.collections.use;
}

export function connectWeaviate(config: ServicesConfig['weaviate']): Promise<WeaviateClient> {
  clientPromise ??= weaviate
    .connectToLocal({
      host: config.host,
      port: config.httpPort,
      grpcPort: config.grpcPort,
      timeout: { init: 5, query: 30, insert: 90 },
      authCredentials: config.apiKey ? new weaviate.ApiKey(config.apiKey) : undefined,
    })
    .then((client) => {
      replicationFactors.set(client, config.replicationFactor);
      if (config.replicationFactor > 1) readAndWriteAt(client, config.consistency);
      return client;
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
