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
import { ApplicationFailure } from '@temporalio/common';
import type { CpuPool } from '../cpu/pool';
import type { Progress } from '../progress';
import { heartbeating } from '../progress';
import { prepareArticle, type PreparedArticle } from '../text/article-text';
import { caseText, embeddedPart, incidentText } from '../text/records';
import { FAILURE_TYPES, storeUnavailable } from '../failures';
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

/** Passages embedded and stored together: one heartbeat each, and the points where a slice may end. */
const PASSAGE_GROUP = 16;

/**
 * How long one attempt stores passages before it hands the rest of its batch back to the workflow,
 * which schedules the next slice on the ingestion queue. Slots thus turn over every slice, and the
 * server hands each free slot to the tenants in turn (fairness keys), so one tenant's largest
 * articles (a megabyte is about 1,000 passages, minutes of embedding) never hold the slots.
 */
export const INGEST_SLICE_MS = 15_000;

/** Batches whose passages a worker keeps between slices (a batch is at most about 2 MB of passages). */
const CACHED_BATCHES = 8;

/** Where a slice of an article upload resumes: the article of the batch, and its passage. */
export interface ArticleCursor {
  article: number;
  passage: number;
}

export interface ArticleSliceInput {
  tenant: string;
  /** The batch; a later slice leaves it out and reads it from the run's input (or this worker's cache). */
  articles?: Article[];
  from?: ArticleCursor;
}

export interface ArticleSlice extends IngestResult {
  /** Articles whose last passage this slice stored. */
  completed?: string[];
  /** Where the next slice starts; absent when the batch is done. */
  next?: ArticleCursor;
}

interface ArticleDeps extends Deps {
  /** The CPU threads the conversion runs on, with its budget; without them (tests, tools) it runs inline. */
  cpu?: CpuPool;
  progress?: Progress;
  sliceMs?: number;
  /** The batch's run (cache key), and how to read the batch when the input leaves it out. */
  run?: { runKey: string; read: () => Promise<Article[]> };
}

type Prepared = PreparedArticle | { error: string };

interface PreparedBatch {
  /** The articles without their bodies (what the objects store beside each passage). */
  articles: Article[];
  prepared: Prepared[];
}

const preparedBatches = new Map<string, PreparedBatch>();

/**
 * One article's passages, on a CPU thread with its own budget. An article that cannot be stored
 * by itself (over the budget, nothing searchable) is a failed item, not a failed attempt: retrying
 * it would give the same, so it is reported once and the rest of the batch goes on.
 */
async function prepareOne(deps: ArticleDeps, article: Article): Promise<Prepared> {
  const input = { title: article.title, body: article.body, language: article.language };
  let prepared: PreparedArticle;
  try {
    prepared = deps.cpu
      ? await heartbeating(deps.cpu.run({ task: 'prepareArticle', input, signal: deps.signal }), {
          progress: deps.progress,
          details: { preparing: article.articleId },
        })
      : prepareArticle(input);
  } catch (err) {
    if (err instanceof ApplicationFailure && err.type === FAILURE_TYPES.tooCostly)
      return { error: `/body: ${err.message}` };
    throw err;
  }
  if (prepared.passages.length > 0) return prepared;
  return {
    error:
      prepared.unsearchable > 0
        ? '/body has no letter or digit after conversion, so nothing in it could be searched'
        : '/body has no text after conversion',
  };
}

async function preparedBatch(deps: ArticleDeps, input: ArticleSliceInput): Promise<PreparedBatch> {
  const key = deps.run?.runKey;
  const cached = key === undefined ? undefined : preparedBatches.get(key);
  if (cached) return cached;
  const articles = input.articles ?? (await deps.run?.read());
  if (!articles) throw new Error('a later slice of an article upload was started without its batch');
  const prepared: Prepared[] = [];
  for (const article of articles) prepared.push(await prepareOne(deps, article));
  const batch = { articles: articles.map((a) => ({ ...a, body: '' })), prepared };
  if (key !== undefined) {
    preparedBatches.set(key, batch);
    if (preparedBatches.size > CACHED_BATCHES) preparedBatches.delete(preparedBatches.keys().next().value!);
  }
  return batch;
}

/**
 * Stores each article as its passages (ArticlePassage) and its title (ArticleTitle), both with
 * their embeddings, PASSAGE_GROUP passages per group, for one slice (INGEST_SLICE_MS) at most:
 * then it returns where the next slice starts. An article that fails by itself is in `failed`.
 */
export async function upsertArticles(deps: ArticleDeps, input: ArticleSliceInput): Promise<ArticleSlice> {
  const started = Date.now();
  const sliceMs = deps.sliceMs ?? INGEST_SLICE_MS;
  const batch = await preparedBatch(deps, input);
  const client = await deps.weaviate();
  const collection = client.collections.use(COLLECTIONS.articlePassage).withTenant(input.tenant);
  const titleCollection = client.collections.use(COLLECTIONS.articleTitle).withTenant(input.tenant);
  const failed: FailedItem[] = [];
  const completed: string[] = [];
  const fail = (id: string, error: string) => {
    if (!failed.some((f) => f.id === id)) failed.push({ id, error });
  };
  let cursor = input.from ?? { article: 0, passage: 0 };
  while (cursor.article < batch.articles.length) {
    // The next group: up to PASSAGE_GROUP passages from the cursor on, across articles.
    const units: { article: number; passage: number }[] = [];
    while (cursor.article < batch.articles.length && units.length < PASSAGE_GROUP) {
      const prepared = batch.prepared[cursor.article];
      if ('error' in prepared) {
        fail(batch.articles[cursor.article].articleId, prepared.error);
        cursor = { article: cursor.article + 1, passage: 0 };
        continue;
      }
      units.push(cursor);
      cursor =
        cursor.passage + 1 < prepared.passages.length
          ? { article: cursor.article, passage: cursor.passage + 1 }
          : { article: cursor.article + 1, passage: 0 };
    }
    if (units.length > 0) {
      const done = await storeGroup({ deps, tenant: input.tenant, batch, units, collection, titleCollection, fail });
      completed.push(...done);
    }
    heartbeat({ stored: completed.length });
    if (cursor.article < batch.articles.length && Date.now() - started >= sliceMs)
      return { stored: completed.length, failed, completed, next: cursor };
  }
  if (deps.run) preparedBatches.delete(deps.run.runKey);
  return { stored: completed.length, failed, completed };
}

/** Embeds and stores one group of passages (and the titles of the articles it starts); returns the articles it completed. */
async function storeGroup(o: {
  deps: ArticleDeps;
  tenant: string;
  batch: PreparedBatch;
  units: ArticleCursor[];
  collection: Collection<any, string, any>;
  titleCollection: Collection<any, string, any>;
  fail: (id: string, error: string) => void;
}): Promise<string[]> {
  const entries = o.units.map((u) => ({
    ...u,
    meta: o.batch.articles[u.article],
    prepared: o.batch.prepared[u.article] as PreparedArticle,
  }));
  const texts = entries.map(({ meta, prepared, passage }) => {
    const p = prepared.passages[passage];
    return [meta.title, p.heading, p.text].filter(Boolean).join('\n');
  });
  const titled = entries.filter((e) => e.passage === 0 && e.meta.title.trim());
  const vectors = await o.deps.embedder.embed({
    texts: [...texts, ...titled.map((e) => e.meta.title)],
    inputType: 'passage',
    tenant: o.tenant,
    signal: o.deps.signal,
    onBatch: () => heartbeat(),
  });
  const objects: NewObject[] = entries.map(({ meta, prepared, passage }, i) => {
    const p = prepared.passages[passage];
    return {
      id: objectId(o.tenant, 'article', meta.articleId, passage),
      vectors: vectors[i],
      properties: {
        articleId: meta.articleId,
        passageIndex: passage,
        passageCount: prepared.passages.length,
        title: meta.title,
        heading: p.heading,
        text: p.text,
        url: meta.url,
        language: prepared.language,
        productId: meta.productId ?? '',
        timeOfCreation: meta.timeOfCreation,
        timeLastPublished: meta.timeLastPublished,
      },
    };
  });
  const titles: NewObject[] = titled.map((e, i) => ({
    id: objectId(o.tenant, 'article-title', e.meta.articleId),
    vectors: vectors[texts.length + i],
    properties: { articleId: e.meta.articleId, productId: e.meta.productId ?? '' },
  }));
  // A passage or the title that failed fails its article.
  const failedIds = new Set<string>();
  for (const [i, message] of await insert(o.collection, objects)) {
    failedIds.add(entries[i].meta.articleId);
    o.fail(entries[i].meta.articleId, message);
  }
  for (const [i, message] of await insert(o.titleCollection, titles)) {
    failedIds.add(titled[i].meta.articleId);
    o.fail(titled[i].meta.articleId, message);
  }
  // Articles whose last passage is in this group; their passages left over from a longer earlier version go.
  const last = entries.filter((e) => e.passage === e.prepared.passages.length - 1 && !failedIds.has(e.meta.articleId));
  const stale = last.map((e) =>
    Filters.and(
      o.collection.filter.byProperty('articleId').equal(e.meta.articleId),
      o.collection.filter.byProperty('passageIndex').greaterOrEqual(e.prepared.passages.length),
    ),
  );
  if (stale.length > 0) await o.collection.data.deleteMany(Filters.or(...stale));
  return last.map((e) => e.meta.articleId);
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
