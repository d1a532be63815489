/** A comment of a support case (spec "CaseComment"). */
import type { FromSchema } from 'json-schema-to-ts';
import { epochMillis, id, LIMITS, str } from './common';

export const CaseCommentSchema = {
  $id: 'CaseComment',
  type: 'object',
  description: 'One message of a support case.',
  required: ['commentId', 'comment', 'commenter', 'timeOfCreation'],
  additionalProperties: false,
  properties: {
    /** Comment identifier. */
    commentId: id('Comment identifier.'),
    /** Comment text (plain text, markdown or HTML). */
    comment: str(LIMITS.text, 'Comment text.'),
    /** Who wrote the comment. */
    commenter: str(LIMITS.id, 'Who wrote the comment (name, e-mail or identifier).'),
    /** Whether the customer can see the comment. */
    isPublic: { type: 'boolean', description: 'Whether the comment is visible to the customer.' },
    /** Creation time, epoch ms. */
    timeOfCreation: epochMillis('Creation time.'),
  },
} as const;
export type CaseComment = FromSchema<typeof CaseCommentSchema>;
