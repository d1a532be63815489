/**
 * Durable uploads: once started, a batch is stored even if the API request that started it has
 * timed out or the worker restarts midway (the activity is retried and overwrites by id).
 */
import type { Article, DeleteArticle } from '../api/schemas/article';
import type { Case } from '../api/schemas/case';
import type { IncidentUpload } from '../api/schemas/incident';
import type { IngestResult } from '../activities/weaviate/ingest';
import { ingestion } from './proxies';

export async function upsertArticlesWorkflow(input: { tenant: string; articles: Article[] }): Promise<IngestResult> {
  return ingestion.upsertArticles(input);
}

export async function deleteArticlesWorkflow(input: { tenant: string; articles: DeleteArticle[] }): Promise<IngestResult> {
  return ingestion.deleteArticles({ tenant: input.tenant, articleIds: input.articles.map((a) => a.articleId) });
}

export async function upsertCasesWorkflow(input: { tenant: string; cases: Case[] }): Promise<IngestResult> {
  return ingestion.upsertCases(input);
}

export async function upsertIncidentWorkflow(input: { tenant: string; record: IncidentUpload }): Promise<{ id: string }> {
  return ingestion.upsertIncident(input);
}
