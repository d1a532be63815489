/** POST /v1/sentiment: sentiment score of a conversation. */
import type { FromSchema } from 'json-schema-to-ts';
import { conversationMessageRequest, oneOf } from './common';

export const SentimentRequestSchema = conversationMessageRequest('SentimentRequest', 'A conversation to score.');
export type SentimentRequest = FromSchema<typeof SentimentRequestSchema>;

/** The five sentiment levels, most negative first. */
export const SENTIMENT_LABELS = [
  'Negative',
  'Moderately Negative',
  'Neutral',
  'Moderately Positive',
  'Positive',
] as const;

export const SentimentResponseSchema = {
  $id: 'SentimentResponse',
  type: 'object',
  description: 'Sentiment of the conversation.',
  required: ['sentiment', 'label'],
  additionalProperties: false,
  properties: {
    /** -100 very negative to 100 very positive. */
    sentiment: {
      type: 'number',
      minimum: -100,
      maximum: 100,
      description: 'Score from -100 (very negative) to 100 (very positive), inclusive.',
    },
    /** Addition: the score as one of five levels. */
    label: oneOf(SENTIMENT_LABELS, 'Addition: the score as one of the five sentiment levels.'),
  },
} as const;
export type SentimentResponse = FromSchema<typeof SentimentResponseSchema>;
