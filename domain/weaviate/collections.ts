/**
 * The Weaviate collections. Customer content lives in multi-tenant collections: every read and
 * write names the tenant of the API key, so no query can cross customers. Vectors are computed
 * by our embedding server and supplied with each object ("self provided").
 */
import weaviate, { Collection, WeaviateClient } from 'weaviate-client';
import { replicationFactorOf } from './client';
import type { CollectionProperties } from './properties';

const { dataType, tokenization } = weaviate.configure;

export const COLLECTIONS = {
  articlePassage: 'ArticlePassage',
  articleTitle: 'ArticleTitle',
  supportCase: 'SupportCase',
  incident: 'Incident',
  apiKey: 'ApiKey',
  business: 'Business',
  rateCount: 'RateCount',
  tokenUsage: 'TokenUsage',
  askAnswer: 'AskAnswer',
  askFeedback: 'AskFeedback',
  tagModel: 'TagModel',
  evalResult: 'EvalResult',
} as const satisfies Record<string, keyof CollectionProperties>;

export type CollectionName = keyof CollectionProperties;

/** A collection typed by its properties (properties.ts): reads and writes name only properties it has. */
export type TypedCollection<N extends CollectionName> = Collection<CollectionProperties[N], N>;

/** The collection `name`, typed by its properties. */
export const collectionOf = <N extends CollectionName>(client: WeaviateClient, name: N): TypedCollection<N> =>
  client.collections.use<N, CollectionProperties[N]>(name);

const text = (name: string) => ({ name, dataType: dataType.TEXT, tokenization: tokenization.WORD });
const keyword = (name: string) => ({
  name,
  dataType: dataType.TEXT,
  tokenization: tokenization.FIELD,
  indexSearchable: false,
});
const keywords = (name: string) => ({
  name,
  dataType: dataType.TEXT_ARRAY,
  tokenization: tokenization.FIELD,
  indexSearchable: false,
});
const stored = (name: string) => ({ name, dataType: dataType.TEXT, indexFilterable: false, indexSearchable: false });
const int = (name: string) => ({ name, dataType: dataType.INT, indexRangeFilters: true });
const bool = (name: string) => ({ name, dataType: dataType.BOOLEAN });
const num = (name: string) => ({ name, dataType: dataType.NUMBER });

type PropertyConfig = ReturnType<
  typeof text | typeof keyword | typeof keywords | typeof stored | typeof int | typeof bool | typeof num
>;

interface CollectionSpec {
  name: string;
  multiTenant: boolean;
  properties: PropertyConfig[];
}

const SPECS: CollectionSpec[] = [
  {
    name: COLLECTIONS.articlePassage,
    multiTenant: true,
    properties: [
      keyword('articleId'),
      int('passageIndex'),
      int('passageCount'),
      text('title'),
      text('heading'),
      text('text'),
      keyword('url'),
      keyword('language'),
      keyword('productId'),
      int('timeOfCreation'),
      int('timeLastPublished'),
    ],
  },
  {
    // One object per article whose vector is its title's alone: ask ranks articles by how close
    // the question is to the title as well as to the best passage (domain/ask/compose.ts).
    name: COLLECTIONS.articleTitle,
    multiTenant: true,
    properties: [keyword('articleId'), keyword('productId')],
  },
  {
    name: COLLECTIONS.supportCase,
    multiTenant: true,
    properties: [
      keyword('caseId'),
      text('subject'),
      text('description'),
      text('comments'),
      stored('privateComments'),
      stored('commentsJson'),
      keyword('status'),
      keyword('priority'),
      keyword('type'),
      keyword('brandId'),
      keyword('formId'),
      keywords('tags'),
      int('timeOfCreation'),
      keyword('url'),
      stored('customFieldsJson'),
      keywords('kbLinks'),
      keyword('source'),
      bool('spam'),
      keyword('productId'),
    ],
  },
  {
    name: COLLECTIONS.incident,
    multiTenant: true,
    properties: [
      keyword('incidentId'),
      text('name'),
      keyword('status'),
      keyword('impact'),
      keyword('shortlink'),
      text('text'),
      keywords('components'),
      keyword('startedAt'),
      keyword('updatedAt'),
      stored('recordJson'),
    ],
  },
  {
    name: COLLECTIONS.apiKey,
    multiTenant: false,
    properties: [
      keyword('keyHash'),
      keyword('keyId'),
      keyword('tenant'),
      keywords('scopes'),
      keyword('name'),
      int('createdAt'),
      int('revokedAt'),
    ],
  },
  {
    name: COLLECTIONS.business,
    multiTenant: false,
    properties: [keyword('businessId'), keyword('tenant')],
  },
  {
    // Answers of ask, kept for feedback and for the operators' feedback report (answers.ts).
    name: COLLECTIONS.askAnswer,
    multiTenant: true,
    properties: [
      keyword('answerId'),
      keyword('chatId'),
      stored('question'),
      stored('standalone'),
      stored('answer'),
      keyword('responseType'),
      keyword('language'),
      keyword('author'),
      keyword('engine'),
      stored('sourcesJson'),
      int('createdAt'),
    ],
  },
  {
    // One object per feedback sent; an answer may get several.
    name: COLLECTIONS.askFeedback,
    multiTenant: true,
    properties: [keyword('answerId'), stored('details'), int('rating'), int('createdAt')],
  },
  {
    // Each tenant's tag model (domain/weaviate/tag-models.ts): a head object naming the
    // current version, and that version's weights in chunks.
    name: COLLECTIONS.tagModel,
    multiTenant: true,
    properties: [keyword('kind'), int('version'), int('chunkIndex'), int('chunkCount'), stored('data')],
  },
  {
    // Graded logged calls of batch evaluation (domain/weaviate/eval-results.ts), redacted.
    name: COLLECTIONS.evalResult,
    multiTenant: true,
    properties: [
      keyword('recordId'),
      keyword('runId'),
      keyword('model'),
      keyword('judge'),
      keyword('useCase'),
      int('loggedAt'),
      int('latencyMs'),
      stored('metadataJson'),
      stored('messagesJson'),
      stored('output'),
      keyword('verdict'),
      num('score'),
      stored('rulesJson'),
      int('redactions'),
      int('gradedAt'),
    ],
  },
  {
    // Rate-limit counts shared by the API instances (domain/weaviate/rate-counts.ts).
    name: COLLECTIONS.rateCount,
    multiTenant: false,
    properties: [keyword('subject'), int('window'), keyword('instance'), int('count')],
  },
  {
    // Chat-model tokens per day, tenant, capability and model, each process's own running totals (domain/weaviate/token-usage.ts).
    name: COLLECTIONS.tokenUsage,
    multiTenant: false,
    properties: [
      int('day'),
      keyword('tenant'),
      keyword('capability'),
      keyword('model'),
      keyword('instance'),
      int('promptTokens'),
      int('completionTokens'),
      int('calls'),
    ],
  },
];

/** Creates the collections that do not exist yet. Safe to call from several processes at once. */
export async function ensureCollections(client: WeaviateClient): Promise<void> {
  for (const spec of SPECS) {
    if (await client.collections.exists(spec.name)) continue;
    try {
      await client.collections.create({
        name: spec.name,
        properties: spec.properties,
        vectorizers: weaviate.configure.vectors.selfProvided({
          vectorIndexConfig: weaviate.configure.vectorIndex.hnsw({ distanceMetric: 'cosine' }),
        }),
        // On a replicated Weaviate, copies kept in step in the background too, so a node that was down catches up.
        replication:
          replicationFactorOf(client) > 1
            ? weaviate.configure.replication({ factor: replicationFactorOf(client), asyncEnabled: true })
            : undefined,
        multiTenancy: spec.multiTenant
          ? weaviate.configure.multiTenancy({ enabled: true, autoTenantCreation: true, autoTenantActivation: true })
          : undefined,
      });
    } catch (err) {
      // Another process created it between exists() and create().
      if (!(await client.collections.exists(spec.name))) throw err;
    }
  }
}

/** Tenants known to exist, per collection, and when that was last confirmed. */
const knownTenants = new Map<string, number>();
/** A tenant is never removed by the service; the cache only guards against removals by hand. */
const KNOWN_TENANT_TTL_MS = 10 * 60_000;

/**
 * A collection scoped to a tenant, or undefined when the tenant never wrote to it: tenants are
 * created on first write only, and reads of a missing one fail, so callers treat it as empty.
 * That a tenant exists is cached (a read then costs no look-up); that it does not is never
 * cached, so a tenant's first upload is seen by the very next read.
 */
export async function tenantCollection<N extends CollectionName>(
  client: WeaviateClient,
  name: N,
  tenant: string,
): Promise<TypedCollection<N> | undefined> {
  const collection = collectionOf(client, name);
  const key = `${name}/${tenant}`;
  const confirmed = knownTenants.get(key);
  if (confirmed === undefined || Date.now() - confirmed > KNOWN_TENANT_TTL_MS) {
    if (!(await collection.tenants.getByName(tenant))) return undefined;
    if (knownTenants.size >= 100_000) knownTenants.clear();
    knownTenants.set(key, Date.now());
  }
  return collection.withTenant(tenant);
}

/** The vector returned with an object (`includeVector`), or undefined. */
export const vectorOf = (o: { vectors?: Record<string, unknown> }) => {
  const v = o.vectors?.default ?? Object.values(o.vectors ?? {})[0];
  return Array.isArray(v) ? (v as number[]) : undefined;
};

/** Weaviate tenant names allow [A-Za-z0-9_-]{1,64}; the keys command only issues such tenants. */
export const TENANT_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
