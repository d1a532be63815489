/**
 * Tag models in Weaviate (collection TagModel, per tenant), and the cases they are trained on.
 *
 * A model is stored as chunks of its JSON (weights as base64 float32) under its version (the
 * training time), then a head object is pointed at that version, then older chunks are deleted:
 * a reader sees the old model or the new one, never a mix. Readers keep models in memory and
 * look at the head again every HEAD_CHECK_MS.
 */
import { Filters, type WeaviateClient } from 'weaviate-client';
import type { TagExample, TagModel } from '../tags/model';
import { caseText } from '../text/records';
import { COLLECTIONS, collectionOf, tenantCollection, vectorOf } from './collections';
import { objectId } from './ingest';

interface Deps {
  weaviate: () => Promise<WeaviateClient>;
}

/** Characters per stored chunk (well under Weaviate's message limits). */
const CHUNK_CHARS = 2_000_000;
/** How long a reader trusts the model it holds before it looks at the head again. */
export const HEAD_CHECK_MS = 10_000;

const headId = (tenant: string) => objectId(tenant, 'tag-model', 'head');
const chunkId = (tenant: string, version: number, i: number) => objectId(tenant, 'tag-model', version, i);

const f32 = (a: Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
const fromF32 = (s: string) => {
  const b = Buffer.from(s, 'base64');
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
};

export function serializeTagModel(m: TagModel): string {
  const { softmax: s } = m;
  return JSON.stringify({
    ...m,
    mean: f32(m.mean),
    scale: f32(m.scale),
    softmax: { ...s, denseWeights: f32(s.denseWeights), sparseWeights: f32(s.sparseWeights), bias: f32(s.bias) },
  });
}

export function parseTagModel(json: string): TagModel {
  const m = JSON.parse(json);
  const s = m.softmax;
  return {
    ...m,
    mean: fromF32(m.mean),
    scale: fromF32(m.scale),
    softmax: {
      ...s,
      denseWeights: fromF32(s.denseWeights),
      sparseWeights: fromF32(s.sparseWeights),
      bias: fromF32(s.bias),
    },
  };
}

export async function storeTagModel(
  deps: Deps,
  input: { tenant: string; model: TagModel },
): Promise<{ version: number }> {
  const collection = collectionOf(await deps.weaviate(), COLLECTIONS.tagModel).withTenant(input.tenant);
  const version = input.model.trainedAt;
  const json = serializeTagModel(input.model);
  const chunkCount = Math.ceil(json.length / CHUNK_CHARS);
  for (let i = 0; i < chunkCount; i++) {
    const data = json.slice(i * CHUNK_CHARS, (i + 1) * CHUNK_CHARS);
    await collection.data
      .insert({
        id: chunkId(input.tenant, version, i),
        properties: { kind: 'chunk', version, chunkIndex: i, chunkCount, data },
      })
      .catch(async (err) => {
        // A retried activity finds its own chunk already there: replace it.
        await collection.data
          .replace({
            id: chunkId(input.tenant, version, i),
            properties: { kind: 'chunk', version, chunkIndex: i, chunkCount, data },
          })
          .catch(() => {
            throw err;
          });
      });
  }
  const head = { id: headId(input.tenant), properties: { kind: 'head', version, chunkIndex: 0, chunkCount, data: '' } };
  if (await collection.data.exists(head.id)) await collection.data.replace(head);
  else await collection.data.insert(head);
  await collection.data.deleteMany(
    Filters.and(
      collection.filter.byProperty('kind').equal('chunk'),
      collection.filter.byProperty('version').notEqual(version),
    ),
  );
  return { version };
}

/** The version of the tenant's current model, or undefined when it has none. */
export async function tagModelVersion(
  deps: Deps,
  input: { tenant: string },
): Promise<{ version: number; chunkCount: number } | undefined> {
  const collection = await tenantCollection(await deps.weaviate(), COLLECTIONS.tagModel, input.tenant);
  const head = await collection?.query.fetchObjectById(headId(input.tenant), {
    returnProperties: ['version', 'chunkCount'],
  });
  if (!head) return undefined;
  const p = head.properties;
  return { version: Number(p.version), chunkCount: Number(p.chunkCount) };
}

export async function loadTagModel(
  deps: Deps,
  input: { tenant: string; version: number; chunkCount: number },
): Promise<TagModel | undefined> {
  const collection = await tenantCollection(await deps.weaviate(), COLLECTIONS.tagModel, input.tenant);
  if (!collection) return undefined;
  const parts: string[] = [];
  for (let i = 0; i < input.chunkCount; i++) {
    const chunk = await collection.query.fetchObjectById(chunkId(input.tenant, input.version, i), {
      returnProperties: ['data'],
    });
    // Replaced by a newer version while we read: the caller reads the head again next time.
    if (!chunk) return undefined;
    parts.push(String(chunk.properties.data));
  }
  return parseTagModel(parts.join(''));
}

/**
 * Tag models in memory, per tenant, for the API process: a model is read from Weaviate when its
 * head names a version not held yet; the head is read at most every HEAD_CHECK_MS per tenant.
 */
export class TagModelCache<T> {
  private readonly held = new Map<string, { version?: number; value?: T; checkedAt: number }>();
  private readonly loading = new Map<string, Promise<T | undefined>>();

  constructor(private readonly o: { build: (model: TagModel) => T; maxTenants?: number; now?: () => number }) {}

  /** The tenant's current model (built), or undefined when it has none. */
  get(deps: Deps, tenant: string): Promise<T | undefined> {
    const now = (this.o.now ?? Date.now)();
    const held = this.held.get(tenant);
    if (held && now - held.checkedAt < HEAD_CHECK_MS) return Promise.resolve(held.value);
    let pending = this.loading.get(tenant);
    if (!pending) {
      pending = this.refresh(deps, tenant, now).finally(() => this.loading.delete(tenant));
      this.loading.set(tenant, pending);
    }
    return pending;
  }

  private async refresh(deps: Deps, tenant: string, now: number): Promise<T | undefined> {
    const head = await tagModelVersion(deps, { tenant });
    const held = this.held.get(tenant);
    if (held && held.version === head?.version) {
      held.checkedAt = now;
      return held.value;
    }
    const model = head ? await loadTagModel(deps, { tenant, ...head }) : undefined;
    const value = model ? this.o.build(model) : undefined;
    if (this.held.size >= (this.o.maxTenants ?? 1000)) this.held.delete(this.held.keys().next().value!);
    this.held.set(tenant, { version: model ? head!.version : undefined, value, checkedAt: now });
    return value;
  }
}

/** Every tagged case of the tenant that is not spam, with its vector and public text. */
export async function tagTrainingCases(
  deps: Deps & { onPage?: (read: number) => void },
  input: { tenant: string },
): Promise<{ examples: TagExample[]; spam: number }> {
  const collection = await tenantCollection(await deps.weaviate(), COLLECTIONS.supportCase, input.tenant);
  const examples: TagExample[] = [];
  let spam = 0;
  if (!collection) return { examples, spam };
  let read = 0;
  for await (const o of collection.iterator({
    includeVector: true,
    returnProperties: ['subject', 'description', 'comments', 'tags', 'spam'],
  })) {
    if (++read % 1000 === 0) deps.onPage?.(read);
    const p = o.properties;
    const tags = (p.tags ?? []).filter((t: unknown) => typeof t === 'string' && t.trim() !== '');
    if (tags.length === 0) continue;
    if (p.spam) {
      spam++;
      continue;
    }
    const v = vectorOf(o);
    if (!v) continue;
    examples.push({
      vector: v,
      text: caseText({
        subject: p.subject,
        description: p.description,
        comments: p.comments ? [{ comment: p.comments }] : [],
      }).embedding,
      tags,
    });
  }
  return { examples, spam };
}
