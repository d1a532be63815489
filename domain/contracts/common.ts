/**
 * Shapes shared by every resource schema: bounds, field helpers and the one error body.
 *
 * The helpers return plain JSON Schema objects whose `type` (and `enum`) stay literal, so
 * `FromSchema` still infers precise types from the resource schemas that use them. Each helper
 * states its bound in the description, so the OpenAPI document shows it in words as well.
 */
import { STATUS_NAMES } from './error';

/** Upper bounds of request fields (characters, or items for arrays). */
export const LIMITS = {
  /** Identifiers: articleId, case id, commentId, conversationId, productId, ... */
  id: 512,
  /** Short labels: status, priority, type, source, tags, roles, categories. */
  label: 256,
  /** Titles, subjects, names. */
  title: 2048,
  /** URLs. */
  url: 2048,
  /** Search texts, questions, feedback, rule descriptions. */
  query: 10_000,
  /**
   * The search text of a GET request: 1,000 characters of any script stay under the 16 KB the
   * server reads of a request line and headers (up to 12 bytes each once percent-encoded).
   */
  urlQuery: 1_000,
  /** Bodies, descriptions, comments, conversation messages, model outputs. */
  text: 1_000_000,
  /** Items per upload request (articles, cases, article deletions). */
  uploadItems: 1_000,
  /** Entries of a list inside one item (tags, kb_links, comments, incident updates). */
  listItems: 10_000,
  /** Levels of objects and arrays a free-form object may nest, counting itself. */
  freeFormDepth: 32,
} as const;

/** The largest integer JSON numbers carry exactly (2^53 - 1); epoch ms stay far below it. */
export const MAX_EXACT_INTEGER = Number.MAX_SAFE_INTEGER;

/** Only web links: `javascript:`, `data:`, `file:` and other schemes are refused in every URL field. */
export const HTTP_URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://';

/** A URL with a user name or password (`https://user:pass@host/`): refused, it can disguise the host. */
export const URL_USERINFO_PATTERN = '^[^/?#]*//[^/?#]*@';

/** A percent-encoded control character (`%0d%0a`, `%00`, `%7f`): refused, it can split a header or a log line. */
export const URL_ENCODED_CONTROL_PATTERN = '%(?:[01][0-9A-Fa-f]|7[Ff])';

/** A string with at least one character that is not whitespace. */
export const NOT_BLANK_PATTERN = '\\S';

/** A name that is also a file name, such as a use case's: letters, digits, `_` and `-`. */
export const NAME_PATTERN = '^[A-Za-z0-9_-]{1,64}$';

/** What a failed `pattern` says, per pattern, in words a client can act on. */
export const PATTERN_MESSAGES: Record<string, string> = {
  [HTTP_URL_PATTERN]: 'must be an http or https URL',
  [NOT_BLANK_PATTERN]: 'must not be blank',
  [NAME_PATTERN]: 'must be 1 to 64 letters, digits, _ or -',
};

/** What a value matching a forbidden pattern (`not: {pattern}`) is told, per pattern. */
export const FORBIDDEN_PATTERN_MESSAGES: Record<string, string> = {
  [URL_USERINFO_PATTERN]: 'must not carry a user name or password (user:pass@)',
  [URL_ENCODED_CONTROL_PATTERN]: 'must not contain an encoded control character such as %0D or %0A',
};

/**
 * A cross-field rule stated in the schema, so the OpenAPI document shows it and validation enforces
 * it: `anyOf` the given alternatives, or `not` the given shape. `x-message` is what a client reads
 * when the rule is broken (ajv.ts).
 */
export const anyOfRule = <const B extends readonly object[]>(message: string, branches: B) => ({
  anyOf: branches,
  'x-message': message,
});
export const notRule = <const N extends object>(message: string, shape: N) => ({ not: shape, 'x-message': message });

/** An object whose property `name` is sent and not blank. */
export const presentNotBlank = <const K extends string>(name: K) =>
  ({ type: 'object', required: [name], properties: { [name]: { type: 'string', pattern: NOT_BLANK_PATTERN } } }) as {
    type: 'object';
    required: [K];
    properties: { [P in K]: { type: 'string'; pattern: typeof NOT_BLANK_PATTERN } };
  };

const fmt = (n: number) => n.toLocaleString('en-US');

/** A string of at most `maxLength` characters. */
export const str = (maxLength: number, description: string) => ({
  type: 'string' as const,
  maxLength,
  description: `${description} At most ${fmt(maxLength)} characters.`,
});

/** A string of 1 to `maxLength` characters. */
export const nonEmpty = (maxLength: number, description: string) => ({
  ...str(maxLength, description),
  minLength: 1,
  description: `${description} 1 to ${fmt(maxLength)} characters.`,
});

/** An identifier: 1 to 512 characters. */
export const id = (description: string) => nonEmpty(LIMITS.id, description);

/**
 * An absolute http or https URL of at most 2,048 characters, without a user name or password and
 * without percent-encoded control characters.
 */
export const uri = (description: string) => ({
  type: 'string' as const,
  format: 'uri',
  pattern: HTTP_URL_PATTERN,
  maxLength: LIMITS.url,
  allOf: [{ not: { pattern: URL_USERINFO_PATTERN } }, { not: { pattern: URL_ENCODED_CONTROL_PATTERN } }],
  description:
    `${description} Absolute http or https URL, at most ${fmt(LIMITS.url)} characters; other schemes, a user ` +
    'name or password (`user:pass@`) and percent-encoded control characters (`%0D`, `%0A`) get 400.',
});

/** An ISO 8601 date-time with time zone. */
export const dateTime = (description: string) => ({
  type: 'string' as const,
  format: 'date-time',
  maxLength: 64,
  description: `${description} ISO 8601 date-time with time zone, e.g. 2024-05-01T12:00:00Z.`,
});

/** An int64 epoch time in milliseconds, bounded to the integers JSON carries exactly. */
export const epochMillis = (description: string) => ({
  type: 'integer' as const,
  format: 'int64',
  minimum: 0,
  maximum: MAX_EXACT_INTEGER,
  description: `${description} Epoch time in milliseconds (int64, 0 to 2^53 - 1 = ${MAX_EXACT_INTEGER}; larger values get 400).`,
});

/** A language code: ISO 639-1 (two letters, any case); a region suffix such as `en-US` is accepted and ignored. */
export const languageCode = (description: string) => ({
  type: 'string' as const,
  pattern: '^[A-Za-z]{2}(-[A-Za-z0-9]{1,8})*$',
  maxLength: 35,
  description: `${description} ISO 639-1 code such as \`en\` (case-insensitive); a region suffix such as \`en-US\` is accepted and ignored.`,
});

/** One of a fixed list of strings. */
export const oneOf = <const V extends readonly string[]>(values: V, description: string) => ({
  type: 'string' as const,
  enum: values,
  description: `${description} One of: ${values.map((v) => `\`${v}\``).join(', ')}.`,
});

/** An array of at most `maxItems` items. */
export const list = <const I>(items: I, maxItems: number, description: string) => ({
  type: 'array' as const,
  items,
  maxItems,
  description: `${description} At most ${fmt(maxItems)} items.`,
});

/** The item array of an upload: 1 to 1,000 items. */
export const uploadItems = <const I>(items: I, description: string) => ({
  ...list(items, LIMITS.uploadItems, description),
  minItems: 1,
  description: `${description} 1 to ${fmt(LIMITS.uploadItems)} items; at most 10 MB per request.`,
});

/** A free-form object: any keys and values, kept as sent, nesting at most `LIMITS.freeFormDepth` levels. */
export const freeForm = (description: string) => ({
  type: 'object' as const,
  'x-maxDepth': LIMITS.freeFormDepth,
  description:
    `${description} Free-form key/value object, stored as sent. It may nest objects and arrays at most ` +
    `${LIMITS.freeFormDepth} levels deep, counting itself (400 above).`,
});

/** A reference to a named schema, with a description of this use of it. */
export const ref = <const Id extends string>($ref: Id, description: string) => ({ $ref, description });

/** The one error body of every endpoint (`api/errors.ts` renders it). */
export const ErrorBodySchema = {
  $id: 'ErrorBody',
  type: 'object',
  description:
    'The error body of every endpoint. The spec shows it for ask, summary, feedback, tag and sentiment; ' +
    'Addition: the same body is used by all endpoints.',
  required: ['error', 'code', 'status'],
  additionalProperties: false,
  properties: {
    /** Human-readable message; on 400 it names the offending field by JSON pointer. */
    error: {
      type: 'string',
      description:
        'Human-readable message. On 400 it names the offending field: by JSON pointer for bodies ' +
        '(`/data/3/comments/0/commentId is required`), by name for query parameters and headers ' +
        '(`query parameter limit must be <= 100`, `header X-Business-Id is required`).',
    },
    /** The HTTP status as an integer. */
    code: { type: 'integer', minimum: 400, maximum: 599, description: 'The HTTP status as an integer.' },
    /** Stable status name of the HTTP status. */
    status: {
      type: 'string',
      enum: Object.values(STATUS_NAMES),
      description: `Stable name of the status: ${Object.entries(STATUS_NAMES)
        .map(([code, name]) => `${code} ${name}`)
        .join(', ')}.`,
    },
  },
} as const;

/** The request of tag and sentiment: `{conversationId?, message}`. */
export const conversationMessageRequest = <const Id extends string>($id: Id, description: string) => ({
  $id,
  type: 'object' as const,
  description,
  required: ['message'] as const,
  additionalProperties: false as const,
  properties: {
    /** Ticket or chat identifier. */
    conversationId: id('Ticket or chat identifier.'),
    /** The conversation text. */
    message: nonEmpty(LIMITS.text, 'The conversation text (400 if empty).'),
  },
});
