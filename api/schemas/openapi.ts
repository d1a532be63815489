/**
 * Builds the OpenAPI 3.1 document served at GET /openapi.json from the operations table and the
 * named schemas: each `$id` schema becomes `components.schemas.<Id>` and every `$ref: '<Id>'` is
 * rewritten to `#/components/schemas/<Id>` (as fastify-swagger does).
 */
import type { AnySchemaObject } from 'ajv';
import type { ErrorStatus } from '../errors';
import { ErrorBodySchema, LIMITS } from '../../domain/contracts/common';
import { namedSchemas, operations, type HeaderSpec, type Operation } from './operations';

export const API_VERSION = '1.2.0';

type Json = Record<string, unknown>;
export interface OpenApiDocument extends Json {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json>; securitySchemes: Record<string, Json> };
}

const COMPONENT_PREFIX = '#/components/schemas/';

const NO_PROTO_KEY = { not: { const: '__proto__' }, description: 'The key `__proto__` is refused (400).' };

/**
 * Any JSON value, as an unknown field or a free-form object may hold: objects inside it, at any
 * depth, refuse the key `__proto__` too. Request objects take it for the fields they do not list.
 */
const JSON_VALUE_ID = 'JsonValue';
const JSON_VALUE_REF = { $ref: COMPONENT_PREFIX + JSON_VALUE_ID };
const JsonValueSchema = {
  description: 'Any JSON value. Objects inside it, at any depth, may not use the key `__proto__` (400).',
  propertyNames: NO_PROTO_KEY,
  additionalProperties: JSON_VALUE_REF,
  items: JSON_VALUE_REF,
};

/** Keywords whose schemas are shapes the same value must (not) have: cross-field rules, not values. */
const SHAPE_KEYWORDS = new Set(['not', 'anyOf', 'oneOf', 'allOf']);

/**
 * A copy of a schema in OpenAPI form: no `$id`, `$ref: 'Id'` pointing into `components.schemas`.
 * In request schemas `additionalProperties: false` is left out: the API ignores unknown fields
 * (validation removes them), so the document must not call a body with one invalid. Responses keep
 * it. Request objects say instead that `__proto__` is not a key they take; the shapes of a
 * cross-field rule (`not` both `rules` and `use_case`) do not repeat it: the object they constrain
 * says it already, and a `not` that carries it leaves generators such as the fuzzer's little to do
 * but draw and throw away.
 */
function toOpenApi(value: unknown, request = false, shape = false): unknown {
  if (Array.isArray(value)) return value.map((item) => toOpenApi(item, request, shape));
  if (typeof value !== 'object' || value === null) return value;
  const out: Json = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === '$id' || (request && key === 'additionalProperties' && child === false)) continue;
    const isExternalRef = key === '$ref' && typeof child === 'string' && !child.startsWith('#');
    out[key] = isExternalRef ? COMPONENT_PREFIX + child : toOpenApi(child, request, shape || SHAPE_KEYWORDS.has(key));
  }
  // The body parser refuses the key `__proto__` at any depth (docs/api.md, "Input limits"), in the
  // fields an object lists and in those it does not (ignored, but parsed all the same).
  if (request && !shape && out.type === 'object') {
    out.propertyNames = NO_PROTO_KEY;
    out.additionalProperties ??= JSON_VALUE_REF;
  }
  return out;
}

/** The ids of the named schemas that `schemas` reference, directly or through each other. */
function referencedIds(schemas: readonly unknown[]): Set<string> {
  const byId = new Map(namedSchemas.map((schema) => [schema.$id, schema]));
  const found = new Set<string>();
  const stack = [...schemas];
  while (stack.length) {
    const value = stack.pop();
    if (typeof value !== 'object' || value === null) continue;
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && byId.has(child) && !found.has(child)) {
        found.add(child);
        stack.push(byId.get(child));
      } else stack.push(child);
    }
  }
  return found;
}

/** Named schemas that describe responses (and keep `additionalProperties: false`). */
const responseIds = referencedIds(
  [ErrorBodySchema, ...operations.map((op) => op.success.schema)].map((schema) => ({ $ref: schema.$id })),
);
const isRequestSchema = (schema: AnySchemaObject) => !responseIds.has(schema.$id as string);

/** A `$ref` to a named schema, or the schema itself in OpenAPI form. */
const schemaRef = (schema: AnySchemaObject, request: boolean): unknown =>
  typeof schema.$id === 'string' ? { $ref: COMPONENT_PREFIX + schema.$id } : toOpenApi(schema, request);

/** The schema of a parameter, without the description (the parameter carries it). */
const bareSchema = ({ description: _description, ...schema }: AnySchemaObject) => toOpenApi(schema, true);

const jsonContent = (schema: AnySchemaObject, request = false) => ({
  'application/json': { schema: schemaRef(schema, request) },
});
const jsonResponse = (description: string, schema: AnySchemaObject) => ({ description, content: jsonContent(schema) });

const headerObject = (spec: HeaderSpec) => ({
  description: spec.description,
  required: spec.required,
  schema: bareSchema(spec.schema),
});

const ERROR_DESCRIPTIONS: Record<ErrorStatus, (op: Operation) => string> = {
  400: () =>
    'Invalid input: wrong type, missing required field, out-of-range value. `error` names the field by JSON ' +
    'pointer for bodies (`/data/3/comments/0/commentId is required`), by name for query parameters and headers.',
  401: () => 'Missing or invalid API key.',
  403: (op) => `The API key lacks the scope \`${op.scope}\`.`,
  404: () => 'Not found.',
  405: () => 'The path exists but not with this method; `Allow` lists the methods it takes.',
  408: () =>
    "The request's deadline (the endpoint's default, or a shorter `Request-Timeout`) passed before the work " +
    'finished. Upload work keeps running to completion: nothing is lost.',
  413: (op) =>
    op.bodyEnvelope
      ? `The request body exceeds 10 MB, or the upload carries more than ${LIMITS.uploadItems.toLocaleString('en-US')} items.`
      : 'The request body exceeds 10 MB.',
  415: () => 'The request body is not `application/json` (or its `Content-Encoding` is not gzip, deflate or identity).',
  429: () =>
    'Rate limit of the API key exceeded, or too many requests with invalid keys from the client address; retry after `Retry-After` seconds.',
  431: () => 'The request line or headers exceed 16 KB.',
  500: () => 'Internal error. Details are logged, never returned.',
  503: () => 'A service the operation depends on (workflow engine) is unavailable; retry later.',
  504: () =>
    'A dependency (language model, embedding service, vector store) did not answer within its timeout after ' +
    'the retries allowed.',
};

const RETRY_AFTER = {
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
};

function errorResponse(op: Operation, status: ErrorStatus): Json {
  const addition = op.specErrors.includes(status) ? '' : 'Addition: ';
  const note = op.errorNotes?.[status];
  const response = jsonResponse(
    `${addition}${ERROR_DESCRIPTIONS[status](op)}${note ? ` ${note}` : ''}`,
    ErrorBodySchema,
  );
  return status === 429 ? { ...response, headers: RETRY_AFTER } : response;
}

function parameters(op: Operation): Json[] {
  const query = Object.entries((op.query?.properties ?? {}) as Record<string, AnySchemaObject>).map(
    ([name, schema]) => ({
      name,
      in: 'query',
      required: ((op.query?.required ?? []) as string[]).includes(name),
      description: schema.description,
      schema: bareSchema(schema),
    }),
  );
  const headers = (op.headers ?? []).map((spec) => ({ name: spec.name, in: 'header', ...headerObject(spec) }));
  return [...query, ...headers];
}

function operationObject(op: Operation): Json {
  const params = parameters(op);
  const { status, description, schema, headers } = op.success;
  return {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    description: `${op.description}\n\nRequires the API-key scope \`${op.scope}\`.`,
    ...(params.length ? { parameters: params } : {}),
    ...(op.body ? { requestBody: { required: true, content: jsonContent(op.body, true) } } : {}),
    responses: {
      [status]: {
        ...jsonResponse(description, schema),
        ...(headers ? { headers: Object.fromEntries(headers.map((h) => [h.name, headerObject(h)])) } : {}),
      },
      ...Object.fromEntries(op.errors.map((code) => [code, errorResponse(op, code)])),
    },
  };
}

/** A service endpoint: no authentication, not under /v1. */
const serviceEndpoint = (operationId: string, summary: string, description: string, responses: Json) => ({
  get: { operationId, tags: ['Service'], summary, description, security: [], responses },
});

function servicePaths(): Record<string, Record<string, Json>> {
  const report = { type: 'object', description: 'Status report of the service; its fields are informative only.' };
  return {
    '/openapi.json': serviceEndpoint('getOpenApiDocument', 'This document', 'The OpenAPI 3.1 description of the API.', {
      200: jsonResponse('This document.', { type: 'object' }),
    }),
    '/healthz': serviceEndpoint('health', 'Liveness', 'Addition: 200 while the process is up.', {
      200: jsonResponse('Alive.', report),
    }),
    '/readyz': serviceEndpoint(
      'ready',
      'Readiness',
      'Addition: 200 when the service can take requests (workflow engine, vector store and embedding server answer), 503 otherwise.',
      { 200: jsonResponse('Ready.', report), 503: jsonResponse('Not ready.', report) },
    ),
  };
}

const DESCRIPTION = [
  'Support-intelligence API: answers support questions, summarizes, tags and scores conversations, ingests ' +
    'knowledge articles, support cases and incidents, searches cases and articles, and grades model outputs.',
  '',
  '- **Authentication**: `Authorization: Bearer <API key>`. A key belongs to one tenant and carries scopes; a ' +
    "valid key without the operation's scope gets 403 (an addition on ask, summary, feedback, tag, sentiment, " +
    'evaluate). No data ever crosses tenants.',
  '- **Errors**: every error body is `{error, code, status}` (Addition: on every endpoint). 400 messages name ' +
    'the offending field by JSON pointer. 429 carries `Retry-After`.',
  '- **Unknown fields** in request bodies are ignored, so clients written against later versions keep working. ' +
    'Unknown query parameters are ignored too.',
  `- **Limits**: uploads take 1 to ${LIMITS.uploadItems.toLocaleString('en-US')} items and at most 10 MB (413 above); ` +
    'every string field has a maximum length, stated in its description.',
  '- **Deadlines**: each endpoint has a default deadline; `Request-Timeout: <seconds>` may shorten it (408).',
  '- Descriptions starting with **Addition** mark what this service adds to the published specification; ' +
    '**Decision** marks a choice where the specification is silent.',
].join('\n');

/** The OpenAPI 3.1 document of the API. `serverUrl` defaults to `/` (the host serving the document). */
export function buildOpenApiDocument(options: { serverUrl?: string } = {}): OpenApiDocument {
  const paths: Record<string, Record<string, Json>> = {};
  for (const op of operations) {
    const path = op.path.replace(/:(\w+)/g, '{$1}');
    paths[path] = { ...paths[path], [op.method.toLowerCase()]: operationObject(op) };
  }
  Object.assign(paths, servicePaths());
  return {
    openapi: '3.1.0',
    info: { title: 'Support-AI API', version: API_VERSION, description: DESCRIPTION },
    servers: [{ url: options.serverUrl ?? '/' }],
    security: [{ bearerAuth: [] }],
    tags: [...new Set([...operations.map((op) => op.tag), 'Service'])].map((name) => ({ name })),
    paths,
    components: {
      schemas: {
        ...Object.fromEntries(
          namedSchemas.map((schema) => [schema.$id, toOpenApi(schema, isRequestSchema(schema)) as Json]),
        ),
        [JSON_VALUE_ID]: JsonValueSchema,
      },
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'API key issued by the service operator; send it only from a backend, never from browser or mobile code.',
        },
      },
    },
  };
}
