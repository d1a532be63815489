/**
 * What the batch uploads (POST /v1/articles, DELETE /v1/articles, POST /v1/cases) share: the result
 * body and per-item validation.
 *
 * A batch is checked in two steps so one bad item does not sink the other 999:
 * 1. the `validate` middleware checks the envelope (`{articles: [1..1000 objects]}`), answering 400
 *    for a bad envelope;
 * 2. the handler calls `checkUploadItems`, which validates each item, collects the bad ones as
 *    `failed: [{id, error}]`, and answers 400 only when every item is bad.
 * The OpenAPI document still shows the full item schema: the request schema `$ref`s it.
 */
import type { AnySchemaObject, ValidateFunction } from 'ajv';
import type { FromSchema } from 'json-schema-to-ts';
import { compileBody, firstErrorMessage, type NamedSchema } from './ajv';
import { LIMITS, oneOf, list, uploadItems } from './common';

export const UploadResultSchema = {
  $id: 'UploadResult',
  type: 'object',
  description:
    'Outcome of a batch upload or deletion. `success` when every item was stored (or deleted); `partial` ' +
    'when some were rejected or failed, listed in `failed` (Addition). An upload in which every item is ' +
    'invalid is answered 400 instead. Re-uploading an item with the same id replaces it.',
  required: ['result'],
  additionalProperties: false,
  properties: {
    /** `success` or `partial`. */
    result: oneOf(['success', 'partial'], 'Whether every item was processed.'),
    /** Addition: the items that were rejected or failed; present only when `result` is `partial`. */
    failed: list(
      {
        type: 'object',
        required: ['id', 'error'],
        additionalProperties: false,
        properties: {
          /** The item's identifier, or its JSON pointer when it has none. */
          id: {
            type: 'string',
            description:
              "The item's identifier (`articleId`, or `id` for cases); when the item has none, its JSON pointer in the request, e.g. `/data/3`.",
          },
          /** Why it failed, naming the field by JSON pointer. */
          error: {
            type: 'string',
            description:
              'Why the item failed; validation errors name the field by JSON pointer, e.g. `/data/3/url must match format "uri"`.',
          },
        },
      },
      LIMITS.uploadItems,
      'Addition: the items that were rejected or failed; present only when `result` is `partial`.',
    ),
  },
} as const;
export type UploadResult = FromSchema<typeof UploadResultSchema>;
export type UploadFailure = NonNullable<UploadResult['failed']>[number];

/** The request schema of a batch upload: `{<key>: [1..1000 items of <Item>]}`; the description gains the batch rules. */
export function uploadRequest<const Id extends string, const Key extends string, const Item extends string>(
  $id: Id,
  key: Key,
  item: Item,
  description: string,
) {
  const items = uploadItems({ $ref: item }, `The ${item} items.`);
  return {
    $id,
    type: 'object' as const,
    description:
      `${description} Each item is validated on its own: invalid items are reported in \`failed\` and the rest ` +
      'are processed (`partial`); only when every item is invalid is the answer 400.',
    required: [key] as const,
    additionalProperties: false as const,
    properties: { [key]: items } as { [K in Key]: typeof items },
  };
}

/** Everything a handler needs to validate one kind of batch upload. */
export interface UploadValidators<T> {
  /** The body property holding the items: `articles` or `data`. */
  key: string;
  /** The item property reported as `failed[].id`. */
  idField: string;
  /** The envelope schema: the request schema with each item just `{type: 'object'}`. */
  envelopeSchema: AnySchemaObject;
  /** Validates the envelope (the `validate` middleware uses `envelopeSchema` for this). */
  envelope: ValidateFunction;
  /** Validates (and cleans: unknown fields removed, defaults set) one item. */
  item: ValidateFunction<T>;
}

/** Compiles the envelope and item validators of a batch upload, once, at module load. */
export function uploadValidators<T>(
  request: ReturnType<typeof uploadRequest>,
  item: NamedSchema,
  idField: string,
  references: readonly NamedSchema[] = [],
): UploadValidators<T> {
  const key = request.required[0];
  const { $id: _id, ...rest } = request;
  const envelopeSchema = {
    ...rest,
    properties: { [key]: { ...request.properties[key], items: { type: 'object' } } },
  };
  return {
    key,
    idField,
    envelopeSchema,
    envelope: compileBody(envelopeSchema),
    item: compileBody<T>(item, references),
  };
}

/**
 * Validates each item of an upload whose envelope already passed. Returns the valid (cleaned) items
 * and the failures, each `{id, error}` with the error naming the field by JSON pointer from the
 * body root (`/data/3/comments/0/commentId is required`). The caller answers 400 when no item is
 * valid (`allItemsInvalid` words it).
 */
export function checkUploadItems<T>(
  upload: UploadValidators<T>,
  body: Record<string, unknown>,
): { items: T[]; failed: UploadFailure[] } {
  const all = body[upload.key] as Record<string, unknown>[];
  const items: T[] = [];
  const failed: UploadFailure[] = [];
  all.forEach((candidate, index) => {
    const checked = checkUploadItem(upload, candidate, index);
    if ('item' in checked) items.push(checked.item);
    else failed.push(checked.failed);
  });
  return { items, failed };
}

/** One item of checkUploadItems: the item when valid (cleaned), else its failure. */
export function checkUploadItem<T>(
  upload: UploadValidators<T>,
  candidate: Record<string, unknown>,
  index: number,
): { item: T } | { failed: UploadFailure } {
  if (upload.item(candidate)) return { item: candidate };
  const itemId = candidate[upload.idField];
  const error = firstErrorMessage(upload.item, `/${upload.key}/${index}`);
  return { failed: { id: typeof itemId === 'string' && itemId !== '' ? itemId : `/${upload.key}/${index}`, error } };
}

/** The message of a 400 for an upload none of whose items is valid (`failed` holds them all). */
export const allItemsInvalid = (failed: UploadFailure[]): string =>
  failed.length === 1 ? failed[0].error : `all ${failed.length} items are invalid; first: ${failed[0].error}`;
