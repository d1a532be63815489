import type { Middleware } from 'koa';
import { badRequest, bodyStep, unsupportedMediaType } from '../errors';
import { compileBody, compileParams, firstErrorMessage } from '../../domain/contracts/ajv';
import { checkJsonObject, checkSchema } from '../../domain/contracts/json-body';
import { namedSchemas, type Operation } from '../schemas/operations';
import { nextTurn, stepped } from '../event-loop-steps';
import { isJsonRequest } from './body';

/** The cleaned request: unknown body fields removed, defaults filled in, query and headers typed. */
export interface ValidatedInput<Body = Record<string, unknown>, Query = Record<string, unknown>> {
  /** The body (undefined for operations without one). */
  body: Body;
  /** Declared query parameters, coerced (`limit` is a number); undeclared ones are dropped. */
  query: Query;
  /** Declared headers present on the request, keyed by canonical name (`X-Business-Id`). */
  headers: Record<string, string | number | undefined>;
}

export interface ValidatedState {
  input: ValidatedInput;
  /** Bytes of the request body as read (middlewares/body.ts); a large one is checked in steps. */
  bodyBytes?: number;
  /** A large body (an upload, a summary, a sentiment, a tag), left unread for its handler (middlewares/body.ts, offload). */
  rawBody?: Buffer;
}

/** Headers of an operation as one object schema, keyed by canonical header name. */
function headersSchema(op: Operation) {
  const headers = op.headers ?? [];
  return {
    type: 'object',
    properties: Object.fromEntries(headers.map((h) => [h.name, h.schema])),
    required: headers.filter((h) => h.required).map((h) => h.name),
  };
}

/**
 * Validates the body, query string and declared headers of `operation`, and puts the cleaned values
 * in `ctx.state.input`; answers 400 naming the first offending field, or 413 when an upload carries
 * more items than allowed. Schemas are compiled here, when routes are built, not per request.
 *
 * Upload operations validate only their envelope (`bodyEnvelope`); the handler checks each item with
 * `checkUploadItems` so that bad items make the upload `partial` rather than failing it.
 */
export function validate(operation: Operation): Middleware<ValidatedState> {
  const bodySchema = operation.bodyEnvelope ?? operation.body;
  const validateBody = bodySchema && compileBody(bodySchema, namedSchemas);
  const validateQuery = operation.query && compileParams(operation.query);
  const validateHeaders = compileParams(headersSchema(operation));

  return async function validateMiddleware(ctx, next) {
    let body: unknown;
    if (validateBody) {
      // The body reader reads only JSON (the same media types): any other would arrive as an empty body.
      if (!isJsonRequest(ctx)) {
        throw unsupportedMediaType(
          'the request body must be JSON, sent with Content-Type: application/json (or another +json type)',
        );
      }
      // A body left as bytes (body.ts, offload) is checked by its handler, on a CPU thread.
      if (!ctx.state.rawBody) {
        body = (ctx.request as { body?: unknown }).body;
        bodyStep(() => checkJsonObject(body));
        if (stepped(ctx.state)) await nextTurn();
        bodyStep(() => checkSchema({ validate: validateBody, body, envelope: Boolean(operation.bodyEnvelope) }));
        if (stepped(ctx.state)) await nextTurn();
      }
    }

    const query: Record<string, unknown> = {};
    if (validateQuery) {
      Object.assign(query, ctx.query);
      if (!validateQuery(query)) throw badRequest(firstErrorMessage(validateQuery, 'query parameter'));
    }

    const headers: Record<string, string | number | undefined> = {};
    for (const { name } of operation.headers ?? []) {
      // A header sent with nothing in it is a mistake, not an absent header.
      if (ctx.headers[name.toLowerCase()] === undefined) continue;
      const value = ctx.get(name).trim();
      if (value === '') throw badRequest(`header ${name} must not be empty`);
      headers[name] = value;
    }
    if (!validateHeaders(headers)) throw badRequest(firstErrorMessage(validateHeaders, 'header'));

    ctx.state.input = { body: body as Record<string, unknown>, query, headers };
    await next();
  };
}
