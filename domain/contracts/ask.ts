/** POST /v1/assistant/ask: a question in, one answer out. */
import type { FromSchema } from 'json-schema-to-ts';
import { id, LIMITS, nonEmpty, oneOf } from './common';

export const RESPONSE_TYPES = [
  'ai-answer-from-tickets',
  'ai-answer-with-kb-links',
  'ai-answer-from-incidents',
  'generic',
  'intent-flow',
  'intent-tags',
  'no-answer',
] as const;

export const AskRequestSchema = {
  $id: 'AskRequest',
  type: 'object',
  description: 'A support question.',
  required: ['query'],
  additionalProperties: false,
  properties: {
    /** The user's question. */
    query: nonEmpty(LIMITS.query, "The user's question."),
    /** Selects a product-specific knowledge base. */
    productId: id('Selects a product-specific knowledge base when content is segmented by product.'),
    /** Who is asking: `agent` (the agent view, answered from cases too) needs the scope `search`. */
    author: oneOf(
      ['agent', 'customer'],
      'Who is asking. `customer` (the default) is answered from articles and incidents; `agent` also from the ' +
        "tenant's cases, and only with a key that has the scope `search` (403 otherwise).",
    ),
  },
} as const;
export type AskRequest = FromSchema<typeof AskRequestSchema>;

export const AskResponseSchema = {
  $id: 'AskResponse',
  type: 'object',
  description:
    'One answer (not a list). `links` and `urls` list only the sources the answer actually used. When nothing ' +
    'relevant was found, `responseType` is `no-answer` and `plaintext` says so in the request language.',
  required: ['mdText', 'htmltext', 'source', 'plaintext', 'id'],
  additionalProperties: false,
  properties: {
    /** Markdown answer with links and titles from source articles. */
    mdText: { type: 'string', description: 'Markdown answer with links and titles from the sources.' },
    /** HTML answer with links and titles. */
    htmltext: { type: 'string', description: 'HTML answer with links and titles.' },
    /** Where the content came from. */
    source: { type: 'string', description: 'Where the content came from.' },
    /** Answer without links. */
    plaintext: { type: 'string', description: 'Answer without links.' },
    /** Unique identifier of the answer; `/v1/feedback` refers to it. */
    id: { type: 'string', description: 'Unique identifier of this answer; send it as `id` to /v1/feedback.' },
    /** Where the answer came from; absent means `no-answer`. */
    responseType: {
      ...oneOf(
        RESPONSE_TYPES,
        'Where the answer came from: `ai-answer-with-kb-links` articles, `ai-answer-from-tickets` cases, ' +
          '`ai-answer-from-incidents` incidents, `no-answer` nothing relevant found. Absent means `no-answer`.',
      ),
      default: 'no-answer',
    },
    /** Intent tag, if any. */
    intentTag: { type: ['string', 'null'], description: 'Intent tag, if any.' },
    /** Title for the source articles, in the request language. */
    linksTitle: { type: 'string', description: 'Title for the source list; varies with the request language.' },
    /** Sources the answer used. */
    links: {
      type: 'array',
      description: 'Sources the answer used.',
      items: {
        type: 'object',
        required: ['text', 'url'],
        additionalProperties: false,
        properties: {
          /** Title of the source. */
          text: { type: 'string', description: 'Title of the source.' },
          /** URL of the source. */
          url: { type: 'string', description: 'URL of the source.' },
        },
      },
    },
    /** URLs of the sources the answer used. */
    urls: { type: ['array', 'null'], items: { type: 'string' }, description: 'URLs of the sources the answer used.' },
  },
} as const;
export type AskResponse = FromSchema<typeof AskResponseSchema>;
