/** POST /v1/tag: tags for a conversation. */
import type { FromSchema } from 'json-schema-to-ts';
import { conversationMessageRequest, oneOf } from './common';

export const TagRequestSchema = conversationMessageRequest('TagRequest', 'A conversation to tag.');
export type TagRequest = FromSchema<typeof TagRequestSchema>;

export const TAG_SOURCES = ['trained', 'model', 'keyword'] as const;

export const TagSchema = {
  $id: 'Tag',
  type: 'object',
  description: 'One tag. Decision: the spec leaves the keys open; these are the keys of every tag object.',
  required: ['name', 'score', 'source'],
  additionalProperties: false,
  properties: {
    /** Tag name. */
    name: { type: 'string', description: 'Tag name.' },
    /** Confidence, 0 to 1. */
    score: { type: 'number', minimum: 0, maximum: 1, description: 'Confidence, 0 to 1.' },
    /** What produced the tag. */
    source: oneOf(
      TAG_SOURCES,
      "What produced the tag: `trained` the tenant's trained tag model, `model` the language model, `keyword` keyword rules.",
    ),
  },
} as const;
export type Tag = FromSchema<typeof TagSchema>;

export const TagResponseSchema = {
  $id: 'TagResponse',
  type: 'object',
  description: 'Tags of the conversation.',
  required: ['tags'],
  additionalProperties: false,
  properties: {
    /** At most 5 tags, highest score first. */
    tags: {
      type: 'array',
      items: { $ref: 'Tag' },
      maxItems: 5,
      description: 'At most 5 tags, highest score first.',
    },
  },
} as const;
export type TagResponse = FromSchema<typeof TagResponseSchema, { references: [typeof TagSchema] }>;
