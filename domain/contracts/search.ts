/** POST /v1/search/cases and GET /v1/community/search/articles. */
import type { FromSchema } from 'json-schema-to-ts';
import { anyOfRule, epochMillis, id, list, LIMITS, nonEmpty, presentNotBlank, str } from './common';

/** The largest `offset + limit` of case search (spec rule 4). */
export const CASE_SEARCH_WINDOW = 200;

/**
 * "a, b ,c" → ["a", "b", "c"]: the `productId` of a search or an ask may name several products, searched one by
 * one and merged.
 */
export const productList = (productId?: string) =>
  (productId ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);

const pageSize = (description: string) => ({
  type: 'integer' as const,
  minimum: 1,
  maximum: 100,
  description: `${description} 1 to 100.`,
});
const offset = (description: string) => ({
  type: 'integer' as const,
  minimum: 0,
  description: `${description} >= 0.`,
});

export const SearchCasesRequestSchema = {
  $id: 'SearchCasesRequest',
  type: 'object',
  description:
    'Case search. Rules: (1) at least one of `query` or `conversationId` is required (400 otherwise); ' +
    "(2) when both are sent, the ticket's content is combined with the query; (3) when `offset` or `limit` " +
    `is sent, pagination mode applies and \`numResults\` is ignored; (4) in pagination mode ` +
    `\`offset + limit\` must not exceed ${CASE_SEARCH_WINDOW} (400 otherwise); (5) an unknown ` +
    '`conversationId` is a 404. Spam cases are never returned.',
  additionalProperties: false,
  ...anyOfRule('at least one of /query or /conversationId is required', [
    presentNotBlank('query'),
    { type: 'object', required: ['conversationId'] },
  ]),
  properties: {
    /** Search text. */
    query: nonEmpty(LIMITS.query, 'Search text.'),
    /** Ticket whose subject, description and comments are the search text; it is excluded from the results. */
    conversationId: id(
      "Ticket or case id: the ticket's subject, description and comments are used as the search text, and that case is excluded from the results.",
    ),
    /** Product filter; a comma-separated list searches each product and merges. */
    productId: str(
      LIMITS.url,
      'Filter by product. Several products as a comma-separated list, searched per product and merged; whitespace around commas is trimmed.',
    ),
    /** Form filter. */
    formId: str(LIMITS.id, 'Filter by form.'),
    /** Source brand filter. */
    sourceBrandId: str(LIMITS.id, 'Filter by source brand.'),
    /** Cases whose URL matches any entry are excluded. */
    filterUrls: list(str(LIMITS.url, 'A URL.'), 100, 'Cases whose URL matches any entry are excluded.'),
    /** Legacy result count; default 4; ignored in pagination mode. */
    numResults: { ...pageSize('Legacy number of results; ignored in pagination mode.'), default: 4 },
    /** Results to skip; sending it selects pagination mode. */
    offset: offset('Results to skip; sending it selects pagination mode. Default 0 in pagination mode.'),
    /** Page size; sending it selects pagination mode; default 25 there. */
    limit: pageSize('Page size; sending it selects pagination mode. Default 25 in pagination mode.'),
  },
} as const;
export type SearchCasesRequest = FromSchema<typeof SearchCasesRequestSchema>;

export const SearchCasesResponseSchema = {
  $id: 'SearchCasesResponse',
  type: 'object',
  description: 'Matching cases, best first. Fields the case was uploaded without are omitted.',
  required: ['results'],
  additionalProperties: false,
  properties: {
    /** Matching cases, best first. */
    results: {
      type: 'array',
      description: 'Matching cases, best first.',
      items: {
        type: 'object',
        required: ['id', 'score'],
        additionalProperties: false,
        properties: {
          /** Case id. */
          id: { type: 'string', description: 'Case id.' },
          /** Case subject. */
          subject: { type: 'string', description: 'Case subject.' },
          /** Public link to the case. */
          url: { type: 'string', description: 'Public link to the case.' },
          /** Creation time, epoch ms. */
          timeOfCreation: epochMillis('Creation time.'),
          /** Product of the case. */
          productId: { type: 'string', description: 'Product of the case.' },
          /** Relevance; higher is more relevant. */
          score: { type: 'number', description: 'Relevance; higher is more relevant.' },
        },
      },
    },
  },
} as const;
export type SearchCasesResponse = FromSchema<typeof SearchCasesResponseSchema>;

export const SearchArticlesQuerySchema = {
  $id: 'SearchArticlesQuery',
  type: 'object',
  description: 'Query parameters of article search.',
  required: ['text'],
  additionalProperties: false,
  properties: {
    /** Search text. */
    text: nonEmpty(
      LIMITS.urlQuery,
      'Search text. Decision: the limit keeps the request line under the 16 KB a request line and headers may take (431 above), whatever the script.',
    ),
    /** Pagination offset, default 0. */
    offset: { ...offset('Pagination offset.'), default: 0 },
    /** Maximum results, default 25; above 100 is a 400. */
    limit: {
      ...pageSize('Maximum number of results, default 25. Decision: capped at 100 (the spec sets no upper bound).'),
      default: 25,
    },
  },
} as const;
export type SearchArticlesQuery = FromSchema<typeof SearchArticlesQuerySchema>;

export const SearchArticlesResponseSchema = {
  $id: 'SearchArticlesResponse',
  type: 'object',
  description: 'Matching articles, best first.',
  required: ['articles'],
  additionalProperties: false,
  properties: {
    /** Matching articles, best first. */
    articles: {
      type: 'array',
      description: 'Matching articles, best first.',
      items: {
        type: 'object',
        required: ['id', 'title', 'url', 'snippet'],
        additionalProperties: false,
        properties: {
          /** Article id (`articleId` of the upload). */
          id: { type: 'string', description: 'Article id (`articleId` of the upload).' },
          /** Article title. */
          title: { type: 'string', description: 'Article title.' },
          /** Article URL. */
          url: { type: 'string', description: 'Article URL.' },
          /** Passage of the article that matched. */
          snippet: { type: 'string', description: 'Passage of the article that matched.' },
        },
      },
    },
  },
} as const;
export type SearchArticlesResponse = FromSchema<typeof SearchArticlesResponseSchema>;
