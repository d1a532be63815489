/**
 * Request counts per rate-limit window, shared by every API instance through Weaviate: each
 * instance publishes its own counts and reads the others', so a limit holds across instances.
 */
import { Filters, WeaviateClient, generateUuid5 } from 'weaviate-client';
import { COLLECTIONS, collectionOf } from './collections';

/** What a rate limiter needs from a shared store (api/rate-limiter.ts). */
export interface RateCountStore {
  /** Stores this instance's counts for `window`, replacing what it stored before. */
  publish(o: { instance: string; window: number; counts: Map<string, number> }): Promise<void>;
  /** The sum of the other instances' counts for `window`, per subject. */
  othersCounts(o: { instance: string; window: number; subjects: string[] }): Promise<Map<string, number>>;
  /** Deletes the counts of windows before `window`. */
  prune(window: number): Promise<void>;
}

export class WeaviateRateCounts implements RateCountStore {
  constructor(private readonly weaviate: () => Promise<WeaviateClient>) {}

  private async counts() {
    return collectionOf(await this.weaviate(), COLLECTIONS.rateCount);
  }

  async publish(o: { instance: string; window: number; counts: Map<string, number> }): Promise<void> {
    const objects = [...o.counts].map(([subject, count]) => ({
      id: generateUuid5(`rate:${o.instance}:${o.window}:${subject}`),
      properties: { subject, window: o.window, instance: o.instance, count },
    }));
    if (objects.length === 0) return;
    const res = await (await this.counts()).data.insertMany(objects);
    if (res.hasErrors) throw new Error(`storing ${Object.keys(res.errors).length} rate counts failed`);
  }

  async othersCounts(o: { instance: string; window: number; subjects: string[] }): Promise<Map<string, number>> {
    const totals = new Map<string, number>();
    if (o.subjects.length === 0) return totals;
    const counts = await this.counts();
    const f = counts.filter;
    const res = await counts.query.fetchObjects({
      filters: Filters.and(
        f.byProperty('window').equal(o.window),
        f.byProperty('subject').containsAny(o.subjects),
        f.byProperty('instance').notEqual(o.instance),
      ),
      limit: 10_000,
      returnProperties: ['subject', 'count'],
    });
    for (const { properties: p } of res.objects)
      totals.set(String(p.subject), (totals.get(String(p.subject)) ?? 0) + Number(p.count));
    return totals;
  }

  async prune(window: number): Promise<void> {
    const counts = await this.counts();
    await counts.data.deleteMany(counts.filter.byProperty('window').lessThan(window));
  }
}
