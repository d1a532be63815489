/**
 * Chat-model tokens, shared by every process through Weaviate (collection TokenUsage): each
 * process stores its own running totals per UTC day, tenant, capability and model, replacing
 * them as they grow (one object per key and process, its id derived from both), so no two
 * processes ever write the same object and a retried write changes nothing. Summing every
 * process's objects gives what a tenant spent; the operators' command (`npm run tokens`) and the
 * per-tenant daily budget (api/middlewares/token-budget.ts) read them.
 */
import { Filters, generateUuid5, type WeaviateClient } from 'weaviate-client';
import { COLLECTIONS, collectionOf } from './collections';

/** One key's tokens: the prompt's, the replies', and the calls that spent them. */
export interface TokenTotals {
  promptTokens: number;
  completionTokens: number;
  calls: number;
}

export interface TokenUsageKey {
  /** The UTC day, as days since 1970-01-01 (`utcDay`). */
  day: number;
  tenant: string;
  capability: string;
  model: string;
}

export type TokenUsageRow = TokenUsageKey & TokenTotals;

/** The UTC day of `ms` (epoch ms), as days since 1970-01-01. */
export const utcDay = (ms: number) => Math.floor(ms / 86_400_000);

/** A day number as YYYY-MM-DD. */
export const dayName = (day: number) => new Date(day * 86_400_000).toISOString().slice(0, 10);

/**
 * Rows read at most per day: tenants × capabilities × models × processes. Weaviate's filtered
 * queries page with offsets up to its QUERY_MAXIMUM_RESULTS (10,000 by default), no further.
 */
const MAX_ROWS_PER_DAY = 10_000;

export class WeaviateTokenUsage {
  constructor(private readonly weaviate: () => Promise<WeaviateClient>) {}

  private async collection() {
    return collectionOf(await this.weaviate(), COLLECTIONS.tokenUsage);
  }

  /** Stores this process's totals of each row, replacing what it stored for the same key. */
  async publish(o: { instance: string; rows: TokenUsageRow[] }): Promise<void> {
    if (o.rows.length === 0) return;
    const objects = o.rows.map((r) => ({
      id: generateUuid5(JSON.stringify(['tokens', o.instance, r.day, r.tenant, r.capability, r.model])),
      properties: { ...r, instance: o.instance },
    }));
    const res = await (await this.collection()).data.insertMany(objects);
    if (res.hasErrors) throw new Error(`storing ${Object.keys(res.errors).length} token totals failed`);
  }

  /** Every process's rows of `day`, optionally of one tenant, except those of `exceptInstance`: one row per process and key, to be summed. */
  async rows(o: { day: number; tenant?: string; exceptInstance?: string }): Promise<TokenUsageRow[]> {
    const collection = await this.collection();
    const f = collection.filter;
    const res = await collection.query.fetchObjects({
      filters: Filters.and(
        f.byProperty('day').equal(o.day),
        ...(o.tenant === undefined ? [] : [f.byProperty('tenant').equal(o.tenant)]),
        ...(o.exceptInstance === undefined ? [] : [f.byProperty('instance').notEqual(o.exceptInstance)]),
      ),
      limit: MAX_ROWS_PER_DAY,
    });
    return res.objects.map(({ properties: p }) => ({
      day: Number(p.day),
      tenant: String(p.tenant),
      capability: String(p.capability),
      model: String(p.model),
      promptTokens: Number(p.promptTokens),
      completionTokens: Number(p.completionTokens),
      calls: Number(p.calls),
    }));
  }
}

/** Days a report may cover at most: a query per day. */
export const MAX_REPORT_DAYS = 366;

/**
 * The tokens of days `from` to `to` (day numbers, inclusive), optionally of one tenant: every
 * process's rows summed per day, tenant, capability and model, in that order.
 */
export async function tokenReport(
  store: Pick<WeaviateTokenUsage, 'rows'>,
  o: { from: number; to: number; tenant?: string },
): Promise<TokenUsageRow[]> {
  if (o.to < o.from || o.to - o.from >= MAX_REPORT_DAYS)
    throw new Error(`a report covers 1 to ${MAX_REPORT_DAYS} days, from its first to its last`);
  const sums = new Map<string, TokenUsageRow>();
  for (let day = o.from; day <= o.to; day++) {
    for (const r of await store.rows({ day, tenant: o.tenant })) {
      const key = JSON.stringify([r.day, r.tenant, r.capability, r.model]);
      const sum = sums.get(key);
      if (!sum) sums.set(key, { ...r });
      else {
        sum.promptTokens += r.promptTokens;
        sum.completionTokens += r.completionTokens;
        sum.calls += r.calls;
      }
    }
  }
  const order = (r: TokenUsageRow) => [String(r.day).padStart(8, '0'), r.tenant, r.capability, r.model].join('\u0000');
  return [...sums.values()].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
}
