/**
 * Results of batch evaluation in Weaviate (collection EvalResult, one shard per tenant). A result
 * is stored once per tenant and record id: its object id comes from both, and it is inserted, never
 * replaced, so a second grading of the same record is refused by the store and counted. Only
 * redacted text is stored (domain/evaluation/redact.ts).
 */
import { Filters, type WeaviateClient } from 'weaviate-client';
import type { EvalResult, ReportRow } from '../evaluation/results';
import { COLLECTIONS, collectionOf, tenantCollection } from './collections';
import { objectId } from './ingest';
import type { EvalResultProperties } from './properties';

interface Deps {
  weaviate: () => Promise<WeaviateClient>;
}

const resultId = (tenant: string, recordId: string) => objectId(tenant, 'eval-result', recordId);

/** Which of `ids` already have a result. */
export async function gradedRecordIds(deps: Deps, input: { tenant: string; ids: string[] }): Promise<Set<string>> {
  const collection = await tenantCollection(await deps.weaviate(), COLLECTIONS.evalResult, input.tenant);
  if (!collection || input.ids.length === 0) return new Set();
  const found = await collection.query.fetchObjects({
    filters: collection.filter.byProperty('recordId').containsAny(input.ids),
    limit: input.ids.length,
    returnProperties: ['recordId'],
  });
  return new Set(found.objects.map((o) => String(o.properties.recordId)));
}

/** Stores results; a result whose record was stored before is refused and counted as a duplicate. */
export async function insertResults(
  deps: Deps,
  input: { tenant: string; results: EvalResult[] },
): Promise<{ stored: number; duplicates: number }> {
  if (input.results.length === 0) return { stored: 0, duplicates: 0 };
  const collection = collectionOf(await deps.weaviate(), COLLECTIONS.evalResult).withTenant(input.tenant);
  const res = await collection.data.insertMany(
    input.results.map((r) => ({
      id: resultId(input.tenant, r.recordId),
      properties: {
        recordId: r.recordId,
        runId: r.runId,
        model: r.model,
        judge: r.judge,
        useCase: r.useCase,
        loggedAt: r.loggedAt,
        latencyMs: r.latencyMs ?? -1,
        metadataJson: JSON.stringify(r.metadata),
        messagesJson: JSON.stringify(r.messages),
        output: r.output,
        verdict: r.correctness.verdict,
        score: r.correctness.score,
        rulesJson: JSON.stringify({ correctness: r.correctness, rules: r.rules }),
        redactions: r.redactions,
        gradedAt: r.gradedAt,
      },
    })),
  );
  let duplicates = 0;
  for (const err of Object.values(res.errors)) {
    if (/already exists/i.test(err.message)) duplicates += 1;
    else throw new Error(`storing evaluation results failed: ${err.message}`);
  }
  return { stored: input.results.length - Object.keys(res.errors).length, duplicates };
}

/** The properties a report reads (not the messages or the output, most of a result's size). */
const REPORT_PROPERTIES = [
  'recordId',
  'model',
  'useCase',
  'loggedAt',
  'latencyMs',
  'metadataJson',
  'rulesJson',
] as const satisfies (keyof EvalResultProperties)[];

/** What a read of results returns: the properties it asked for (a report's), or all of them. */
type ReadProperties = Pick<EvalResultProperties, (typeof REPORT_PROPERTIES)[number]>;
/** Results per page when reading a tenant's results in order. */
const PAGE = 1000;

function toReportRow(p: ReadProperties): ReportRow {
  const graded = JSON.parse(p.rulesJson || '{}');
  return {
    recordId: p.recordId,
    model: p.model,
    useCase: p.useCase,
    loggedAt: Number(p.loggedAt),
    latencyMs: Number(p.latencyMs) >= 0 ? Number(p.latencyMs) : null,
    metadata: JSON.parse(p.metadataJson || '{}'),
    correctness: graded.correctness,
    rules: graded.rules ?? [],
  };
}

function toResult(p: EvalResultProperties): EvalResult {
  return {
    ...toReportRow(p),
    runId: p.runId,
    judge: p.judge,
    messages: JSON.parse(p.messagesJson || '[]'),
    output: p.output,
    redactions: Number(p.redactions),
    gradedAt: Number(p.gradedAt),
  };
}

interface Window {
  tenant: string;
  useCase?: string;
  /** Epoch ms of loggedAt, inclusive / exclusive. */
  from?: number;
  to?: number;
}

/**
 * The tenant's results in object-id order (Weaviate's cursor), a page at a time, read by `read`
 * and kept when in the window: memory holds one page whatever the tenant's size. With `properties`,
 * only those are fetched, and `read` must read no others.
 */
async function* pages<T extends Pick<ReportRow, 'useCase' | 'loggedAt'>>(
  deps: Deps,
  input: Window,
  o: { read: (properties: EvalResultProperties) => T; properties?: readonly (keyof EvalResultProperties)[] },
): AsyncGenerator<T> {
  const collection = await tenantCollection(await deps.weaviate(), COLLECTIONS.evalResult, input.tenant);
  if (!collection) return;
  let after: string | undefined;
  for (;;) {
    const page = await collection.query.fetchObjects({
      limit: PAGE,
      after,
      ...(o.properties ? { returnProperties: [...o.properties] } : {}),
    });
    for (const object of page.objects) {
      const r = o.read(object.properties);
      if (input.useCase && r.useCase !== input.useCase) continue;
      if (input.from !== undefined && r.loggedAt < input.from) continue;
      if (input.to !== undefined && r.loggedAt >= input.to) continue;
      yield r;
    }
    if (page.objects.length < PAGE) return;
    after = page.objects[page.objects.length - 1].uuid;
  }
}

/** What a report reads of the tenant's results (not their messages and output), a page at a time. */
export const streamReportRows = (deps: Deps, input: Window) =>
  pages(deps, input, { read: toReportRow, properties: REPORT_PROPERTIES });

/** The tenant's results, all in memory (tests and small tenants; reports use streamReportRows). */
export async function listResults(deps: Deps, input: Window): Promise<EvalResult[]> {
  const out: EvalResult[] = [];
  for await (const r of pages(deps, input, { read: toResult })) out.push(r);
  return out;
}

/** Tenants that have stored results. */
export async function evalTenants(deps: Deps): Promise<string[]> {
  const tenants = await (await deps.weaviate()).collections.use(COLLECTIONS.evalResult).tenants.get();
  return Object.keys(tenants).sort();
}

/** The use cases a tenant's results were graded under. */
export async function resultUseCases(deps: Deps, input: { tenant: string }): Promise<string[]> {
  const collection = await tenantCollection(await deps.weaviate(), COLLECTIONS.evalResult, input.tenant);
  if (!collection) return [];
  const groups = await collection.aggregate.groupBy.overAll({ groupBy: { property: 'useCase', limit: 10_000 } });
  return groups.map((g) => String(g.groupedBy.value)).sort();
}

/** Deletes a tenant's results of one use case logged before `before` (epoch ms). */
export async function deleteResultsBefore(
  deps: Deps,
  input: { tenant: string; useCase: string; before: number },
): Promise<number> {
  const collection = await tenantCollection(await deps.weaviate(), COLLECTIONS.evalResult, input.tenant);
  if (!collection) return 0;
  const res = await collection.data.deleteMany(
    Filters.and(
      collection.filter.byProperty('useCase').equal(input.useCase),
      collection.filter.byProperty('loggedAt').lessThan(input.before),
    ),
  );
  return res.successful;
}
