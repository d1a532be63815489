/**
 * The logged-call record of the spec: one JSON object per line of an evaluation import
 * (`npm run eval:import`). Unknown fields are ignored, as in request bodies.
 */
import { scan as refuseProtoKeys } from '@hapi/bourne';
import type { FromSchema } from 'json-schema-to-ts';
import { compileBody, firstErrorMessage } from './ajv';
import { freeForm, id, LIMITS, NAME_PATTERN, str } from './common';
import { EvaluateRequestSchema } from './evaluation';

export const LoggedCallSchema = {
  $id: 'LoggedCall',
  type: 'object',
  description: 'One logged model call to grade: the conversation up to the call, the output, and the model.',
  required: ['id', 'messages', 'output', 'model'],
  additionalProperties: false,
  properties: {
    /** The caller's identifier of the call: a record is graded once per tenant and id. */
    id: id("The caller's identifier of the call."),
    messages: EvaluateRequestSchema.properties.messages,
    output: EvaluateRequestSchema.properties.output,
    /** Model or model version that produced the output. */
    model: { ...str(LIMITS.label, 'Model or model version that produced the output.'), minLength: 1 },
    /** Selects the rules; default `default`. */
    use_case: {
      type: 'string',
      pattern: NAME_PATTERN,
      maxLength: 64,
      description: 'Use case whose rules apply; default `default`.',
    },
    timestamp: {
      type: 'string',
      format: 'date-time',
      description: 'When the call was made; used in reports and retention.',
    },
    latency_ms: { type: 'integer', minimum: 0, maximum: 86_400_000, description: 'Latency of the call, in ms.' },
    metadata: freeForm('Tags for filtering reports, such as tenant, product, language.'),
  },
} as const;
export type LoggedCall = FromSchema<typeof LoggedCallSchema>;

const validate = compileBody<LoggedCall>(LoggedCallSchema);

/** Characters of one line at most: the largest record a request body could carry. */
export const MAX_LINE_CHARS = 1_500_000;
/**
 * Bytes of one line beyond which readers skip it unread (domain/evaluation/jsonl-lines.ts): a
 * UTF-16 character takes at most 3 bytes of UTF-8, so such a line has more than MAX_LINE_CHARS.
 */
export const MAX_LINE_BYTES = 3 * MAX_LINE_CHARS;
/** Why a line too long to grade is skipped, whether it was read or skipped unread. */
export const LINE_TOO_LONG = `longer than ${MAX_LINE_CHARS.toLocaleString('en-US')} characters`;

/**
 * The API's rule for `__proto__` (docs/api.md, "Input limits"): its body parser refuses the key at
 * any depth with this check of @hapi/bourne; a record is refused the same way.
 */
function usesProtoKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  try {
    refuseProtoKeys(value, { protoAction: 'error' });
    return false;
  } catch {
    return true;
  }
}

/** One line of an import file: the record, or why it cannot be graded. */
export function parseLoggedCall(line: string): { record: LoggedCall } | { error: string } {
  if (line.length > MAX_LINE_CHARS) return { error: LINE_TOO_LONG };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { error: 'not JSON' };
  }
  if (usesProtoKey(value)) return { error: 'must not use the key "__proto__"' };
  if (!validate(value)) return { error: firstErrorMessage(validate, '') };
  return { record: value };
}
