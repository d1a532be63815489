/**
 * Reading a request's JSON body. It runs inside an operation's guard (api/routes/guard.ts), after
 * the key, its scope and its rate limit were checked: a request that is refused there never has
 * its body read (Node discards it as it arrives, and the HTTP server's receive timeout bounds how
 * long: api/http-server.ts).
 */
import type { Context, Middleware } from 'koa';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createUnzip } from 'node:zlib';
import { parse as parseJson } from '@hapi/bourne';
import getRawBody from 'raw-body';
import { ApiError, badRequest, payloadTooLarge, unsupportedMediaType } from '../errors';
import { nextTurn, stepped } from '../event-loop-steps';

/** Bodies larger than this, once decompressed, get 413 (docs/api.md). */
export const BODY_LIMIT = '10mb';
export const BODY_LIMIT_BYTES = 10 * 1024 * 1024;

/**
 * The media types read as JSON: `application/json` and every `+json` type
 * (`application/merge-patch+json`, `application/vnd.foo+json`). The body reader and the media-type
 * check of `validate` both ask this, so a type is either read as JSON or answered 415.
 */
export const JSON_MEDIA_TYPES = ['application/json', '+json'];

export const isJsonRequest = (ctx: Context): boolean => ctx.request.is(JSON_MEDIA_TYPES) !== false;

/** The body's bytes as sent, decompressed per its `Content-Encoding`; 415 for an unknown encoding. */
function decoded(req: IncomingMessage): Readable {
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '') return req;
  const decompressor =
    encoding === 'gzip' || encoding === 'deflate'
      ? createUnzip()
      : encoding === 'br'
        ? createBrotliDecompress()
        : undefined;
  if (!decompressor) throw unsupportedMediaType('unsupported Content-Encoding; use gzip, deflate, br or identity');
  req.pipe(decompressor);
  // A request that ends early (aborted, timed out) ends the decompressor too, or its reader would wait
  // for ever. Not the other way round: bytes that do not decompress must not close the connection
  // before the 400 is sent.
  req.once('close', () => {
    if (!req.complete) decompressor.destroy(Object.assign(new Error('request aborted'), { type: 'request.aborted' }));
  });
  return decompressor;
}

/** What a failure of reading the bytes means for the client: 413, 400, or not the client's fault. */
function readFailure(err: unknown, compressed: boolean): ApiError | unknown {
  const { status, type } = err as { status?: number; type?: string };
  if (status === 413) return payloadTooLarge('request body exceeds the limit of 10 MB');
  if (type === 'request.aborted') return badRequest('the request body ended before it was complete');
  if (type === 'request.size.invalid') return badRequest('the request body does not have the length it announced');
  // The decompressor's errors carry no status: the bytes are not what their encoding says.
  if (compressed && status === undefined)
    return badRequest('request body could not be decoded with its Content-Encoding');
  return err;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body as text: 400 unless it is valid UTF-8 (no byte is silently replaced). A BOM is dropped. */
function utf8Text(bytes: Buffer): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw badRequest('request body is not valid UTF-8');
  }
}

/** JSON whitespace (RFC 8259) then the start of an object or an array. */
const OBJECT_OR_ARRAY = /^[ \t\n\r]*[[{]/;

/** The body's value: an object or an array (anything else is not a request body); `__proto__` is refused. */
function jsonValue(text: string): unknown {
  if (text === '') return {};
  if (!OBJECT_OR_ARRAY.test(text)) throw badRequest('request body must be a JSON object');
  try {
    return parseJson(text, { protoAction: 'error' });
  } catch (err) {
    if (String((err as Error).message).includes('prototype'))
      throw badRequest('request body must not use the key "__proto__"');
    throw badRequest('request body is not valid JSON');
  }
}

/**
 * Reads a JSON body into `ctx.request.body` (at most 10 MB decompressed: 413 above; invalid UTF-8
 * or JSON: 400; an unknown `Content-Encoding`: 415). A body of another media type is not read:
 * `validate` answers it 415.
 */
export function jsonBody(): Middleware {
  return async function jsonBodyMiddleware(ctx, next) {
    if (isJsonRequest(ctx)) {
      const req = ctx.req;
      const stream = decoded(req);
      const compressed = stream !== req;
      const length = compressed ? undefined : req.headers['content-length'];
      const bytes = await getRawBody(stream, { limit: BODY_LIMIT_BYTES, length }).catch((err) => {
        // What is left of a body refused half-way is discarded as it arrives (bounded by the receive
        // timeout), so the connection stays in step for the answer and any next request on it.
        req.unpipe();
        req.resume();
        throw readFailure(err, compressed);
      });
      ctx.state.bodyBytes = bytes.length;
      const large = stepped(ctx.state);
      const text = utf8Text(bytes);
      if (large) await nextTurn();
      (ctx.request as { body?: unknown }).body = jsonValue(text);
      if (large) await nextTurn();
    }
    await next();
  };
}
