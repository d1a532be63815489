/** POST /v1/search/cases and GET /v1/community/search/articles: reads in the API process (read-path.ts). */
import * as retrieve from '../../domain/weaviate/retrieve';
import { OPERATIONS } from '../../workflows/constants';
import { badRequest } from '../errors';
import { requireBusiness } from '../middlewares/auth';
import { presentArticleHit, presentCaseHit } from '../presenters/search';
import { operation } from '../schemas/operations';
import { CASE_SEARCH_WINDOW, productList, type SearchCasesRequest } from '../../domain/contracts/search';
import { guard } from './guard';
import { readRoute } from './read-route';
import type { RouteModule } from './types';

/** The spec's rules 1, 3 and 4: what to search for and which window of results to return. */
export function caseSearchWindow(
  body: Pick<SearchCasesRequest, 'query' | 'conversationId' | 'offset' | 'limit'> & { numResults?: number },
): { offset: number; limit: number } {
  if (!body.query?.trim() && !body.conversationId)
    throw badRequest('at least one of /query or /conversationId is required');
  const paginated = body.offset !== undefined || body.limit !== undefined;
  if (!paginated) return { offset: 0, limit: body.numResults ?? 4 };
  const offset = body.offset ?? 0;
  const limit = body.limit ?? 25;
  if (offset + limit > CASE_SEARCH_WINDOW)
    throw badRequest(`/offset + /limit must not exceed ${CASE_SEARCH_WINDOW} (got ${offset + limit})`);
  return { offset, limit };
}

export const searchRoutes: RouteModule = (router, deps) => {
  const cases = operation('searchCases');
  router.post(
    cases.path,
    guard(deps, cases, 'search'),
    readRoute(deps, {
      operationId: 'searchCases',
      name: 'searchCases',
      operation: OPERATIONS.searchCases,
      prepare: ({ body, tenant }) => ({
        tenant,
        query: body.query?.trim() || undefined,
        conversationId: body.conversationId,
        productIds: productList(body.productId),
        formId: body.formId,
        sourceBrandId: body.sourceBrandId,
        filterUrls: body.filterUrls ?? [],
        ...caseSearchWindow(body),
      }),
      read: (d, input) => retrieve.searchCases(d, input),
      respond: (hits) => ({ results: hits.map(presentCaseHit) }),
    }),
  );

  const articles = operation('searchArticles');
  router.get(
    articles.path,
    guard(deps, articles, 'search', requireBusiness(deps.verifier)),
    readRoute(deps, {
      operationId: 'searchArticles',
      name: 'searchArticles',
      operation: OPERATIONS.searchArticles,
      prepare: ({ query, tenant }) => ({
        tenant,
        text: query.text,
        offset: query.offset ?? 0,
        limit: query.limit ?? 25,
      }),
      read: (d, input) => retrieve.searchArticles(d, input),
      respond: (hits) => ({ articles: hits.map(presentArticleHit) }),
    }),
  );
};
