/** POST /v1/summary: summarize a conversation or ticket. */
import type { FromSchema } from 'json-schema-to-ts';
import { anyOfRule, id, list, LIMITS, oneOf, presentNotBlank, str } from './common';

const FORMATS = ['markdown', 'html'] as const;

export const SummaryRequestSchema = {
  $id: 'SummaryRequest',
  type: 'object',
  description:
    'A conversation to summarize. At least one of `subject`, `description`, `comments` must be non-empty ' +
    '(400 otherwise), unless `conversationId` names an uploaded case: then, when the body has no text, the ' +
    "case's content is summarized.",
  additionalProperties: false,
  ...anyOfRule('at least one of /subject, /description, /comments must be non-empty', [
    presentNotBlank('subject'),
    presentNotBlank('description'),
    {
      type: 'object',
      required: ['comments'],
      properties: { comments: { type: 'array', contains: presentNotBlank('comment') } },
    },
    { type: 'object', required: ['conversationId'] },
  ]),
  properties: {
    /** Ticket or chat identifier. */
    conversationId: id('Unique ticket or chat identifier.'),
    /** Initial query by the customer. */
    subject: str(LIMITS.title, 'Initial query by the customer.'),
    /** Details of the initial query. */
    description: str(LIMITS.text, 'Details of the initial query.'),
    /** Messages between customer and agent. */
    comments: list(
      {
        type: 'object',
        required: ['comment'],
        additionalProperties: false,
        properties: {
          /** Text of one message. */
          comment: str(LIMITS.text, 'Text of one message.'),
        },
      },
      LIMITS.listItems,
      'Messages between customer and agent, oldest first.',
    ),
    /** Format of the summary; default markdown. */
    format: { ...oneOf(FORMATS, 'Format of the summary.'), default: 'markdown' },
  },
} as const;
export type SummaryRequest = FromSchema<typeof SummaryRequestSchema>;

export const SummaryResponseSchema = {
  $id: 'SummaryResponse',
  type: 'object',
  description: 'The summary.',
  required: ['format', 'summary'],
  additionalProperties: false,
  properties: {
    /** Format of `summary`. */
    format: oneOf(FORMATS, 'Format of `summary`.'),
    /** The summary text. */
    summary: { type: 'string', description: 'The summary.' },
  },
} as const;
export type SummaryResponse = FromSchema<typeof SummaryResponseSchema>;
