/** Every contract schema with an `$id`: registered with Ajv so `$ref`s resolve (and the OpenAPI document's components). */
import type { NamedSchema } from './ajv';
import * as article from './article';
import * as ask from './ask';
import * as caseSchemas from './case';
import * as caseComment from './case-comment';
import * as common from './common';
import * as evaluation from './evaluation';
import * as feedback from './feedback';
import * as incident from './incident';
import * as search from './search';
import * as sentiment from './sentiment';
import * as summary from './summary';
import * as tag from './tag';
import * as upload from './upload';

const isNamedSchema = (value: unknown): value is NamedSchema =>
  typeof value === 'object' && value !== null && typeof (value as { $id?: unknown }).$id === 'string';

export const namedSchemas: readonly NamedSchema[] = [
  common,
  article,
  caseComment,
  caseSchemas,
  incident,
  upload,
  ask,
  summary,
  feedback,
  tag,
  sentiment,
  search,
  evaluation,
].flatMap((module) => Object.values(module).filter(isNamedSchema));
