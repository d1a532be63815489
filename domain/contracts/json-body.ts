/**
 * A request body from its bytes to a checked value: UTF-8 (fatal), JSON (an object or an array,
 * `__proto__` refused), well-formed Unicode, then the operation's schema. The API runs these steps
 * on its event loop for ordinary bodies (api/middlewares/body.ts, validate.ts) and on one of its
 * CPU threads for a large upload (upload-reading.ts) or a large summary, sentiment or tag
 * (read-body.ts), with the same answers either way (`checkedBody`). A failure
 * is a BodyError: the status and the words the client reads.
 */
import { parse as parseJson } from '@hapi/bourne';
import type { ValidateFunction } from 'ajv';
import { firstErrorMessage } from './ajv';
import { firstIllFormedText } from './json-walk';

export class BodyError extends Error {
  constructor(
    readonly status: 400 | 413,
    message: string,
  ) {
    super(message);
    this.name = 'BodyError';
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body as text: 400 unless it is valid UTF-8 (no byte is silently replaced). A BOM is dropped. */
export function utf8Text(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new BodyError(400, 'request body is not valid UTF-8');
  }
}

/** JSON whitespace (RFC 8259) then the start of an object or an array. */
const OBJECT_OR_ARRAY = /^[ \t\n\r]*[[{]/;

/** The body's value: an object or an array (anything else is not a request body); `__proto__` is refused. */
export function jsonValue(text: string): unknown {
  if (text === '') return {};
  if (!OBJECT_OR_ARRAY.test(text)) throw new BodyError(400, 'request body must be a JSON object');
  try {
    return parseJson(text, { protoAction: 'error' });
  } catch (err) {
    if (String((err as Error).message).includes('prototype'))
      throw new BodyError(400, 'request body must not use the key "__proto__"');
    throw new BodyError(400, 'request body is not valid JSON');
  }
}

/** A JSON object: what every body must be (arrays, strings and null are not). */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Throws the BodyError of a body that is no object or holds text that is not valid Unicode. */
export function checkJsonObject(body: unknown): asserts body is Record<string, unknown> {
  if (!isObject(body)) throw new BodyError(400, 'request body must be a JSON object');
  const illFormed = firstIllFormedText(body);
  if (illFormed !== undefined)
    throw new BodyError(
      400,
      `${illFormed || 'request body'} is not valid Unicode text (it holds a lone UTF-16 surrogate such as \\ud800)`,
    );
}

/**
 * Validates (and cleans) a body against its schema: 400 naming the first offending field, or 413
 * when an upload's envelope (`envelope`) carries more items than allowed.
 */
export function checkSchema(o: { validate: ValidateFunction; body: unknown; envelope: boolean }): void {
  if (o.validate(o.body)) return;
  const message = firstErrorMessage(o.validate, '');
  // An upload's item array is the only array one level down in an envelope.
  const [first] = o.validate.errors ?? [];
  const tooManyItems = o.envelope && first?.keyword === 'maxItems' && first.instancePath.lastIndexOf('/') === 0;
  throw new BodyError(tooManyItems ? 413 : 400, message);
}

/** A body as its reader answers it: the checked value, or the status and words of its BodyError. */
export type BodyCheck = { body: Record<string, unknown> } | { error: { status: 400 | 413; message: string } };

/** The body's bytes decoded, parsed and checked against `validate` (every step above), as a value rather than a throw. */
export function checkedBody(o: { bytes: Uint8Array; validate: ValidateFunction; envelope: boolean }): BodyCheck {
  try {
    const body = jsonValue(utf8Text(o.bytes));
    checkJsonObject(body);
    checkSchema({ validate: o.validate, body, envelope: o.envelope });
    return { body };
  } catch (err) {
    if (err instanceof BodyError) return { error: { status: err.status, message: err.message } };
    throw err;
  }
}
