/**
 * Durable uploads: once started, a batch is stored even if the API request that started it has
 * timed out or the worker restarts midway (the activity is retried and overwrites by id).
 */
import type { Article, DeleteArticle } from '../domain/contracts/article';
import type { Case } from '../domain/contracts/case';
import type { IncidentUpload } from '../domain/contracts/incident';
import type { IngestResult } from '../domain/weaviate/ingest';
import { ingestion } from './proxies';
import { notifyTagTrainer, type TagTrainerTiming } from './tag-training';

export async function upsertArticlesWorkflow(input: { tenant: string; articles: Article[] }): Promise<IngestResult> {
  return ingestion.upsertArticles(input);
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
