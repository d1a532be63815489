/**
 * API keys and business ids, kept in Weaviate so that every API instance sees the same keys.
 * Only a SHA-256 hash of a key is stored; the key itself is shown once, when it is created.
 */
import { createHash, randomBytes } from 'node:crypto';
import { WeaviateClient, generateUuid5 } from 'weaviate-client';
import { COLLECTIONS, collectionOf, TENANT_PATTERN } from './collections';
import type { ApiKeyProperties } from './properties';
import { timedWeaviate } from '../observability/metrics';

/** A key as stored, but its hash; `revokedAt` is 0 while the key is valid. */
export type ApiKeyRecord = Omit<ApiKeyProperties, 'keyHash'>;

const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');
const idForHash = (hash: string) => generateUuid5(`api-key:${hash}`);

export function parseTenant(tenant: string): string {
  if (!TENANT_PATTERN.test(tenant))
    throw new Error(`tenant must match ${TENANT_PATTERN} (letters, digits, _ and -, at most 64)`);
  return tenant;
}

export class ApiKeyStore {
  constructor(private readonly weaviate: () => Promise<WeaviateClient>) {}

  private async keys() {
    return collectionOf(await this.weaviate(), COLLECTIONS.apiKey);
  }

  private async businesses() {
    return collectionOf(await this.weaviate(), COLLECTIONS.business);
  }

  async create(input: {
    tenant: string;
    scopes: string[];
    name?: string;
  }): Promise<{ key: string; record: ApiKeyRecord }> {
    const keyId = randomBytes(4).toString('hex');
    const key = `sai_${keyId}_${randomBytes(24).toString('base64url')}`;
    const keyHash = hashKey(key);
    const record: ApiKeyRecord = {
      keyId,
      tenant: parseTenant(input.tenant),
      scopes: input.scopes,
      name: input.name ?? '',
      createdAt: Date.now(),
      revokedAt: 0,
    };
    await (await this.keys()).data.insert({ id: idForHash(keyHash), properties: { ...record, keyHash } });
    return { key, record };
  }

  /** The record of a valid (not revoked) key, or undefined. */
  async verify(key: string): Promise<ApiKeyRecord | undefined> {
    const keys = await this.keys();
    const obj = await timedWeaviate('keys', () => keys.query.fetchObjectById(idForHash(hashKey(key))));
    if (!obj) return undefined;
    const record = toRecord(obj.properties);
    return record.revokedAt ? undefined : record;
  }

  async list(tenant?: string): Promise<ApiKeyRecord[]> {
    const keys = await this.keys();
    const res = await keys.query.fetchObjects({
      limit: 10_000,
      filters: tenant ? keys.filter.byProperty('tenant').equal(tenant) : undefined,
    });
    return res.objects.map((o) => toRecord(o.properties)).sort((a, b) => a.createdAt - b.createdAt);
  }

  /** Revokes by keyId; returns false when no such key exists. */
  async revoke(keyId: string): Promise<boolean> {
    const keys = await this.keys();
    const res = await keys.query.fetchObjects({ filters: keys.filter.byProperty('keyId').equal(keyId), limit: 1 });
    const obj = res.objects[0];
    if (!obj) return false;
    await keys.data.update({ id: obj.uuid, properties: { revokedAt: Date.now() } });
    return true;
  }

  async addBusiness(input: { businessId: string; tenant: string }): Promise<void> {
    await (
      await this.businesses()
    ).data
      .insert({
        id: generateUuid5(`business:${input.businessId}`),
        properties: { businessId: input.businessId, tenant: parseTenant(input.tenant) },
      })
      .catch(async (err) => {
        // Re-adding the same business id moves it to the given tenant.
        if (!/already exists/i.test(String(err?.message))) throw err;
        await (
          await this.businesses()
        ).data.replace({
          id: generateUuid5(`business:${input.businessId}`),
          properties: { businessId: input.businessId, tenant: input.tenant },
        });
      });
  }

  /** The tenant a business id belongs to. A tenant's own name is always one of its business ids. */
  async businessTenant(businessId: string): Promise<string | undefined> {
    const obj = await (await this.businesses()).query.fetchObjectById(generateUuid5(`business:${businessId}`));
    return obj ? String(obj.properties.tenant) : undefined;
  }
}

/** A stored key as a record; a property absent from an older object reads as its default. */
function toRecord(p: Partial<ApiKeyProperties>): ApiKeyRecord {
  return {
    keyId: String(p.keyId),
    tenant: String(p.tenant),
    scopes: p.scopes ?? [],
    name: String(p.name ?? ''),
    createdAt: Number(p.createdAt),
    revokedAt: Number(p.revokedAt ?? 0),
  };
}
