/**
 * A large body of a read the API answers itself (summary, sentiment, tag) decoded, parsed and
 * checked against its operation's schema on one of the API's CPU threads (domain/cpu/read-tasks.ts),
 * as the body middleware and `validate` would on the event loop (json-body.ts): a 10 MB summary
 * parsed and checked there held the loop for more than 100 ms.
 */
import { compileBody } from './ajv';
import { type BodyCheck, checkedBody } from './json-body';
import { namedSchemas } from './named-schemas';
import { SentimentRequestSchema } from './sentiment';
import { SummaryRequestSchema } from './summary';
import { TagRequestSchema } from './tag';

/** The operations whose large bodies are read on a CPU thread, by operation id, and their body schemas. */
export const READ_BODY_SCHEMAS = {
  summarize: SummaryRequestSchema,
  analyzeSentiment: SentimentRequestSchema,
  tagConversation: TagRequestSchema,
} as const;

export type ReadBodyOperation = keyof typeof READ_BODY_SCHEMAS;

export const isReadBodyOperation = (operationId: string): operationId is ReadBodyOperation =>
  Object.prototype.hasOwnProperty.call(READ_BODY_SCHEMAS, operationId);

export interface ReadBodyInput {
  bytes: Uint8Array;
  operation: ReadBodyOperation;
}

/** The body as `validate` leaves it (checked, cleaned), or the 400 it would answer. */
export function readBody(input: ReadBodyInput): BodyCheck {
  return checkedBody({
    bytes: input.bytes,
    validate: compileBody(READ_BODY_SCHEMAS[input.operation], namedSchemas),
    envelope: false,
  });
}
