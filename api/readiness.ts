/**
 * What /readyz reports: Temporal, Weaviate and the embedding server(s) reachable, plus which chat
 * engine is active (a configured model, or the built-in local engine).
 */
import type { Client } from '@temporalio/client';
import type { WeaviateClient } from 'weaviate-client';
import type { ServicesConfig } from '../activities/config';
import type { ChatGateway } from '../activities/models/chat';

export interface DependencyStatus {
  ready: boolean;
  detail?: string;
}

export interface ReadinessReport {
  ready: boolean;
  dependencies: { temporal: DependencyStatus; weaviate: DependencyStatus; embeddings: DependencyStatus };
  chat: { engine: ChatGateway['engine']; model: string };
}

const within = <T>(ms: number, p: Promise<T>) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))]);

async function probe(check: () => Promise<unknown>): Promise<DependencyStatus> {
  try {
    await within(3000, check());
    return { ready: true };
  } catch (err) {
    return { ready: false, detail: (err as Error).message };
  }
}

export function createReadiness(deps: { temporal: Client; weaviate: () => Promise<WeaviateClient>; config: ServicesConfig; chat: ChatGateway }) {
  const servers = deps.config.embeddings;
  const modelsAnswer = async (baseUrl: string) => {
    const res = await fetch(`${baseUrl.replace(/\/$/, '')}/models`, { headers: { Authorization: `Bearer ${servers.apiKey}` } });
    if (!res.ok) throw new Error(`HTTP ${res.status} from ${baseUrl}`);
  };
  return async function readiness(): Promise<ReadinessReport> {
    const [temporal, weaviate, embeddings] = await Promise.all([
      probe(() => deps.temporal.workflowService.getSystemInfo({})),
      probe(async () => {
        if (!(await (await deps.weaviate()).isReady())) throw new Error('not ready');
      }),
      // Both lanes' servers, when a second one serves short queries (activities/models/embeddings.ts).
      probe(() => Promise.all([...new Set([servers.baseUrl, servers.queryBaseUrl ?? servers.baseUrl])].map(modelsAnswer))),
    ]);
    return {
      ready: temporal.ready && weaviate.ready && embeddings.ready,
      dependencies: { temporal, weaviate, embeddings },
      chat: { engine: deps.chat.engine, model: deps.chat.model },
    };
  };
}
