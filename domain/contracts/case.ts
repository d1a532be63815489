/** Support cases and their batch upload request. */
import type { FromSchema } from 'json-schema-to-ts';
import { CaseCommentSchema } from './case-comment';
import { epochMillis, freeForm, id, list, LIMITS, ref, str, uri } from './common';
import { uploadRequest, uploadValidators } from './upload';

export const CaseSchema = {
  $id: 'Case',
  type: 'object',
  description:
    'A support case (ticket). Only `id` is required: it is what makes a case addressable (search results, ' +
    'summary by conversationId, replacement on re-upload).',
  required: ['id'],
  additionalProperties: false,
  properties: {
    /** Case identifier; re-uploading the same id replaces the case. */
    id: id('Case identifier; re-uploading a case with the same id replaces it.'),
    /** Subject line. */
    subject: str(LIMITS.title, 'Subject.'),
    /** Initial description of the case. */
    description: str(LIMITS.text, 'Description.'),
    /** Status, free string. */
    status: str(LIMITS.label, 'Status (free string).'),
    /** Priority, free string. */
    priority: str(LIMITS.label, 'Priority (free string).'),
    /** Kind of case, such as a feature request or a question. */
    type: str(LIMITS.label, 'Kind of case, such as a feature request or a question (free string).'),
    /** Brand identifier associated with the case. */
    brand_id: str(LIMITS.id, 'Brand identifier associated with the case.'),
    /** Form identifier associated with the case. */
    form_id: str(LIMITS.id, 'Form identifier associated with the case.'),
    /** Tags of the case. */
    tags: list(str(LIMITS.label, 'A tag.'), LIMITS.listItems, 'Tags.'),
    /** Creation time, epoch ms. */
    timeOfCreation: epochMillis('Creation time.'),
    /** Messages of the case. */
    comments: list(ref('CaseComment', 'A message of the case.'), LIMITS.listItems, 'Messages of the case.'),
    /** Public link to the case. */
    url: uri('Public link to the case.'),
    /** Free-form key/value object; `productId` in it is read like the top-level `productId`. */
    custom_fields: freeForm('Custom fields; a `productId` key here is used when the top-level `productId` is absent.'),
    /** Knowledge-base links of the case. */
    kb_links: list(uri('A knowledge-base link.'), LIMITS.listItems, 'Knowledge-base links.'),
    /** Channel the case came from. */
    source: str(LIMITS.label, 'Channel the case came from (free string).'),
    /** Whether the case is spam; spam cases are never returned by search. */
    spam: { type: 'boolean', description: 'Whether the case is spam; spam cases are never returned by case search.' },
    /** Addition: product the case belongs to. */
    productId: id('Addition: product the case belongs to; ask and case search filter on it.'),
  },
} as const;
export type Case = FromSchema<typeof CaseSchema, { references: [typeof CaseCommentSchema] }>;

export const CasesUploadRequestSchema = uploadRequest('CasesUploadRequest', 'data', 'Case', 'Cases to upload.');
export type CasesUploadRequest = FromSchema<
  typeof CasesUploadRequestSchema,
  { references: [typeof CaseSchema, typeof CaseCommentSchema] }
>;

/** Envelope and item validators of POST /v1/cases. */
export const casesUpload = uploadValidators<Case>(CasesUploadRequestSchema, CaseSchema, 'id', [CaseCommentSchema]);
