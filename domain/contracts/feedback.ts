/** POST /v1/feedback: feedback on an answer. */
import type { FromSchema } from 'json-schema-to-ts';
import { id, LIMITS, nonEmpty } from './common';

export const FeedbackRequestSchema = {
  $id: 'FeedbackRequest',
  type: 'object',
  description: 'Feedback on one answer of /v1/assistant/ask.',
  required: ['id', 'feedbackDetails'],
  additionalProperties: false,
  properties: {
    /** The `id` of an ask answer of the caller's tenant; an unknown id is a 400. */
    id: id("The `id` of an answer of /v1/assistant/ask, of the caller's tenant; an unknown id is answered 400."),
    /** Free-text feedback; a leading +1, -1, helpful or not helpful is also recorded as a rating. */
    feedbackDetails: nonEmpty(
      LIMITS.query,
      'Free-text feedback. A leading `+1`/`-1`/`helpful`/`not helpful` is also recorded as a rating.',
    ),
  },
} as const;
export type FeedbackRequest = FromSchema<typeof FeedbackRequestSchema>;

export const FeedbackResponseSchema = {
  $id: 'FeedbackResponse',
  type: 'object',
  description: 'Feedback recorded.',
  required: ['result'],
  additionalProperties: false,
  properties: {
    /** Always `success`. */
    result: { const: 'success', description: 'Always `success`.' },
  },
} as const;
export type FeedbackResponse = FromSchema<typeof FeedbackResponseSchema>;
