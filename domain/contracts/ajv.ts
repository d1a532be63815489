/**
 * The one place Ajv is configured. Schemas are compiled once, at module load or when a route is
 * registered, never per request (ajv docs/guide/managing-schemas.md).
 *
 * - `bodyAjv` validates JSON bodies: unknown properties are dropped wherever a schema says
 *   `additionalProperties: false` (clients written against later versions keep working), defaults
 *   are filled in, and only the first error is collected.
 * - `paramAjv` validates query strings and headers, which arrive as strings: it also coerces
 *   `"25"` to `25` and `"true"` to `true`.
 * - `configAjv` validates operators' files (use cases): unknown keys are errors, not dropped.
 */
import Ajv2020 from 'ajv/dist/2020';
import type { AnySchemaObject, ErrorObject, Options, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { FORBIDDEN_PATTERN_MESSAGES, LIMITS, PATTERN_MESSAGES } from './common';
import { exceedsDepth } from './json-walk';

const baseOptions: Options = {
  strict: true,
  // Cross-field rules (`anyOf`/`not` of `required`) name properties declared beside them.
  strictRequired: false,
  allErrors: false,
  removeAdditional: true,
  useDefaults: true,
  // `type: ['string', 'null']` is how 2020-12 (and OpenAPI 3.1) spell a nullable field.
  allowUnionTypes: true,
  // Errors carry the schema they failed, so a cross-field rule can name its own message.
  verbose: true,
};

function createAjv(options: Options): Ajv2020 {
  const ajv = new Ajv2020({ ...baseOptions, ...options });
  addFormats(ajv);
  // `x-maxDepth: N` on a free-form object: it may nest at most N levels (common.ts `freeForm`).
  ajv.addKeyword({
    keyword: 'x-maxDepth',
    type: ['object', 'array'],
    schemaType: 'number',
    validate: (limit: number, data: unknown) => !exceedsDepth(data, limit),
    errors: false,
  });
  // `x-message` beside `anyOf`/`not`: the message of a cross-field rule (common.ts `anyOfRule`).
  ajv.addKeyword({ keyword: 'x-message', schemaType: 'string' });
  return ajv;
}

/** Validates request bodies. */
export const bodyAjv = createAjv({});
/** Validates query parameters and headers (strings coerced to the declared type). */
export const paramAjv = createAjv({ coerceTypes: true });
/** Validates operators' configuration files: an unknown key is an error there (a typo), never dropped. */
export const configAjv = createAjv({ removeAdditional: false });

/** A schema with an `$id`, i.e. one that is a named OpenAPI component and can be `$ref`ed. */
export type NamedSchema = AnySchemaObject & { readonly $id: string };

const registered = new WeakMap<Ajv2020, Set<string>>();

/** Adds named schemas to an instance so `$ref: '<Id>'` resolves; adding one twice is a no-op. */
export function register(ajv: Ajv2020, schemas: readonly NamedSchema[]): void {
  const ids = registered.get(ajv) ?? new Set<string>();
  registered.set(ajv, ids);
  for (const schema of schemas) {
    if (ids.has(schema.$id)) continue;
    ajv.addSchema(schema);
    ids.add(schema.$id);
  }
}

/**
 * Compiles a schema (registering the named schemas it references first). Compiling the same
 * schema object twice returns the cached function, so callers need not keep their own cache.
 */
export function compile<T = unknown>(
  ajv: Ajv2020,
  schema: AnySchemaObject,
  references: readonly NamedSchema[] = [],
): ValidateFunction<T> {
  register(ajv, references);
  if (typeof schema.$id === 'string') {
    register(ajv, [schema as NamedSchema]);
    const validateFn = ajv.getSchema<T>(schema.$id);
    if (!validateFn) throw new Error(`schema ${schema.$id} did not compile`);
    return validateFn;
  }
  return ajv.compile<T>(schema);
}

/** Compiles a body schema on `bodyAjv`. */
export const compileBody = <T = unknown>(schema: AnySchemaObject, references: readonly NamedSchema[] = []) =>
  compile<T>(bodyAjv, schema, references);

/** Compiles a query/header schema on `paramAjv`. */
export const compileParams = <T = unknown>(schema: AnySchemaObject, references: readonly NamedSchema[] = []) =>
  compile<T>(paramAjv, schema, references);

const escapePointerToken = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');

/** The JSON pointer of the field an error is about (for `required`, the missing property itself). */
function errorPointer(err: ErrorObject): string {
  const missing = err.keyword === 'required' ? (err.params as { missingProperty: string }).missingProperty : undefined;
  return missing === undefined ? err.instancePath : `${err.instancePath}/${escapePointerToken(missing)}`;
}

/** What to say about the field, in words a client can act on. */
function errorText(err: ErrorObject): string {
  switch (err.keyword) {
    case 'required':
      return 'is required';
    case 'enum':
      return `must be one of: ${(err.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
    case 'minLength':
    case 'minItems':
      return (err.params as { limit: number }).limit === 1 ? 'must not be empty' : (err.message ?? 'is too short');
    case 'pattern': {
      const { pattern } = err.params as { pattern: string };
      return PATTERN_MESSAGES[pattern] ?? err.message ?? 'has an invalid format';
    }
    case 'not': {
      // `not: {pattern}`: a form the field must not take (common.ts FORBIDDEN_PATTERN_MESSAGES).
      const { pattern } = (err.schema ?? {}) as { pattern?: string };
      return (pattern && FORBIDDEN_PATTERN_MESSAGES[pattern]) ?? err.message ?? 'is invalid';
    }
    case 'x-maxDepth':
      // Only free-form objects carry the keyword (common.ts `freeForm`).
      return `nests objects or arrays deeper than ${LIMITS.freeFormDepth} levels`;
    case 'const':
      return `must be ${JSON.stringify((err.params as { allowedValue: unknown }).allowedValue)}`;
    default:
      return err.message ?? `is invalid (${err.keyword})`;
  }
}

/**
 * Turns an Ajv error into a client message naming the field.
 *
 * `root` decides how the field is named:
 * - `''` or a JSON pointer (a request body, or one item of it such as `/articles/3`): the field is
 *   named by its full JSON pointer: `/data/3/comments/0/commentId is required`,
 *   `/numResults must be <= 100`, `/articles/0/url must match format "uri"`.
 * - a label for other inputs (`'query parameter'`, `'header'`): the label, a space, then the field
 *   name: `query parameter limit must be <= 100`, `header X-Business-Id is required`.
 */
export function formatAjvError(err: ErrorObject, root: string): string {
  const pointer = errorPointer(err);
  const isPointerRoot = root === '' || root.startsWith('/');
  let subject: string;
  if (isPointerRoot) subject = root + pointer || 'request body';
  else subject = pointer ? `${root} ${pointer.slice(1)}` : root;
  return `${subject} ${errorText(err)}`;
}

/** The message a cross-field rule gives for itself, if the error is about one. */
const ruleMessage = (err: ErrorObject) => (err.parentSchema as { 'x-message'?: string } | undefined)?.['x-message'];

/**
 * The message for a failed validation: a broken cross-field rule's own message (its `anyOf`
 * error comes after the errors of its alternatives), else the first error, formatted by
 * `formatAjvError`.
 */
export function firstErrorMessage(validateFn: ValidateFunction, root: string): string {
  const errors = validateFn.errors ?? [];
  const rule = errors.find((err) => (err.keyword === 'anyOf' || err.keyword === 'not') && ruleMessage(err));
  if (rule) return ruleMessage(rule)!;
  const [first] = errors;
  return first ? formatAjvError(first, root) : `${root || 'request body'} is invalid`;
}
