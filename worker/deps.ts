/**
 * The clients the activities share, built from the services configuration.
 */
import type { ActivityDeps } from '../activities';
import type { ServicesConfig } from '../activities/config';
import { createChatGateway } from '../activities/models/chat';
import { createEmbedder } from '../activities/models/embeddings';
import { connectWeaviate } from '../activities/weaviate/client';

export function createActivityDeps(config: ServicesConfig): ActivityDeps {
  return {
    weaviate: () => connectWeaviate(config.weaviate),
    embedder: createEmbedder(config.embeddings),
    chat: createChatGateway(config.chat),
  };
}
