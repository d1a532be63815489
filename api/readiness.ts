/**
 * What /readyz reports: Temporal, Weaviate and the embedding server(s) reachable, plus which chat
 * engine is active (a configured model, or the built-in local engine). The tag model's English
 * encoder, when configured, counts as an embedding server. With two embedding servers
 * (a second one for short queries), also that both run the same model: one text embedded by both
 * must give the same vector, since queries embedded by one are compared with passages embedded by
 * the other, and a mismatch would silently mix vector spaces.
 */
import net from 'node:net';
import type { Connection } from '@temporalio/client';
import type { WeaviateClient } from 'weaviate-client';
import type { ServicesConfig } from '../domain/config';
import { cosine } from '../domain/models/embeddings';
import type { ChatGateway } from '../domain/models/chat';

export interface DependencyStatus {
  ready: boolean;
  detail?: string;
}

export interface ReadinessReport {
  ready: boolean;
  dependencies: { temporal: DependencyStatus; weaviate: DependencyStatus; embeddings: DependencyStatus };
  chat: { engine: ChatGateway['engine']; model: string };
}

/** `p`, or a rejection once `ms` have passed (the timer never keeps the process alive). */
export const within = <T>(ms: number, p: Promise<T>) =>
  Promise.race([
    p,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref()),
  ]);

async function probe(check: () => Promise<unknown>): Promise<DependencyStatus> {
  try {
    await within(3000, check());
    return { ready: true };
  } catch (err) {
    return { ready: false, detail: (err as Error).message };
  }
}

/** Several scripts, so that a model with a pruned vocabulary embeds it differently too. */
const PROBE_TEXT = 'reset my password · réinitialiser le mot de passe · Passwort zurücksetzen · パスワードをリセット';
/** Cosine below which two servers' vectors of the same text come from different models (the same model gives the same vector). */
const SAME_MODEL_COSINE = 0.999;

/** Resolves when every embedding server answers its model list (liveness: nothing is embedded). */
export async function embeddingServersAnswer(config: Pick<ServicesConfig, 'embeddings' | 'tagEmbeddings'>) {
  const servers = config.embeddings;
  const urls = [...new Set([servers.baseUrl, servers.queryBaseUrl ?? servers.baseUrl])].map((u) =>
    u.replace(/\/$/, ''),
  );
  const english = config.tagEmbeddings?.baseUrl.replace(/\/$/, '');
  const request = async (url: string, init?: RequestInit) => {
    const res = await fetch(url, {
      ...init,
      headers: { Authorization: `Bearer ${servers.apiKey}`, 'Content-Type': 'application/json' },
    });
    if (!res.ok) throw new Error(`HTTP ${res.status} from ${url}`);
    return res;
  };
  await Promise.all([...urls, ...(english ? [english] : [])].map((u) => request(`${u}/models`)));
  return { urls, request };
}

/**
 * Resolves when every embedding server answers and, when there are two, both embed the probe
 * text alike; rejects with what is wrong otherwise.
 */
export async function checkEmbeddingServers(
  config: Pick<ServicesConfig, 'embeddings' | 'tagEmbeddings'>,
): Promise<void> {
  const { urls, request } = await embeddingServersAnswer(config);
  const servers = config.embeddings;
  if (urls.length < 2) return;
  const vectors = await Promise.all(
    urls.map(async (u) => {
      const body = JSON.stringify({
        model: servers.model,
        input: [PROBE_TEXT],
        encoding_format: 'float',
        input_type: 'query',
      });
      const answer = (await (await request(`${u}/embeddings`, { method: 'POST', body })).json()) as {
        data?: { embedding?: unknown }[];
      };
      const vector = answer.data?.[0]?.embedding;
      if (!Array.isArray(vector) || !vector.every((x) => typeof x === 'number'))
        throw new Error(`no embedding in the answer of ${u}`);
      return vector as number[];
    }),
  );
  const [a, b] = vectors;
  const similarity = a.length === b.length ? cosine(a, b) : 0;
  if (!(similarity >= SAME_MODEL_COSINE)) {
    throw new Error(
      `the embedding servers ${urls.join(' and ')} embed alike texts differently (cosine ${similarity.toFixed(3)}): they must run the same model`,
    );
  }
}

/**
 * One liveness probe per dependency, for the circuit breakers (dependency-health.ts); /readyz adds
 * the embedding servers' same-model check. Temporal is probed through a connection without the
 * client's retries, so a stopped server is reported at once rather than after 20 s of
 * reconnection attempts.
 */
/** Resolves once a TCP connection to the URL's host and port is open (then closed); rejects when refused. */
function connects(url: URL): Promise<void> {
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: url.hostname, port }, () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', reject);
    socket.setTimeout(2000, () => socket.destroy(new Error('no connection within 2000 ms')));
  });
}

export function dependencyProbes(deps: {
  temporalProbe: Connection;
  weaviate: () => Promise<WeaviateClient>;
  config: ServicesConfig;
}) {
  const chatBase = deps.config.chat?.baseUrl?.replace(/\/$/, '');
  return {
    temporal: () =>
      deps.temporalProbe.withDeadline(Date.now() + 2000, () => deps.temporalProbe.workflowService.getSystemInfo({})),
    // Asked directly rather than through the client, whose isReady() turns a refused connection into
    // a plain false: the breaker must see the refusal to open at once.
    weaviate: async () => {
      const res = await fetch(
        `http://${deps.config.weaviate.host}:${deps.config.weaviate.httpPort}/v1/.well-known/ready`,
      );
      if (!res.ok) throw new Error(`not ready (HTTP ${res.status})`);
    },
    // Both lanes' servers, when a second one serves short queries (domain/models/embeddings.ts).
    embeddings: () => embeddingServersAnswer(deps.config),
    // A self-hosted chat model (CHAT_BASE_URL), for the metrics only (a failed model call falls back): down
    // when it refuses connections. A TCP connection only, so the model server sees no requests.
    ...(chatBase ? { chat_model: () => connects(new URL(chatBase)) } : {}),
  };
}

export function createReadiness(deps: {
  probes: ReturnType<typeof dependencyProbes>;
  config: ServicesConfig;
  chat: ChatGateway;
}) {
  return async function readiness(): Promise<ReadinessReport> {
    const [temporal, weaviate, embeddings] = await Promise.all([
      probe(deps.probes.temporal),
      probe(deps.probes.weaviate),
      probe(() => checkEmbeddingServers(deps.config)),
    ]);
    return {
      ready: temporal.ready && weaviate.ready && embeddings.ready,
      dependencies: { temporal, weaviate, embeddings },
      chat: { engine: deps.chat.engine, model: deps.chat.model },
    };
  };
}
