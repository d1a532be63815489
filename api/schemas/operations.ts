/**
 * The single table of the API's twelve operations. Routes take method, path, scope and schemas from
 * here (`validate(operation)`), and `openapi.ts` builds the served document from it, so the two
 * cannot drift apart.
 */
import type { AnySchemaObject } from 'ajv';
import type { ErrorStatus } from '../errors';
import type { Scope } from '../scopes';
import * as article from '../../domain/contracts/article';
import * as ask from '../../domain/contracts/ask';
import * as caseSchemas from '../../domain/contracts/case';
import * as common from '../../domain/contracts/common';
import * as evaluation from '../../domain/contracts/evaluation';
import * as feedback from '../../domain/contracts/feedback';
import * as incident from '../../domain/contracts/incident';
import * as search from '../../domain/contracts/search';
import * as sentiment from '../../domain/contracts/sentiment';
import * as summary from '../../domain/contracts/summary';
import * as tag from '../../domain/contracts/tag';
import * as upload from '../../domain/contracts/upload';
import { namedSchemas } from '../../domain/contracts/named-schemas';

/** Every schema with an `$id`: registered with Ajv so `$ref`s resolve, and the OpenAPI components. */
export { namedSchemas };

/** A request or response header of an operation. */
export interface HeaderSpec {
  /** Canonical spelling, e.g. `X-Business-Id`; the key of `ctx.state.input.headers`. */
  name: string;
  required: boolean;
  schema: AnySchemaObject;
  description: string;
}

export interface Operation {
  operationId: string;
  method: 'GET' | 'POST' | 'DELETE';
  /** Koa-style path, e.g. `/v1/assistant/ask`. */
  path: string;
  /** The API-key scope the operation requires. */
  scope: Scope;
  /** OpenAPI tag (group). */
  tag: string;
  summary: string;
  description: string;
  /** The documented request body schema. */
  body?: AnySchemaObject;
  /**
   * What `validate()` checks instead of `body`: for batch uploads the envelope whose items are only
   * `{type: 'object'}`; the handler checks each item with `checkUploadItems`.
   */
  bodyEnvelope?: AnySchemaObject;
  /** Query parameters as one object schema (validated with type coercion). */
  query?: AnySchemaObject;
  headers?: readonly HeaderSpec[];
  success: { status: 200 | 201; description: string; schema: AnySchemaObject; headers?: readonly HeaderSpec[] };
  /** Every error status the operation may answer, ascending. */
  errors: readonly ErrorStatus[];
  /** The subset of `errors` the spec lists; the rest are our additions. */
  specErrors: readonly ErrorStatus[];
  /** Operation-specific meaning of an error status, added to its generic description. */
  errorNotes?: Partial<Record<ErrorStatus, string>>;
}

/** A header whose description is its schema's description. */
const header = (name: string, schema: AnySchemaObject & { description: string }, required = false): HeaderSpec => ({
  name,
  required,
  schema,
  description: schema.description,
});

const LANGUAGE = header(
  'X-Language-Iso-Code',
  common.languageCode('Language of the request and answer. When absent, the language is detected automatically.'),
);
const chatIdentifier = (description: string) => ({
  type: 'string',
  format: 'uuid',
  maxLength: 36,
  description:
    'Chat session (uuid). Send the value of an earlier answer to keep continuity: follow-up questions are ' +
    `answered with the earlier turns as context. ${description}`,
});
const CHAT = header('Chat-Identifier', chatIdentifier('When absent, a new session is created.'));
const BUSINESS = header(
  'X-Business-Id',
  common.id(
    "Business identifier of the customer; must name a business of the API key's tenant (403 otherwise). Missing: 400.",
  ),
  true,
);
const TIMEOUT = header('Request-Timeout', {
  type: 'number',
  exclusiveMinimum: 0,
  description:
    "Addition: this request's deadline in seconds (> 0, fractions allowed). It can only shorten the endpoint's " +
    'default deadline; when it passes the answer is 408 (uploads still run to completion).',
});

/** Statuses the spec lists for ask, summary, feedback, tag and sentiment. */
const CONVERSATION_ERRORS: ErrorStatus[] = [400, 401, 408, 429, 500, 504];
/** Statuses the spec lists for the data endpoints: uploads, deletion, searches. */
const DATA_ERRORS: ErrorStatus[] = [400, 401, 403];
/**
 * What every operation may answer: 400 invalid input, 401 no valid key, 403 key without the scope,
 * 429 rate limits, 431 request line and headers over 16 KB, and 408/500/503/504 of the work itself.
 */
const COMMON_ERRORS: ErrorStatus[] = [400, 401, 403, 408, 429, 431, 500, 503, 504];
/** Operations with a JSON body also answer 413 above 10 MB and 415 to a body of another media type. */
const BODY: ErrorStatus[] = [413, 415];

/** `errors` and `specErrors` of an operation: the spec's statuses plus ours. */
function statuses(spec: ErrorStatus[], added: ErrorStatus[] = []) {
  const errors = [...new Set([...spec, ...COMMON_ERRORS, ...added])].sort((a, b) => a - b);
  return { errors, specErrors: spec };
}

const ok = (schema: AnySchemaObject, description: string) => ({ status: 200 as const, schema, description });

const BATCH_RULES =
  'Items are validated one by one: invalid items are listed in `failed` and the others are processed ' +
  '(`partial`); only when every item is invalid is the answer 400. Limits: 1 to 1,000 items and 10 MB per request.';

/** What the three batch operations share: envelope-only validation, UploadResult, 413. */
const batch = (body: AnySchemaObject, validators: upload.UploadValidators<unknown>) => ({
  body,
  bodyEnvelope: validators.envelopeSchema,
  headers: [TIMEOUT],
  success: ok(upload.UploadResultSchema, '`success`, or `partial` with the failed items.'),
  ...statuses(DATA_ERRORS, BODY),
});

export const operations = [
  {
    operationId: 'ask',
    method: 'POST',
    path: '/v1/assistant/ask',
    scope: 'ask',
    tag: 'Assistant',
    summary: 'Ask a question',
    description:
      'Returns an AI answer to a support query from trained content (articles, cases, incidents) of the ' +
      "caller's tenant. The answer is one Ask response item (not a list).",
    body: ask.AskRequestSchema,
    headers: [LANGUAGE, CHAT, TIMEOUT],
    success: {
      ...ok(ask.AskResponseSchema, 'The answer.'),
      headers: [
        header(
          'Chat-Identifier',
          chatIdentifier('The session of this answer: the one sent, or a new one when the request had none.'),
          true,
        ),
      ],
    },
    ...statuses(CONVERSATION_ERRORS, BODY),
  },
  {
    operationId: 'summarize',
    method: 'POST',
    path: '/v1/summary',
    scope: 'summary',
    tag: 'Conversations',
    summary: 'Summarize a conversation or ticket',
    description:
      'Returns an AI summary of a conversation or ticket. At least one of `subject`, `description`, `comments` ' +
      'must be non-empty, unless `conversationId` names an uploaded case (then its content is summarized). ' +
      '`format` defaults to `markdown`.',
    body: summary.SummaryRequestSchema,
    headers: [LANGUAGE, TIMEOUT],
    success: ok(summary.SummaryResponseSchema, 'The summary.'),
    ...statuses(CONVERSATION_ERRORS, BODY),
    errorNotes: {
      400: 'Also when the body has no text and `conversationId` names no uploaded case, or a case with no public text (only private comments, say).',
    },
  },
  {
    operationId: 'sendFeedback',
    method: 'POST',
    path: '/v1/feedback',
    scope: 'feedback',
    tag: 'Conversations',
    summary: 'Send feedback on an answer',
    description: 'Records user or agent feedback on an answer of /v1/assistant/ask, identified by its `id`.',
    body: feedback.FeedbackRequestSchema,
    headers: [CHAT, TIMEOUT],
    success: ok(feedback.FeedbackResponseSchema, 'Feedback recorded.'),
    ...statuses(CONVERSATION_ERRORS, BODY),
    errorNotes: { 400: "Also when `id` is not an answer of the caller's tenant (404 is not listed by the spec)." },
  },
  {
    operationId: 'tagConversation',
    method: 'POST',
    path: '/v1/tag',
    scope: 'tag',
    tag: 'Conversations',
    summary: 'Tag a conversation',
    description: 'Returns up to 5 AI-generated tags for a support conversation, highest score first.',
    body: tag.TagRequestSchema,
    headers: [LANGUAGE, TIMEOUT],
    success: ok(tag.TagResponseSchema, 'The tags.'),
    ...statuses(CONVERSATION_ERRORS, BODY),
  },
  {
    operationId: 'analyzeSentiment',
    method: 'POST',
    path: '/v1/sentiment',
    scope: 'sentiment',
    tag: 'Conversations',
    summary: 'Score the sentiment of a conversation',
    description: 'Returns a sentiment score from -100 to 100 and (Addition) its level as `label`.',
    body: sentiment.SentimentRequestSchema,
    headers: [LANGUAGE, TIMEOUT],
    success: ok(sentiment.SentimentResponseSchema, 'The sentiment.'),
    ...statuses(CONVERSATION_ERRORS, BODY),
  },
  {
    operationId: 'uploadArticles',
    method: 'POST',
    path: '/v1/articles',
    scope: 'articles:write',
    tag: 'Articles',
    summary: 'Upload knowledge articles',
    description: `Uploads knowledge articles for training; an article with an existing \`articleId\` is replaced. ${BATCH_RULES}`,
    ...batch(article.ArticlesUploadRequestSchema, article.articlesUpload),
  },
  {
    operationId: 'deleteArticles',
    method: 'DELETE',
    path: '/v1/articles',
    scope: 'articles:write',
    tag: 'Articles',
    summary: 'Delete knowledge articles',
    description: `Deletes knowledge articles from training; the request carries a JSON body. ${BATCH_RULES}`,
    ...batch(article.ArticlesDeleteRequestSchema, article.articlesDelete),
  },
  {
    operationId: 'uploadCases',
    method: 'POST',
    path: '/v1/cases',
    scope: 'cases:write',
    tag: 'Cases',
    summary: 'Upload support cases',
    description: `Uploads support cases for training; a case with an existing \`id\` is replaced. ${BATCH_RULES}`,
    ...batch(caseSchemas.CasesUploadRequestSchema, caseSchemas.casesUpload),
  },
  {
    operationId: 'uploadIncident',
    method: 'POST',
    path: '/v1/incidents',
    scope: 'incidents:write',
    tag: 'Incidents',
    summary: 'Upload an incident',
    description:
      'Uploads one engineering, devops or status-page incident for training; an incident with an existing ' +
      '`incident.id` is replaced. Limit: 10 MB per request.',
    body: incident.IncidentUploadSchema,
    headers: [TIMEOUT],
    success: { status: 201, schema: incident.IncidentUploadResponseSchema, description: 'Incident uploaded.' },
    ...statuses(DATA_ERRORS, BODY),
    errorNotes: { 413: 'Also when the incident is more than 1.5 MiB as JSON (one workflow payload).' },
  },
  {
    operationId: 'searchCases',
    method: 'POST',
    path: '/v1/search/cases',
    scope: 'search',
    tag: 'Search',
    summary: 'Search support cases',
    description:
      'AI-powered search over support cases. At least one of `query` or `conversationId` is required; ' +
      `in pagination mode (\`offset\` or \`limit\` sent) \`offset + limit\` must not exceed ${search.CASE_SEARCH_WINDOW}. ` +
      'Spam cases are never returned.',
    body: search.SearchCasesRequestSchema,
    headers: [TIMEOUT],
    success: ok(search.SearchCasesResponseSchema, 'Matching cases.'),
    ...statuses([...DATA_ERRORS, 404], BODY),
    errorNotes: {
      400: `Also when neither \`query\` nor \`conversationId\` is sent, or \`offset + limit\` exceeds ${search.CASE_SEARCH_WINDOW}.`,
      404: 'The given `conversationId` does not exist.',
    },
  },
  {
    operationId: 'searchArticles',
    method: 'GET',
    path: '/v1/community/search/articles',
    scope: 'search',
    tag: 'Search',
    summary: 'Search knowledge articles',
    description: 'AI-powered search over knowledge articles of the business named by `X-Business-Id`.',
    query: search.SearchArticlesQuerySchema,
    headers: [BUSINESS, TIMEOUT],
    success: ok(search.SearchArticlesResponseSchema, 'Matching articles.'),
    ...statuses(DATA_ERRORS),
    errorNotes: { 403: "Also when `X-Business-Id` names a business outside the API key's tenant." },
  },
  {
    operationId: 'evaluate',
    method: 'POST',
    path: '/v1/control/autoeval/evaluate',
    scope: 'evaluate',
    tag: 'Evaluation',
    summary: 'Grade one model output',
    description:
      'Grades one model output on demand against the rules sent, or the rules of `use_case`, or (neither ' +
      `sent) the \`default\` use case. At most ${evaluation.MAX_RULES} rules. Decision: success status 200 (the spec ` +
      'shows none); every error status is an addition (the spec lists none). The result names its `judge`: a ' +
      'configured model, or the deterministic built-in judge, which answers `not_applicable` for a rule it cannot read.',
    body: evaluation.EvaluateRequestSchema,
    headers: [TIMEOUT],
    success: ok(evaluation.EvaluateResponseSchema, 'The grading result.'),
    ...statuses([], BODY),
    errorNotes: {
      400: `Also when both \`rules\` and \`use_case\` are sent, more than ${evaluation.MAX_RULES} rules, or \`use_case\` names no use case.`,
      413: 'Also when the messages, output and rules take more than 1.5 MiB as JSON.',
      503: "Also when the use case's file is invalid, or the model judge's reply cannot be read after the retries.",
    },
  },
] as const satisfies readonly Operation[];

export type OperationId = (typeof operations)[number]['operationId'];

/** The operation with the given id (throws on a typo, at startup). */
export function operation(operationId: OperationId): Operation {
  const found = operations.find((op) => op.operationId === operationId);
  if (!found) throw new Error(`unknown operation ${operationId}`);
  return found;
}
