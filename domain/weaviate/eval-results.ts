/**
 * Results of batch evaluation in Weaviate (collection EvalResult, one shard per tenant). A result
 * is stored once per tenant and record id: its object id comes from both, and it is inserted, never
 * replaced, so a second grading of the same record is refused by the store and counted. Only
 * redacted text is stored (domain/evaluation/redact.ts).
 */
import { Filters, type WeaviateClient } from 'weaviate-client';
import type { Grading } from '../evaluation/results';
import { COLLECTIONS, tenantCollection } from './collections';
import { objectId } from './ingest';

interface Deps {
  weaviate: () => Promise<WeaviateClient>;
}

export interface EvalResult {
  recordId: string;
  runId: string;
  model: string;
  judge: string;
  useCase: string;
  /** The call's timestamp (epoch ms), or when it was imported when the record had none. */
  loggedAt: number;
  /** The call's latency, or null when the record had none. */
  latencyMs: number | null;
  metadata: Record<string, unknown>;
  messages: { role: string; content: string }[];
  output: string;
  correctness: Grading['correctness'];
  rules: (Grading['rules'][number] & { severity: string; category: string })[];
  /** Placeholders put in by redaction. */
  redactions: number;
  gradedAt: number;
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
  return new Set(found.objects.map((o) => String((o.properties as Record<string, unknown>).recordId)));
}

/** Stores results; a result whose record was stored before is refused and counted as a duplicate. */
export async function insertResults(
  deps: Deps,
  input: { tenant: string; results: EvalResult[] },
): Promise<{ stored: number; duplicates: number }> {
  if (input.results.length === 0) return { stored: 0, duplicates: 0 };
  const collection = (await deps.weaviate()).collections.use(COLLECTIONS.evalResult).withTenant(input.tenant);
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
    })) as any,
  );
  let duplicates = 0;
  for (const err of Object.values(res.errors)) {
    if (/already exists/i.test(err.message)) duplicates += 1;
    else throw new Error(`storing evaluation results failed: ${err.message}`);
  }
  return { stored: input.results.length - Object.keys(res.errors).length, duplicates };
}

/** The properties a report reads (not the messages or the output, most of a result's size). */
const REPORT_PROPERTIES = ['recordId', 'model', 'useCase', 'loggedAt', 'latencyMs', 'metadataJson', 'rulesJson'];
/** Results per page when reading a tenant's results in order. */
const PAGE = 1000;

function toResult(p: Record<string, any>): EvalResult {
  const graded = JSON.parse(p.rulesJson || '{}');
  return {
    recordId: p.recordId,
    runId: p.runId,
    model: p.model,
    judge: p.judge,
    useCase: p.useCase,
    loggedAt: Number(p.loggedAt),
    latencyMs: p.latencyMs !== undefined && Number(p.latencyMs) >= 0 ? Number(p.latencyMs) : null,
    metadata: JSON.parse(p.metadataJson || '{}'),
    messages: JSON.parse(p.messagesJson || '[]'),
    output: p.output,
    correctness: graded.correctness,
    rules: graded.rules ?? [],
    redactions: Number(p.redactions),
    gradedAt: Number(p.gradedAt),
  };
}

/**
 * The tenant's results, a page at a time in object-id order (Weaviate's cursor), optionally of one
 * use case and within [from, to) by loggedAt: memory holds one page whatever the tenant's size.
 * `forReport` reads only what a report needs (ReportRow), not the messages and the output.
 */
export async function* streamResults(
  deps: Deps,
  input: { tenant: string; useCase?: string; from?: number; to?: number; forReport?: boolean },
): AsyncGenerator<EvalResult> {
  const collection = await tenantCollection(await deps.weaviate(), COLLECTIONS.evalResult, input.tenant);
  if (!collection) return;
  let after: string | undefined;
  for (;;) {
    const page = await collection.query.fetchObjects({
      limit: PAGE,
      after,
      ...(input.forReport ? { returnProperties: REPORT_PROPERTIES as any } : {}),
    });
    for (const o of page.objects) {
      const r = toResult(o.properties as Record<string, any>);
      if (input.useCase && r.useCase !== input.useCase) continue;
      if (input.from !== undefined && r.loggedAt < input.from) continue;
      if (input.to !== undefined && r.loggedAt >= input.to) continue;
      yield r;
    }
    if (page.objects.length < PAGE) return;
    after = page.objects[page.objects.length - 1].uuid;
  }
}

/** The tenant's results, all in memory (tests and small tenants; reports use streamResults). */
export async function listResults(
  deps: Deps,
  input: { tenant: string; useCase?: string; from?: number; to?: number },
): Promise<EvalResult[]> {
  const out: EvalResult[] = [];
  for await (const r of streamResults(deps, input)) out.push(r);
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
