/**
 * Writes articles, cases and incidents of one tenant into Weaviate. Object ids are derived from
 * (tenant, kind, id, passage), so a retried activity or a re-upload overwrites instead of duplicating.
 */
import { heartbeat } from '@temporalio/activity';
import { Collection, Filters, WeaviateClient, generateUuid5 } from 'weaviate-client';
import type { Article } from '../contracts/article';
import type { Case } from '../contracts/case';
import type { IncidentUpload } from '../contracts/incident';
import type { Embedder } from '../models/embeddings';
import { articleSections, detectLanguage, toPassages } from '../text/article-text';
import { caseText, embeddedPart, incidentText } from '../text/records';
import { storeUnavailable } from '../failures';
import { COLLECTIONS, tenantCollection } from './collections';

export interface FailedItem {
  id: string;
  error: string;
}

export interface IngestResult {
  stored: number;
  failed: FailedItem[];
}

export const objectId = (tenant: string, kind: string, ...parts: (string | number)[]) =>
  generateUuid5([tenant, kind, ...parts].join('\u001f'));

/** Items handled per embedding call and heartbeat. */
const GROUP = 16;

interface Deps {
  weaviate: () => Promise<WeaviateClient>;
  embedder: Embedder;
  signal?: AbortSignal;
}

interface NewObject {
  id: string;
  properties: Record<string, unknown>;
  vectors: number[];
}

/** Inserts objects; per-object errors are returned by index instead of thrown. */
/**
 * Stores objects, returning each one's error by its index. An object refused because the store
 * could not reach enough of its copies fails the whole call instead, so the activity retries it
 * (ids are derived from the content's ids: a retry overwrites) rather than reporting that
 * object as failed to the client.
 */
async function insert(collection: Collection<any, string, any>, objects: NewObject[]): Promise<Map<number, string>> {
  const errors = new Map<number, string>();
  if (objects.length === 0) return errors;
  const res = await collection.data.insertMany(objects as any);
  if (res.hasErrors) for (const [i, e] of Object.entries(res.errors)) errors.set(Number(i), e.message);
  const unavailable = [...errors.values()].find(storeUnavailable);
  if (unavailable) throw new Error(`storing ${errors.size} of ${objects.length} objects failed: ${unavailable}`);
  return errors;
}

function groups<T>(items: T[], size = GROUP): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Stores each article as its passages (ArticlePassage) and its title (ArticleTitle), both with
 * their embeddings, computed in one call per group.
 */
export async function upsertArticles(
  deps: Deps,
  input: { tenant: string; articles: Article[] },
): Promise<IngestResult> {
  const client = await deps.weaviate();
  const collection = client.collections.use(COLLECTIONS.articlePassage).withTenant(input.tenant);
  const titleCollection = client.collections.use(COLLECTIONS.articleTitle).withTenant(input.tenant);
  const failed: FailedItem[] = [];
  let stored = 0;
  for (const group of groups(input.articles)) {
    const prepared = group.flatMap((article) => {
      const passages = toPassages(articleSections(article.body));
      if (passages.length === 0) {
        failed.push({ id: article.articleId, error: '/body has no text after conversion' });
        return [];
      }
      const language =
        article.language?.slice(0, 2).toLowerCase() ??
        detectLanguage(`${article.title}\n${passages.map((p) => p.text).join('\n')}`) ??
        '';
      return [{ article, passages, language }];
    });
    const texts = prepared.flatMap(({ article, passages }) =>
      passages.map((p) => [article.title, p.heading, p.text].filter(Boolean).join('\n')),
    );
    const titled = prepared.filter(({ article }) => article.title.trim());
    const vectors = await deps.embedder.embed({
      texts: [...texts, ...titled.map(({ article }) => article.title)],
      inputType: 'passage',
      tenant: input.tenant,
      signal: deps.signal,
      onBatch: () => heartbeat({ stored }),
    });
    const titleVectors = vectors.slice(texts.length);
    let v = 0;
    const objects: NewObject[] = [];
    const owners: string[] = [];
    for (const { article, passages, language } of prepared) {
      passages.forEach((p, i) => {
        owners.push(article.articleId);
        objects.push({
          id: objectId(input.tenant, 'article', article.articleId, i),
          vectors: vectors[v++],
          properties: {
            articleId: article.articleId,
            passageIndex: i,
            passageCount: passages.length,
            title: article.title,
            heading: p.heading,
            text: p.text,
            url: article.url,
            language,
            productId: article.productId ?? '',
            timeOfCreation: article.timeOfCreation,
            timeLastPublished: article.timeLastPublished,
          },
        });
      });
    }
    const titles: NewObject[] = titled.map(({ article }, i) => ({
      id: objectId(input.tenant, 'article-title', article.articleId),
      vectors: titleVectors[i],
      properties: { articleId: article.articleId, productId: article.productId ?? '' },
    }));
    // Per-object errors as [article id, message]: a passage or the title that failed fails its article.
    const errors: [string, string][] = [
      ...[...(await insert(collection, objects))].map(([i, message]): [string, string] => [owners[i], message]),
      ...[...(await insert(titleCollection, titles))].map(([i, message]): [string, string] => [
        titled[i].article.articleId,
        message,
      ]),
    ];
    const failedIds = new Set(errors.map(([id]) => id));
    for (const [id, message] of errors) if (!failed.some((f) => f.id === id)) failed.push({ id, error: message });
    // Passages left over from a longer earlier version of an article.
    const stale = prepared
      .filter(({ article }) => !failedIds.has(article.articleId))
      .map(({ article, passages }) =>
        Filters.and(
          collection.filter.byProperty('articleId').equal(article.articleId),
          collection.filter.byProperty('passageIndex').greaterOrEqual(passages.length),
        ),
      );
    if (stale.length > 0) await collection.data.deleteMany(Filters.or(...stale));
    stored += prepared.length - failedIds.size;
    heartbeat({ stored });
  }
  return { stored, failed };
}

/** Removes every passage and the title of the given articles. Deleting an id that is not stored is not an error. */
export async function deleteArticles(
  deps: Deps,
  input: { tenant: string; articleIds: string[] },
): Promise<IngestResult> {
  const client = await deps.weaviate();
  const passages = await tenantCollection(client, COLLECTIONS.articlePassage, input.tenant);
  if (!passages) return { stored: 0, failed: [] };
  const titles = await tenantCollection(client, COLLECTIONS.articleTitle, input.tenant);
  for (const ids of groups(input.articleIds, 100)) {
    const filter = passages.filter.byProperty('articleId').containsAny(ids);
    // One call removes all passages of these articles at once; it is capped at the server's maximum
    // results, so repeat until nothing matches (and give up, to be retried, if nothing gets deleted).
    for (;;) {
      const res = await passages.data.deleteMany(filter);
      if (res.matches === 0) break;
      if (res.successful === 0)
        throw new Error(`could not delete ${res.matches} passages of articles ${ids.join(', ')}`);
    }
    // One title per article: a single call removes them (100 ids, far below the server's maximum).
    await titles?.data.deleteMany(titles.filter.byProperty('articleId').containsAny(ids));
    heartbeat();
  }
  return { stored: input.articleIds.length, failed: [] };
}

export async function upsertCases(deps: Deps, input: { tenant: string; cases: Case[] }): Promise<IngestResult> {
  const collection = (await deps.weaviate()).collections.use(COLLECTIONS.supportCase).withTenant(input.tenant);
  const failed: FailedItem[] = [];
  let stored = 0;
  for (const group of groups(input.cases)) {
    const texts = group.map((c) => caseText(c).embedding);
    const vectors = await deps.embedder.embed({
      texts,
      inputType: 'passage',
      tenant: input.tenant,
      signal: deps.signal,
      onBatch: () => heartbeat({ stored }),
    });
    const objects = group.map((c, i) => ({
      id: objectId(input.tenant, 'case', c.id),
      vectors: vectors[i],
      properties: caseProperties(c),
    }));
    const errors = await insert(collection, objects);
    for (const [i, message] of errors) failed.push({ id: group[i].id, error: message });
    stored += group.length - errors.size;
    heartbeat({ stored });
  }
  return { stored, failed };
}

function caseProperties(c: Case): Record<string, unknown> {
  const text = caseText(c);
  const productId = c.productId ?? (typeof c.custom_fields?.productId === 'string' ? c.custom_fields.productId : '');
  return {
    caseId: c.id,
    subject: c.subject ?? '',
    description: c.description ?? '',
    comments: text.publicComments,
    privateComments: text.privateComments,
    commentsJson: JSON.stringify(c.comments ?? []),
    status: c.status ?? '',
    priority: c.priority ?? '',
    type: c.type ?? '',
    brandId: c.brand_id ?? '',
    formId: c.form_id ?? '',
    tags: c.tags ?? [],
    timeOfCreation: c.timeOfCreation ?? 0,
    url: c.url ?? '',
    customFieldsJson: JSON.stringify(c.custom_fields ?? {}),
    kbLinks: c.kb_links ?? [],
    source: c.source ?? '',
    spam: c.spam ?? false,
    productId,
  };
}

export async function upsertIncident(
  deps: Deps,
  input: { tenant: string; record: IncidentUpload },
): Promise<{ id: string }> {
  const collection = (await deps.weaviate()).collections.use(COLLECTIONS.incident).withTenant(input.tenant);
  const { record } = input;
  const id = record.incident.id ?? objectId(input.tenant, 'incident-content', JSON.stringify(record.incident));
  const text = incidentText(record);
  const [vector] = await deps.embedder.embed({
    texts: [embeddedPart(text)],
    inputType: 'passage',
    tenant: input.tenant,
    signal: deps.signal,
  });
  const lastUpdate = record.updates[record.updates.length - 1];
  const errors = await insert(collection, [
    {
      id: objectId(input.tenant, 'incident', id),
      vectors: vector,
      properties: {
        incidentId: id,
        name: record.incident.name ?? '',
        status: record.incident.status ?? '',
        impact: lastUpdate?.impact ?? '',
        shortlink: record.incident.shortlink ?? '',
        text,
        components: record.components.map((c) => c.name ?? '').filter(Boolean),
        startedAt: record.incident.started_at ?? '',
        updatedAt: record.incident.updated_at ?? '',
        recordJson: JSON.stringify(record),
      },
    },
  ]);
  if (errors.size > 0) throw new Error([...errors.values()][0]);
  return { id };
}
