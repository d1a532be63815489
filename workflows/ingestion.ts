/**
 * Durable uploads: once started, a batch is stored even if the API request that started it has
 * timed out or the worker restarts midway (the activity is retried and overwrites by id).
 */
import type { Article, DeleteArticle } from '../domain/contracts/article';
import type { Case } from '../domain/contracts/case';
import type { IncidentUpload } from '../domain/contracts/incident';
import type { ArticleSlice, IngestResult } from '../domain/weaviate/ingest';
import { ingestion } from './proxies';
import { notifyTagTrainer, type TagTrainerTiming } from './tag-training';

/**
 * Stores a batch of articles in slices (domain/weaviate/ingest.ts): each activity stores passages
 * for INGEST_SLICE_MS at most and says where the next starts, so the ingestion slots turn over and
 * go to the tenants in turn. The first slice carries the batch; later ones read it from this run's
 * input, so the history holds the articles twice at most, whatever their size.
 */
export async function upsertArticlesWorkflow(input: { tenant: string; articles: Article[] }): Promise<IngestResult> {
  const slices: ArticleSlice[] = [await ingestion.upsertArticles({ tenant: input.tenant, articles: input.articles })];
  for (let next = slices[0].next; next; next = slices[slices.length - 1].next)
    slices.push(await ingestion.upsertArticles({ tenant: input.tenant, from: next }));
  return mergeSlices(slices);
}

/** One result for the slices: an article is stored when its last passage was and no slice failed it. */
function mergeSlices(slices: ArticleSlice[]): IngestResult {
  const failed: IngestResult['failed'] = [];
  for (const f of slices.flatMap((s) => s.failed)) if (!failed.some((g) => g.id === f.id)) failed.push(f);
  // A slice of an activity from before slicing reports only its count.
  if (slices.some((s) => s.completed === undefined))
    return { stored: slices.reduce((n, s) => n + s.stored, 0), failed };
  const failedIds = new Set(failed.map((f) => f.id));
  return { stored: slices.flatMap((s) => s.completed ?? []).filter((id) => !failedIds.has(id)).length, failed };
}

export async function deleteArticlesWorkflow(input: {
  tenant: string;
  articles: DeleteArticle[];
}): Promise<IngestResult> {
  return ingestion.deleteArticles({ tenant: input.tenant, articleIds: input.articles.map((a) => a.articleId) });
}

/** Stores cases, then tells the tenant's tag trainer (workflows/tag-training.ts) that they changed. */
export async function upsertCasesWorkflow(input: {
  tenant: string;
  cases: Case[];
  tagTraining?: Partial<TagTrainerTiming>;
}): Promise<IngestResult> {
  const result = await ingestion.upsertCases({ tenant: input.tenant, cases: input.cases });
  if (result.stored > 0 && input.cases.some((c) => (c.tags ?? []).length > 0))
    await notifyTagTrainer({ tenant: input.tenant, timing: input.tagTraining });
  return result;
}

export async function upsertIncidentWorkflow(input: {
  tenant: string;
  record: IncidentUpload;
}): Promise<{ id: string }> {
  return ingestion.upsertIncident(input);
}
