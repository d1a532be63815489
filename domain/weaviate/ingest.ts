/**
 * Writes articles, cases and incidents of one tenant into Weaviate. Object ids are derived from
 * (tenant, kind, id, passage), so a retried activity or a re-upload overwrites instead of duplicating.
 */
import { Filters, WeaviateClient, generateUuid5 } from 'weaviate-client';
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
import { COLLECTIONS, collectionOf, tenantCollection, type TypedCollection } from './collections';
import type { ArticlePassageProperties, ArticleTitleProperties, SupportCaseProperties } from './properties';
import { timedWeaviate } from '../observability/metrics';

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
  /** The activity's heartbeat (activities/progress.ts); without it (tests, tools) nothing is reported. */
  progress?: Progress;
}

interface NewObject<P> {
  id: string;
  properties: P;
  vectors: number[];
}

/** Inserts objects; per-object errors are returned by index instead of thrown. */
/** What `insert` uses of a collection: its batch insert, typed by the collection's properties `P`. */
interface Inserter<P> {
  data: {
    insertMany(objects: NewObject<P>[]): Promise<{ hasErrors: boolean; errors: Record<number, { message: string }> }>;
  };
}

/**
 * Stores objects, returning each one's error by its index. An object refused because the store
 * could not reach enough of its copies fails the whole call instead, so the activity retries it
 * (ids are derived from the content's ids: a retry overwrites) rather than reporting that
 * object as failed to the client.
 */
async function insert<P>(collection: Inserter<P>, objects: NewObject<P>[]): Promise<Map<number, string>> {
  const errors = new Map<number, string>();
  if (objects.length === 0) return errors;
  const res = await timedWeaviate('ingest', () => collection.data.insertMany(objects));
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
 * A group of passages is embedded and stored together (one heartbeat), and a slice may end after
 * any group. So a group is about one call of the embedding server: at most PASSAGE_GROUP passages
 * and GROUP_CHARS characters of embedded text (the local server's call holds 2,000, its
 * `batchChars`), at least one passage. A slice thus ends at most one call after its deadline, and
 * that call may wait for one call of every other tenant at the server; with groups of 16
 * passages (8 calls and their waits on two busy cores) a slice overran by minutes.
 */
const PASSAGE_GROUP = 16;
const GROUP_CHARS = 2_000;

/**
 * How long one attempt stores passages before it hands the rest of its batch back to the workflow,
 * which schedules the next slice on the ingestion queue. Slots thus turn over every slice, and the
 * server hands each free slot to the tenants in turn (fairness keys), so one tenant's largest
 * articles (a megabyte is about 1,000 passages, minutes of embedding) never hold the slots.
 */
export const INGEST_SLICE_MS = 15_000;

/**
 * Characters of batches (bodies, or their passages once converted) a worker keeps between slices,
 * so a later slice of the run on this worker neither reads the batch back nor converts it again. A
 * tenant's slices come back in turn after one slice of each of its other uploads, so the bound is
 * in characters (about 64 batches of a megabyte), not a few batches a flood would push out.
 */
const CACHED_CHARS = 64_000_000;

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
  sliceMs?: number;
  /** The batch's run (cache key), and how to read the batch when the input leaves it out. */
  run?: { runKey: string; read: () => Promise<Article[]> };
}

type Prepared = PreparedArticle | { error: string };

interface PreparedBatch {
  /** Characters it holds (its bodies when read), for the cache's bound. */
  chars: number;
  /** The articles; an article's body is dropped once it is converted. */
  articles: Article[];
  /**
   * Each article's passages, converted when a slice first reaches it: a slice converts only what it
   * goes on to store, never the whole batch (a batch of a hundred articles is minutes of conversion
   * on two busy cores, done again by every slice that found the batch out of this worker's cache).
   */
  prepared: (Prepared | undefined)[];
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

/** Converts article `i` of the batch (once: kept with the batch for the later slices on this worker). */
async function convert(deps: ArticleDeps, batch: PreparedBatch, i: number): Promise<void> {
  batch.prepared[i] = await prepareOne(deps, batch.articles[i]);
  batch.articles[i] = { ...batch.articles[i], body: '' };
}

/** The batch of this run: this worker's copy, or the input's (the first slice's, or the run's read back). */
async function batchOf(deps: ArticleDeps, input: ArticleSliceInput): Promise<PreparedBatch> {
  const key = deps.run?.runKey;
  const cached = key === undefined ? undefined : preparedBatches.get(key);
  if (cached && key !== undefined) {
    // Most recently used last: the bound drops the batch unused the longest.
    preparedBatches.delete(key);
    preparedBatches.set(key, cached);
    return cached;
  }
  const articles = input.articles ?? (await deps.run?.read());
  if (!articles) throw new Error('a later slice of an article upload was started without its batch');
  const chars = articles.reduce((n, a) => n + a.title.length + a.body.length, 0);
  const batch: PreparedBatch = { chars, articles: [...articles], prepared: articles.map(() => undefined) };
  if (key !== undefined) {
    preparedBatches.set(key, batch);
    let total = 0;
    for (const b of preparedBatches.values()) total += b.chars;
    for (const [k, b] of preparedBatches) {
      if (total <= CACHED_CHARS || k === key) break;
      preparedBatches.delete(k);
      total -= b.chars;
    }
  }
  return batch;
}

/** The embedded text of a passage (what storeGroup sends), for the group's size. */
function embeddedChars(meta: Article, passage: { heading: string; text: string }, first: boolean): number {
  return meta.title.length + passage.heading.length + passage.text.length + (first ? meta.title.length : 0);
}

/**
 * Stores each article as its passages (ArticlePassage) and its title (ArticleTitle), both with
 * their embeddings, PASSAGE_GROUP passages per group, for one slice (INGEST_SLICE_MS) at most:
 * then it returns where the next slice starts. An article that fails by itself is in `failed`.
 */
export async function upsertArticles(deps: ArticleDeps, input: ArticleSliceInput): Promise<ArticleSlice> {
  const started = Date.now();
  const sliceMs = deps.sliceMs ?? INGEST_SLICE_MS;
  const batch = await batchOf(deps, input);
  const client = await deps.weaviate();
  const collection = collectionOf(client, COLLECTIONS.articlePassage).withTenant(input.tenant);
  const titleCollection = collectionOf(client, COLLECTIONS.articleTitle).withTenant(input.tenant);
  const failed: FailedItem[] = [];
  const completed: string[] = [];
  const fail = (id: string, error: string) => {
    if (!failed.some((f) => f.id === id)) failed.push({ id, error });
  };
  const count = batch.articles.length;
  let cursor = input.from ?? { article: 0, passage: 0 };
  const from = cursor;
  let lastGroupMs = 0;
  // Steps: an article's conversion, or a group stored. Once its cursor has moved (a conversion alone
  // is no progress: another worker may take the next slice), a slice ends before a step that its
  // last group's time says would pass the deadline.
  while (cursor.article < count) {
    if (cursor !== from && Date.now() - started + lastGroupMs >= sliceMs)
      return { stored: completed.length, failed, completed, next: cursor };
    if (batch.prepared[cursor.article] === undefined) {
      await convert(deps, batch, cursor.article);
      continue;
    }
    const moved = cursor !== from;
    // The next group: passages from the cursor on, across articles already converted, about one embedding call.
    const units: ArticleCursor[] = [];
    let chars = 0;
    while (cursor.article < count && units.length < PASSAGE_GROUP) {
      const prepared = batch.prepared[cursor.article];
      if (prepared === undefined) break;
      if ('error' in prepared) {
        fail(batch.articles[cursor.article].articleId, prepared.error);
        cursor = { article: cursor.article + 1, passage: 0 };
        continue;
      }
      const size = embeddedChars(
        batch.articles[cursor.article],
        prepared.passages[cursor.passage],
        cursor.passage === 0,
      );
      if (units.length > 0 && chars + size > GROUP_CHARS) break;
      chars += size;
      units.push(cursor);
      cursor =
        cursor.passage + 1 < prepared.passages.length
          ? { article: cursor.article, passage: cursor.passage + 1 }
          : { article: cursor.article + 1, passage: 0 };
    }
    if (units.length > 0) {
      const groupStarted = Date.now();
      // Once the slice has moved, its deadline also ends the group's embedding (a call waiting for others'
      // turns at the server can take long on busy cores): the group is then the next slice's first.
      const deadline = moved ? AbortSignal.timeout(Math.max(0, started + sliceMs - Date.now())) : undefined;
      const signal = deadline ? AbortSignal.any([deadline, ...(deps.signal ? [deps.signal] : [])]) : deps.signal;
      let done: string[];
      try {
        done = await storeGroup({
          deps: { ...deps, signal },
          tenant: input.tenant,
          batch,
          units,
          collection,
          titleCollection,
          fail,
        });
      } catch (err) {
        if (!deadline?.aborted || deps.signal?.aborted) throw err;
        return { stored: completed.length, failed, completed, next: units[0] };
      }
      completed.push(...done);
      lastGroupMs = Date.now() - groupStarted;
    }
    deps.progress?.({ stored: completed.length });
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
  collection: TypedCollection<'ArticlePassage'>;
  titleCollection: TypedCollection<'ArticleTitle'>;
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
    onBatch: () => o.deps.progress?.(),
  });
  const objects: NewObject<ArticlePassageProperties>[] = entries.map(({ meta, prepared, passage }, i) => {
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
  const titles: NewObject<ArticleTitleProperties>[] = titled.map((e, i) => ({
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
    deps.progress?.();
  }
  return { stored: input.articleIds.length, failed: [] };
}

export async function upsertCases(deps: Deps, input: { tenant: string; cases: Case[] }): Promise<IngestResult> {
  const collection = collectionOf(await deps.weaviate(), COLLECTIONS.supportCase).withTenant(input.tenant);
  const failed: FailedItem[] = [];
  let stored = 0;
  for (const group of groups(input.cases)) {
    const texts = group.map((c) => caseText(c).embedding);
    const vectors = await deps.embedder.embed({
      texts,
      inputType: 'passage',
      tenant: input.tenant,
      signal: deps.signal,
      onBatch: () => deps.progress?.({ stored }),
    });
    const objects = group.map((c, i) => ({
      id: objectId(input.tenant, 'case', c.id),
      vectors: vectors[i],
      properties: caseProperties(c),
    }));
    const errors = await insert(collection, objects);
    for (const [i, message] of errors) failed.push({ id: group[i].id, error: message });
    stored += group.length - errors.size;
    deps.progress?.({ stored });
  }
  return { stored, failed };
}

function caseProperties(c: Case): SupportCaseProperties {
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
  const collection = collectionOf(await deps.weaviate(), COLLECTIONS.incident).withTenant(input.tenant);
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
