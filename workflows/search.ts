/**
 * Searches run as short workflows so their timeouts and retries follow the same rules as every
 * other dependency call, and operators see them per tenant in the Web UI.
 */
import type { ArticleHit, CaseHit, SearchCasesInput } from '../activities/weaviate/retrieve';
import { query } from './proxies';

export async function searchCasesWorkflow(input: SearchCasesInput): Promise<CaseHit[]> {
  return query.searchCases(input);
}

export async function searchArticlesWorkflow(input: { tenant: string; text: string; offset: number; limit: number }): Promise<ArticleHit[]> {
  return query.searchArticles(input);
}
